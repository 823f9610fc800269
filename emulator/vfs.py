"""The virtual filesystem: an in-memory tree per host, with errno-true errors.

Each host has its own tree (``/etc``, ``/proc``, ``/sys``, ``/var/log``,
``/tmp``); ``/home`` and ``/lustre`` are shared by every host, as NFS and a
parallel filesystem are on a real cluster. A file's content is either text or
a callable evaluated at read time, so ``/proc`` and ``/sys`` files render live
from the cluster model. Errors carry an errno and read like the real ones
through :func:`os.strerror` (``cat: /nope: No such file or directory``).

A file the learner writes stops at :data:`~emulator.limits.FILE_LIMIT`
characters (``File too large``), and a walk of a tree at
:data:`~emulator.limits.WALK_LIMIT` entries (:class:`TreeTooLarge`).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from emulator.limits import FILE_LIMIT, WALK_LIMIT, limit_reached

Content = str | Callable[[], str]


class FsError(Exception):
    """A filesystem error with an errno; ``str()`` is ``path: strerror``.

    ``strerror`` overrides the system's wording (a limit of this terminal says so after it).
    """

    def __init__(self, code: int, path: str, strerror: str | None = None) -> None:
        self.strerror = strerror or os.strerror(code)
        super().__init__(f"{path}: {self.strerror}")
        self.errno = code
        self.path = path

    def message(self, prog: str, verb: str = "") -> str:
        """``prog: verb 'path': strerror`` or ``prog: path: strerror`` as coreutils print it."""
        if verb:
            return f"{prog}: {verb} '{self.path}': {self.strerror}"
        return f"{prog}: {self.path}: {self.strerror}"


class TreeTooLarge(Exception):  # noqa: N818 - named for what happened, as FsError's errnos are
    """:meth:`FileSystem.walk` stopped at :data:`~emulator.limits.WALK_LIMIT` entries; the caller says so."""


@dataclass
class File:
    content: Content = ""
    mode: int = 0o644
    owner: str = "root"
    group: str = "root"
    mtime: float = 0.0          # offset in seconds from the clock's start
    #: Size ``ls -l`` shows for a live file (real /proc files show 0, /sys 4096); None = len(content).
    fixed_size: int | None = None
    #: For a file that changes on its own (a growing log, /proc): when it last changed, read live.
    live_mtime: Callable[[], float] | None = field(default=None, repr=False)

    def modified(self) -> float:
        """Last modification, as an offset in seconds from the clock's start."""
        return self.live_mtime() if self.live_mtime is not None else self.mtime

    def read(self) -> str:
        return self.content() if callable(self.content) else self.content

    def size(self) -> int:
        if self.fixed_size is not None:
            return self.fixed_size
        return len(self.read().encode())


@dataclass
class Dir:
    children: dict[str, File | Dir] = field(default_factory=dict)
    mode: int = 0o755
    owner: str = "root"
    group: str = "root"
    mtime: float = 0.0
    #: Fills in the children on first listing (for large live trees such as /sys).
    populate: Callable[[Dir], None] | None = field(default=None, repr=False)

    def modified(self) -> float:
        return self.mtime

    def entries(self) -> dict[str, File | Dir]:
        if self.populate is not None:
            fill, self.populate = self.populate, None
            fill(self)
        return self.children


Node = File | Dir


def normpath(cwd: str, path: str) -> str:
    """Absolute, normalised form of ``path`` seen from ``cwd`` (``..`` above / stays at /)."""
    joined = path if path.startswith("/") else posixpath.join(cwd, path)
    norm = posixpath.normpath(joined)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm


class FileSystem:
    """One host's tree."""

    def __init__(self, root: Dir, clock_offset: Callable[[], float] = lambda: 0.0) -> None:
        self.root = root
        self._now = clock_offset
        #: Relative paths resolve from here; the shell keeps it equal to its working directory.
        self.cwd = "/"

    # -- lookup -------------------------------------------------------------------
    def abspath(self, path: str) -> str:
        """``path`` as typed, made absolute from :attr:`cwd` and normalised."""
        return normpath(self.cwd, path)

    def lookup(self, path: str) -> Node:
        """The node at ``path`` (relative to :attr:`cwd`); errors name the path as typed."""
        node: Node = self.root
        if not path:
            raise FsError(errno.ENOENT, path)
        full = self.abspath(path)
        if full == "/":
            return node
        for name in full.strip("/").split("/"):
            if not isinstance(node, Dir):
                raise FsError(errno.ENOTDIR, path)
            child = node.entries().get(name)
            if child is None:
                raise FsError(errno.ENOENT, path)
            node = child
        return node

    def exists(self, path: str) -> bool:
        try:
            self.lookup(path)
        except FsError:
            return False
        return True

    def isdir(self, path: str) -> bool:
        try:
            return isinstance(self.lookup(path), Dir)
        except FsError:
            return False

    # -- files --------------------------------------------------------------------
    def read(self, path: str, user: str | None = None) -> str:
        """The text of the file at ``path``; given the reading ``user``, a file only its owner may
        read (no group or other read bit, as ``/proc/PID/environ``) is refused to anyone else but root."""
        node = self.lookup(path)
        if isinstance(node, Dir):
            raise FsError(errno.EISDIR, path)
        if user is not None and user != "root" and node.owner != user and node.mode & 0o044 == 0:
            raise FsError(errno.EACCES, path)
        return node.read()

    def listdir(self, path: str) -> list[str]:
        node = self.lookup(path)
        if not isinstance(node, Dir):
            raise FsError(errno.ENOTDIR, path)
        return sorted(node.entries())

    def _parent(self, path: str) -> tuple[Dir, str]:
        parent_path, name = posixpath.split(self.abspath(path))
        if not name:
            raise FsError(errno.EISDIR, path)
        try:
            parent = self.lookup(parent_path or "/")
        except FsError as exc:
            raise FsError(exc.errno, path) from None
        if not isinstance(parent, Dir):
            raise FsError(errno.ENOTDIR, path)
        return parent, name

    def write(self, path: str, text: str, append: bool = False) -> None:
        """Create or replace (or append to) a regular file."""
        if self.abspath(path) == "/dev/null":
            return
        parent, name = self._parent(path)
        existing = parent.entries().get(name)
        if isinstance(existing, Dir):
            raise FsError(errno.EISDIR, path)
        if existing is None:
            if parent.owner == "root" and parent.mode & 0o002 == 0:
                raise FsError(errno.EACCES, path)
            existing = File("", owner="alice", group="alice")
            parent.children[name] = existing
        elif callable(existing.content) or existing.owner == "root":
            raise FsError(errno.EACCES, path)
        content = (existing.read() + text) if append else text
        existing.content = content[:FILE_LIMIT]
        existing.mtime = self._now()
        if len(content) > FILE_LIMIT:
            raise FsError(errno.EFBIG, path, limit_reached(f"{os.strerror(errno.EFBIG)}: more than {FILE_LIMIT} characters"))

    def mkdir(self, path: str, parents: bool = False) -> None:
        if parents:
            walked = ""
            for name in self.abspath(path).strip("/").split("/"):
                walked += "/" + name
                if not self.isdir(walked):
                    self.mkdir(walked)
            return
        parent, name = self._parent(path)
        if name in parent.entries():
            raise FsError(errno.EEXIST, path)
        if parent.owner == "root" and parent.mode & 0o002 == 0:
            raise FsError(errno.EACCES, path)
        parent.children[name] = Dir(owner="alice", group="alice", mtime=self._now())

    def remove(self, path: str) -> None:
        parent, name = self._parent(path)
        node = parent.entries().get(name)
        if node is None:
            raise FsError(errno.ENOENT, path)
        if isinstance(node, Dir):
            raise FsError(errno.EISDIR, path)
        if node.owner != "alice":
            raise FsError(errno.EACCES, path)
        del parent.children[name]

    # -- patterns -----------------------------------------------------------------
    def glob(self, pattern: str) -> list[str]:
        """Absolute paths matching an absolute glob pattern, sorted; dotfiles need a leading dot."""
        parts = [p for p in pattern.split("/") if p]
        results: list[str] = []

        def walk(node: Node, path: str, depth: int) -> None:
            if depth == len(parts):
                results.append(path or "/")
                return
            if not isinstance(node, Dir):
                return
            part = parts[depth]
            if not _has_magic(part):
                name = _unescape(part)
                child = node.entries().get(name)
                if child is not None:
                    walk(child, f"{path}/{name}", depth + 1)
                return
            for name in sorted(node.entries()):
                if name.startswith(".") and not part.startswith("."):
                    continue
                if fnmatch.fnmatchcase(name, part):
                    walk(node.entries()[name], f"{path}/{name}", depth + 1)

        walk(self.root, "", 0)
        return results

    def walk(self, path: str) -> Iterator[tuple[str, Node]]:
        """Every (path, node) under ``path``, depth first, sorted; raises :class:`TreeTooLarge` after
        :data:`~emulator.limits.WALK_LIMIT` entries if more are left."""
        count = 0
        stack: list[tuple[str, Node]] = [(path, self.lookup(path))]
        while stack:
            if count == WALK_LIMIT:
                raise TreeTooLarge(path)
            current, node = stack.pop()
            count += 1
            yield current, node
            if isinstance(node, Dir):
                for name in sorted(node.entries(), reverse=True):
                    stack.append((posixpath.join(current, name), node.entries()[name]))


_MAGIC = re.compile(r"[*?\[]")


def _has_magic(text: str) -> bool:
    return _MAGIC.search(text) is not None


def _unescape(text: str) -> str:
    """Undo :func:`glob_escape` for a path component without magic."""
    return text.replace("[*]", "*").replace("[?]", "?").replace("[[]", "[")


def glob_escape(text: str) -> str:
    """Make quoted text match itself literally inside a glob pattern."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def has_magic(text: str) -> bool:
    """Whether a pattern has unescaped glob characters."""
    return _has_magic(text)
