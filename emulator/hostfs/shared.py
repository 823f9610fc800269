"""The directories every host mounts: ``/home`` (NFS) and ``/lustre`` (the parallel filesystem).

alice's home with her shell start-up files and the storage team's job statistics, the Lustre top directories, the
training run's data directory (its corpus shards) and checkpoint directory, and the job's files
(:mod:`emulator.hostfs.joblogs`). One copy is shared by all hosts, so a file
written on one node is there on every other.
"""

from __future__ import annotations

from emulator.cluster.model import Cluster
from emulator.cluster.training import DATA_WRITTEN_S, dataset_shards
from emulator.hostfs.joblogs import mount_job_logs
from emulator.hostfs.storagereport import REPORT, job_stats_report
from emulator.hostfs.tree import mount, tree
from emulator.vfs import Dir, File


def shared_dirs(cluster: Cluster) -> dict[str, Dir]:
    """The directories every host mounts: ``/home`` and ``/lustre``."""
    home = Dir({"alice": _home(cluster)})
    lustre = Dir()
    for sub in ("jobs", "datasets", "ckpt", "scratch"):
        lustre.children[sub] = Dir(mode=0o1777 if sub == "scratch" else 0o755)
    if cluster.training is not None:
        shards: dict[str, File | Dir] = {name: File("", owner="alice", group="alice", mtime=DATA_WRITTEN_S, fixed_size=size)
                  for name, size in dataset_shards()}
        mount(lustre, cluster.training.data_dir.removeprefix("/lustre"),
              Dir(shards, owner="alice", group="alice", mtime=DATA_WRITTEN_S))
        mount(lustre, cluster.training.checkpoint_dir.removeprefix("/lustre"), Dir(owner="alice", group="alice"),
              "alice")
    mount_job_logs(cluster, home, lustre)
    return {"home": home, "lustre": lustre}


def _home(cluster: Cluster) -> Dir:
    files = {
        ".bashrc": File(_BASHRC, owner="alice", group="alice", mtime=-8_640_000.0),
        ".profile": File(_PROFILE, owner="alice", group="alice", mtime=-8_640_000.0),
    }
    if cluster.training is not None:
        files[REPORT] = job_stats_report(cluster)
    home = tree(files, owner="alice")
    home.mode = 0o750
    return home


_BASHRC = """# ~/.bashrc: executed by bash(1) for non-login shells.
HISTCONTROL=ignoreboth
HISTSIZE=1000
export PATH=/usr/local/cuda/bin:$PATH
alias ll='ls -alF'
alias sq='squeue -u $USER'
"""


_PROFILE = """# ~/.profile: executed by the command interpreter for login shells.
if [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then
    . "$HOME/.bashrc"
fi
"""
