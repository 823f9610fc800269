"""The training job's files in the shared trees: its logs, batch script, config and checkpoints.

The texts are producers from :mod:`emulator.cluster.jobfiles`, rendered when
read, so ``tail -f train.log`` grows with the simulated clock. Checkpoint
shards are sizes only, as they stand when the session starts.
"""

from __future__ import annotations

from emulator.cluster.checkpoints import checkpoint_files
from emulator.cluster.jobfiles import files as log_files
from emulator.cluster.jobfiles import mtimes as log_mtimes
from emulator.cluster.model import Cluster
from emulator.hostfs.tree import mount
from emulator.vfs import Dir, File


def mount_job_logs(cluster: Cluster, home: Dir, lustre: Dir) -> None:
    """Mount the training run's files (logs, Slurm output, script, config, checkpoint shards) in the shared trees."""
    written = log_mtimes(cluster)
    for path, render in log_files(cluster).items():
        # A log that stopped growing (the job ended) keeps the instant of its last line.
        node = File(render, owner="alice", group="alice", live_mtime=written.get(path, lambda: cluster.clock.elapsed))
        if path.startswith("/lustre/"):
            mount(lustre, path.removeprefix("/lustre"), node, "alice")
        elif path.startswith("/home/"):
            mount(home, path.removeprefix("/home"), node, "alice")
    # Checkpoint shards as they stand when the session starts (binary: sizes only).
    for path, (size, mtime) in checkpoint_files(cluster).items():
        shard = File("", owner="alice", group="alice", mtime=mtime, fixed_size=size)
        mount(lustre, path.removeprefix("/lustre"), shard, "alice")
