"""Building blocks of a host's tree: a file rendered when read, a tree from relative paths, a mount."""

from __future__ import annotations

from collections.abc import Callable

from emulator.vfs import Dir, File


def live_file(render: Callable[[], str], size: int = 0, now: Callable[[], float] | None = None) -> File:
    """A file rendered at read time; ``ls -l`` shows ``size`` (0 for /proc, 4096 for /sys).

    ``now`` gives its modification time live (/proc files always look just written).
    """
    return File(render, mode=0o444, fixed_size=size, live_mtime=now)


def tree(files: dict[str, File], owner: str = "root") -> Dir:
    """A directory tree from {relative path: file}."""
    root = Dir(owner=owner, group=owner)
    for path, node in files.items():
        parts = path.split("/")
        here = root
        for name in parts[:-1]:
            child = here.children.get(name)
            if not isinstance(child, Dir):
                child = Dir(owner=owner, group=owner)
                here.children[name] = child
            here = child
        here.children[parts[-1]] = node
    return root


def mount(root: Dir, path: str, node: File | Dir, owner: str = "root") -> None:
    """Place ``node`` at absolute ``path``, creating directories (owned by ``owner``) on the way."""
    parts = [p for p in path.split("/") if p]
    here = root
    for name in parts[:-1]:
        child = here.children.get(name)
        if not isinstance(child, Dir):
            child = Dir(owner=owner, group=owner)
            here.children[name] = child
        here = child
    here.children[parts[-1]] = node
