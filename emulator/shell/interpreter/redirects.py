"""Redirections applied left to right to a command's streams: files (``>``, ``>>``, ``<``, ``&>``), descriptors (``2>&1``, ``>&-``), here-documents and here-strings."""

from __future__ import annotations

from emulator.cluster.accounts import LEARNER
from emulator.shell.expand import expand_word
from emulator.shell.interpreter.expansion import ExpansionEnv
from emulator.shell.interpreter.streams import FileSink, Null, Sink, Terminal
from emulator.shell.lexer import Word, tokenize
from emulator.shell.parser import Redirect
from emulator.vfs import FsError


class Redirections(ExpansionEnv):
    """Where a command reads and writes once its redirections apply, on the current host's filesystem."""

    def redirect(self, redirects: list[Redirect], stdin: str, out: Sink,
                 err: Sink) -> tuple[str, Sink, Sink] | None:
        """Apply redirections left to right; None (after an error message) if one fails."""
        fds: dict[int, Sink] = {1: out, 2: err}
        for r in redirects:
            if r.op == "<<<":
                stdin = "".join(expand_word(r.target, self, split=False, glob=False)) + "\n"
                continue
            if r.op in ("<<", "<<-"):
                if r.unterminated:
                    err.write(f"bash: warning: here-document at line 1 delimited by end-of-file "
                              f"(wanted `{r.target.literal() or r.target.raw}')\n")
                stdin = self._heredoc(r.body or "", r.expand)
                continue
            targets = self.expand(r.target)
            if len(targets) != 1:
                err.write(f"bash: {r.target.raw}: ambiguous redirect\n")
                return None
            target = targets[0]
            fd = r.fd if r.fd is not None else (0 if r.op in ("<", "<&", "<>") else 1)
            try:
                if r.op in (">&", "<&") and (target.isdecimal() or target == "-"):
                    if target == "-":
                        fds[fd] = Null()
                    elif int(target) in fds:
                        fds[fd] = fds[int(target)]
                    elif int(target) != 0:
                        err.write(f"bash: {target}: Bad file descriptor\n")
                        return None
                elif r.op == "<":
                    stdin = self._read_input(target)
                elif r.op in ("&>", "&>>") or (r.op == ">&" and r.fd is None):
                    sink = self._open(target, append=r.op == "&>>")
                    fds[1] = fds[2] = sink
                elif r.op == "<>":
                    continue
                else:
                    fds[fd] = self._open(target, append=r.op == ">>")
            except FsError as exc:
                err.write(f"bash: {exc.path}: {exc.strerror}\n")
                return None
        return stdin, fds[1], fds[2]

    def _heredoc(self, body: str, expand: bool) -> str:
        """A here-document's text; with an unquoted delimiter, ``$VAR`` and ``$(...)`` expand as in quotes."""
        if not expand or not any(c in body for c in "$`\\"):
            return body
        words = [t for t in tokenize('"' + body.replace('"', '\\"') + '"') if isinstance(t, Word)]
        return "".join(expand_word(words[0], self, split=False, glob=False)) if words else body

    def _read_input(self, path: str) -> str:
        if path in ("/dev/null", "/dev/stdin"):
            return ""
        return self.fs.read(path, LEARNER)

    def _open(self, path: str, append: bool) -> Sink:
        specials: dict[str, Sink] = {"/dev/null": Null(), "/dev/stdout": Terminal(self, "out"),
                                     "/dev/stderr": Terminal(self, "err"), "/dev/tty": Terminal(self, "out")}
        if path in specials:
            return specials[path]
        fs = self.fs
        if not append or not fs.exists(path):
            fs.write(path, "")
        else:
            fs.write(path, "", append=True)
        return FileSink(fs, path)
