"""du: the space files and directories use, in 4 KiB blocks."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from emulator.commands.kit.command import Context, Outcome
from emulator.commands.kit.coreio import SECTION, CoreutilsErrors, Intermixed, join_lines
from emulator.commands.kit.spec import ArgumentParser
from emulator.commands.kit.units import coreutils_size
from emulator.vfs import Dir, File, FsError


class Du(CoreutilsErrors, Intermixed):
    name = "du"
    summary = "estimate file space usage (-s -h -a -c -d N)"
    section = SECTION
    add_help_flag = False  # -h means --human-readable

    def configure(self, parser: ArgumentParser) -> None:
        parser.add_argument("--help", action="help", help="display this help and exit")
        parser.add_argument("-s", "--summarize", action="store_true", help="display only a total for each argument")
        parser.add_argument("-h", "--human-readable", action="store_true", help="print sizes like 1K 234M 2G")
        parser.add_argument("-a", "--all", action="store_true", help="write counts for all files, not just directories")
        parser.add_argument("-c", "--total", action="store_true", help="produce a grand total")
        parser.add_argument("-d", "--max-depth", type=int, metavar="N", help="print totals only N levels deep")
        parser.add_argument("paths", nargs="*", metavar="FILE", help="files or directories (default: .)")

    def execute(self, ctx: Context, args: argparse.Namespace) -> Outcome:
        fs = ctx.fs
        depth_limit = 0 if args.summarize else args.max_depth
        status = 0
        grand = 0
        lines: list[str] = []

        def show(kib: int, path: str) -> None:
            size = coreutils_size(kib * 1024) if args.human_readable else str(kib)
            lines.append(f"{size}\t{path}")

        for root in args.paths or ["."]:
            try:
                node = fs.lookup(root)
            except FsError as exc:
                ctx.err(f"du: cannot access '{root}': {exc.strerror}\n")
                status = 1
                continue
            grand += self._walk(node, root.rstrip("/") or "/", 0, depth_limit, args.all, show)
        if args.total:
            show(grand, "total")
        ctx.out(join_lines(lines))
        return status

    def _walk(self, node: File | Dir, path: str, depth: int, limit: int | None, every: bool,
              show: Callable[[int, str], None]) -> int:
        """KiB used under ``node`` (4 KiB blocks), printing directories (and files with -a) within the depth."""
        within = limit is None or depth <= limit
        if isinstance(node, File):
            kib = math.ceil(node.size() / 4096) * 4
            if (every or depth == 0) and within:
                show(kib, path)
            return kib
        total = 4
        for name, child in sorted(node.entries().items()):
            total += self._walk(child, f"{path}/{name}" if path != "/" else f"/{name}", depth + 1, limit, every, show)
        if within:
            show(total, path)
        return total
