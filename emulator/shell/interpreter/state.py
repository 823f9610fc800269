"""The shell's state: the host stack (``ssh``, child shells), the working directory, the environment, each host's filesystem, and the output queued for the next chunk."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emulator import hostfs
from emulator.cluster.accounts import LEARNER
from emulator.errors import LineStopped
from emulator.limits import SCREEN_LIMIT, limit_reached
from emulator.shell import table
from emulator.shell.interpreter.streams import Input
from emulator.vfs import FileSystem

if TYPE_CHECKING:  # pragma: no cover
    from emulator.cluster.model import Cluster, Node

#: The learner, and their home directory.
USER = LEARNER
HOME = "/home/alice"


@dataclass
class Frame:
    """One level of the host stack: ``ssh`` pushes, ``exit`` pops."""

    host: Node
    cwd: str
    oldpwd: str = ""
    #: A host entered only to run one line (``ssh host cmd``): ``exit`` there just ends.
    remote: bool = False
    #: A child shell a command started (``salloc``): ``exit`` ends it and prints what this returns.
    leave: Callable[[], str] | None = None
    #: The parent shell's environment, variables and aliases, restored when the child shell ends.
    parent: tuple[dict[str, str], dict[str, str], dict[str, str]] | None = None


#: What a shell sets for the host and directory it is on, beside its login environment (:func:`default_env`).
HOST_VARS = ("HOSTNAME", "PWD")


def default_env() -> dict[str, str]:
    return {
        "HOME": HOME, "USER": USER, "LOGNAME": USER, "SHELL": "/bin/bash", "TERM": "xterm-256color",
        "LANG": "C.UTF-8", "PATH": "/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "PWD": HOME, "SHLVL": "1",
    }


class ShellState:
    """The interpreter state of one session: host stack, variables, last status."""

    def __init__(self, session: Any, cluster: Cluster) -> None:
        self.session = session
        self.cluster = cluster
        self.frames = [Frame(cluster.nodes[cluster.login], HOME)]
        self.env = default_env()
        self.vars: dict[str, str] = {}
        self.last_status = 0
        self.pending: list[tuple[str, str]] = []
        #: Characters the running line has shown so far (see :data:`~emulator.limits.SCREEN_LIMIT`).
        self._shown = 0
        self._commands = 0
        self._random = 0
        #: Subshells ``( ... )`` running now (``exit`` ends the innermost).
        self.subshells = 0
        #: Inputs of the loops running now, innermost last (for ``read``).
        self.inputs: list[Input] = []
        self._depth = 0
        self._filesystems: dict[str, FileSystem] = {}
        self._shared = hostfs.shared_dirs(cluster)
        #: Every command this shell knows: the tool families and its own builtins.
        self.commands = table.commands()
        #: Ubuntu's default aliases from ~/.bashrc, plus those the learner defines.
        self.aliases = {"ll": "ls -alF", "la": "ls -A", "l": "ls -CF"}
        #: Aliases being expanded now (bash does not expand an alias again inside its own expansion).
        self._aliasing: set[str] = set()
        self._sync_env()

    # -- hosts and the working directory ------------------------------------------
    @property
    def host(self) -> Node:
        return self.frames[-1].host

    @property
    def cwd(self) -> str:
        return self.frames[-1].cwd

    @cwd.setter
    def cwd(self, path: str) -> None:
        frame = self.frames[-1]
        frame.oldpwd, frame.cwd = frame.cwd, path
        self._sync_env()

    @property
    def home(self) -> str:
        return self.env.get("HOME", HOME)

    def fs_for(self, host: Node) -> FileSystem:
        fs = self._filesystems.get(host.name)
        if fs is None:
            fs = hostfs.build(self.cluster, host, self._shared)
            self._filesystems[host.name] = fs
        return fs

    @property
    def fs(self) -> FileSystem:
        """The current host's filesystem, resolving relative paths from the working directory."""
        fs = self.fs_for(self.host)
        fs.cwd = self.cwd
        return fs

    def push_host(self, host: Node) -> None:
        cwd = HOME if self.fs_for(host).isdir(HOME) else "/"
        self.frames.append(Frame(host, cwd))
        self._sync_env()

    def start_shell(self, env: dict[str, str], leave: Callable[[], str], host: Node | None = None) -> None:
        """A child shell with ``env`` added, here or on ``host`` (``salloc``, ``srun --pty bash``).

        ``exit`` ends it, see :meth:`end_shell`.
        """
        frame = self.frames[-1]
        parent = (dict(self.env), dict(self.vars), dict(self.aliases))
        if host is None or host is frame.host:
            self.frames.append(Frame(frame.host, frame.cwd, frame.oldpwd, True, leave, parent))
        else:
            cwd = frame.cwd if self.fs_for(host).isdir(frame.cwd) else "/"
            self.frames.append(Frame(host, cwd, "", True, leave, parent))
        level = self.env.get("SHLVL", "1")
        self.env.update(env)
        self.env["SHLVL"] = str(int(level) + 1 if level.isdecimal() else 1)
        self._sync_env()

    def end_shell(self) -> None:
        """After ``exit`` in a child shell: bash says ``exit``, the parent's variables return, the command ends."""
        frame = self.frames[-1]
        if frame.leave is None or frame.parent is None:
            return
        self.frames.pop()
        env, variables, aliases = frame.parent
        self.env, self.vars, self.aliases = dict(env), dict(variables), dict(aliases)
        self._sync_env()
        self.emit("err", "exit\n" + frame.leave())

    def pop_host(self) -> bool:
        """Return to the previous host; False on the first host."""
        if len(self.frames) == 1:
            return False
        self.frames.pop()
        self._sync_env()
        return True

    def _sync_env(self) -> None:
        self.env["PWD"] = self.cwd
        self.env["HOSTNAME"] = self.host.name
        oldpwd = self.frames[-1].oldpwd
        if oldpwd:
            self.env["OLDPWD"] = oldpwd

    def prompt(self) -> str:
        cwd = self.cwd
        if cwd == self.home or cwd.startswith(self.home + "/"):
            cwd = "~" + cwd[len(self.home):]
        return f"{USER}@{self.host.name}:{cwd}$ "

    # -- output -------------------------------------------------------------------
    def emit(self, stream: str, text: str) -> None:
        """Queue text for the screen; past :data:`~emulator.limits.SCREEN_LIMIT` keep what fits and end the line."""
        if not text:
            return
        room = SCREEN_LIMIT - self._shown
        self._shown += len(text)
        if len(text) > room:
            if room > 0:
                self.pending.append((stream, text[:room]))
            raise LineStopped(limit_reached(f"bash: output stopped after {SCREEN_LIMIT} characters"))
        self.pending.append((stream, text))

    def take_pending(self) -> list[tuple[str, str]]:
        """The output since the last chunk, consecutive writes to one stream joined."""
        taken, self.pending = self.pending, []
        merged: list[tuple[str, list[str]]] = []
        for stream, text in taken:
            if merged and merged[-1][0] == stream:
                merged[-1][1].append(text)
            else:
                merged.append((stream, [text]))
        return [(stream, "".join(parts)) for stream, parts in merged]
