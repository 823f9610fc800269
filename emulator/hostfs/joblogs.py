"""The training job's files in the shared trees: its logs, batch script, config and checkpoints.

The texts are producers from :mod:`emulator.cluster.jobfiles`, rendered when
read, so ``tail -f train.log`` grows with the simulated clock. Checkpoint
shards are sizes only, as they stand when the session starts.
"""

from __future__ import annotations

from posixpath import basename, dirname

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
    saved = checkpoint_files(cluster)
    for path, (size, mtime) in saved.items():
        shard = File("", owner="alice", group="alice", mtime=mtime, fixed_size=size)
        mount(lustre, path.removeprefix("/lustre"), shard, "alice")
    _date_save_dirs(lustre, saved)


def _date_save_dirs(lustre: Dir, saved: dict[str, tuple[int, float]]) -> None:
    """A save's directory was last changed by its last entry: the ``.metadata`` rename that ends a
    complete save, or the shard creates of one that never completed; their parent, by the newest."""
    by_dir: dict[str, list[tuple[str, float]]] = {}
    for path, (_size, mtime) in saved.items():
        by_dir.setdefault(dirname(path), []).append((basename(path), mtime))
    changed: dict[str, float] = {}
    for path, entries in by_dir.items():
        done = [t for name, t in entries if name == ".metadata"]
        changed[path] = done[0] if done else min(t for _name, t in entries)
        parent = dirname(path)
        changed[parent] = max(changed.get(parent, changed[path]), changed[path])
    for path, mtime in changed.items():
        node: File | Dir | None = lustre
        for name in path.removeprefix("/lustre").strip("/").split("/"):
            node = node.children.get(name) if isinstance(node, Dir) else None
        if isinstance(node, Dir):
            node.mtime = mtime
