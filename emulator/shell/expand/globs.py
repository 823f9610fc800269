"""Globbing a pattern that may be relative to the working directory: matched as an absolute path, printed as typed."""

from __future__ import annotations

from collections.abc import Callable

from emulator.vfs import normpath


def glob_relative(pattern: str, cwd: str, matcher: Callable[[str], list[str]]) -> list[str]:
    """Glob a pattern that may be relative: match absolutely, then print as typed."""
    absolute = normpath(cwd, pattern) if not pattern.startswith("/") else pattern
    if pattern.startswith("/"):
        return matcher(absolute)
    prefix = cwd.rstrip("/") + "/"
    found = matcher(absolute)
    lead = ""
    stripped = pattern
    while stripped.startswith("./"):
        lead += "./"
        stripped = stripped[2:]
    if stripped.startswith("../"):
        return found  # rare; print absolute paths
    return [lead + f[len(prefix):] if f.startswith(prefix) else f for f in found]
