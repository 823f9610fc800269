"""Wait until a freshly launched Chromium has finished its own start-up work, before a timed load.

A new Chromium profile spends its first seconds on itself: Chromium 156
preloads its omnibox popup, a WebUI page (``chrome://omnibox-popup.top-chrome/``),
in a renderer of its own, about 0.5 to 3 s of CPU on this 2-core machine. A
load timed at once would share the cores with it, which a reader's browser,
started long before they follow a link, does not; and how much of it
overlaps the timed load varies from one launch to the next. So each timed
cold load waits until the browser's processes have been quiet for a moment.

Quiet is read from ``/proc`` (Linux): the CPU time of the browser process,
found by its ``--user-data-dir``, and of all its descendants.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

#: The browser counts as settled when its processes used less CPU than this share of one core ...
QUIET_SHARE = 0.05
#: ... over a window this long,
WINDOW_S = 0.5
#: and a browser that never settles is used anyway after this long.
LIMIT_S = 15.0

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, int]]:
    """pid → (parent pid, user + system CPU ticks) of every process that can be read."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        found[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    return found


def _browser_pid(profile: Path) -> int | None:
    """The pid of the browser process that runs ``profile`` (its ``--user-data-dir``), if any."""
    wanted = f"--user-data-dir={profile}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if wanted in argv and not any(arg.startswith(b"--type=") for arg in argv):
            return int(entry.name)
    return None


def _cpu_ticks(root: int) -> int:
    """CPU ticks used so far by ``root`` and every process below it."""
    processes = _processes()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += processes.get(pid, (0, 0))[1]
        todo += children.get(pid, [])
    return total


def settle(profile: Path) -> float:
    """Wait until the browser of ``profile`` is quiet; the seconds waited (0 where /proc cannot tell)."""
    root = _browser_pid(profile)
    if root is None:
        return 0.0
    start = time.monotonic()
    before = _cpu_ticks(root)
    while time.monotonic() - start < LIMIT_S:
        time.sleep(WINDOW_S)
        now = _cpu_ticks(root)
        if (now - before) / TICKS_PER_S < QUIET_SHARE * WINDOW_S:
            break
        before = now
    return time.monotonic() - start
