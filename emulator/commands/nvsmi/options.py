"""nvidia-smi's top-level flags: the declared table, and the parser that reads argv against it.

nvidia-smi reads its own argv: ``-i 0``, ``--id=0`` and ``--id 0`` mean the
same, ``-l`` and ``-lms`` take an optional interval, and a word it does not
know is refused in its own words (exit 2). :data:`FLAGS` declares every
flag it takes: :data:`LISTED`, those its help copy documents, and
:data:`ABRIDGED`, those the real help documents in passages the recorded copy
leaves out. :func:`parse_options` reads argv against that one table.
"""

from __future__ import annotations

from typing import Any

from emulator.commands.kit.spec import Flag
from emulator.commands.nvsmi.modify import MODIFIERS, REFUSALS
from emulator.commands.nvsmi.targets import BAD_COMBINATION, BadArgs

#: The flags ``nvidia-smi -h`` documents.
LISTED = (
    Flag("-h", "--help", "", "print usage information and exit"),
    Flag("-L", "--list-gpus", "", "display a list of GPUs connected to the system"),
    Flag("-i", "--id", "ID", "target GPUs by index, UUID or PCI bus id (comma separated)"),
    Flag("-q", "--query", "", "display GPU info"),
    Flag("-x", "--xml-format", "", "with -q, produce XML output"),
    Flag("-d", "--display", "TYPES", "with -q, display only these sections (MEMORY,ECC,...)"),
    Flag("-l", "--loop", "SEC", "probe at this interval in seconds (default 5) until Ctrl+C"),
    Flag("-lms", "--loop-ms", "MS", "probe at this interval in milliseconds until Ctrl+C"),
    Flag("", "--query-gpu", "FIELDS", "the GPU properties to print as CSV (needs --format)"),
    Flag("", "--help-query-gpu", "", "list the --query-gpu fields"),
    Flag("", "--format", "csv[,noheader][,nounits]", "the format of a selective query"),
)
#: The flags the real help documents where the recorded copy is abridged: two more selective
#: queries, and the device modification options.
ABRIDGED = (
    Flag("", "--query-compute-apps", "FIELDS", "the compute processes' properties to print as CSV"),
    Flag("", "--query-remapped-rows", "FIELDS", "the remapped rows' properties to print as CSV"),
    Flag("", "--help-query-remapped-rows", "", "list the --query-remapped-rows fields"),
    *(flag for flag, _ in MODIFIERS),
)
#: Every top-level flag nvidia-smi accepts.
FLAGS = LISTED + ABRIDGED
#: Words nvidia-smi takes that its help does not list, and the flag each means.
UNLISTED = {"-a": "--query"}
_BY_STRING = {s: flag for flag in FLAGS for s in flag.strings()}
#: Options that only read (by long name): the summary, -L, -q and the CSV queries.
READ_ONLY = frozenset({"--list-gpus", "--query", "--xml-format", "--id", "--display", "--query-gpu",
                       "--query-compute-apps", "--query-remapped-rows", "--format"})


def lookup(word: str) -> Flag | None:
    """The declared flag ``word`` spells, if any."""
    return _BY_STRING.get(UNLISTED.get(word, word))


def unknown_option(option: str) -> BadArgs:
    return BadArgs(f"ERROR: Option {option} is not recognized. Please run 'nvidia-smi -h'.\n")


class Cursor:
    """A cursor over argv that understands ``-x V``, ``--long=V`` and ``--long V``."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.pos = 0

    def more(self) -> bool:
        return self.pos < len(self.argv)

    def take(self) -> str:
        word = self.argv[self.pos]
        self.pos += 1
        return word

    def value(self, inline: str | None) -> str:
        if inline is not None:
            return inline
        if not self.more():
            raise BadArgs(BAD_COMBINATION)
        return self.take()

    def optional_value(self, inline: str | None) -> str | None:
        if inline is not None:
            return inline
        if self.more() and self.argv[self.pos].isdecimal():
            return self.take()
        return None


def split_inline(word: str) -> tuple[str, str | None]:
    """``--long=V`` → (``--long``, ``V``); any other word stands alone."""
    if word.startswith("--") and "=" in word:
        name, val = word.split("=", 1)
        return name, val
    return word, None


def parse_options(argv: list[str]) -> dict[str, Any]:
    """The options of a top-level run, keyed by long name without dashes.

    A help flag ends the parse (``{"help": "help-query-gpu"}``), as nvidia-smi
    prints the help before it reads further; a modification flag is kept as
    ``set`` (its long name) and ``set-value``; ``-l``/``-lms`` as ``loop`` in seconds.
    """
    opts: dict[str, Any] = {}
    cur = Cursor(argv)
    while cur.more():
        word, inline = split_inline(cur.take())
        flag = lookup(word)
        if flag is None:
            raise unknown_option(word)
        key = flag.long[2:]
        if key.startswith("help"):
            return {"help": key}
        if flag.long in REFUSALS:
            opts["set"] = flag.long
            if flag.value:
                opts["set-value"] = cur.value(inline)
        elif key == "loop":
            val = cur.optional_value(inline)
            opts["loop"] = float(val) if val else 5.0
        elif key == "loop-ms":
            val = cur.optional_value(inline)
            opts["loop"] = (float(val) if val else 5000.0) / 1000.0
        elif flag.value:
            opts[key] = cur.value(inline)
        else:
            opts[key] = True
    return opts


def check_combination(opts: dict[str, Any]) -> None:
    """Refuse what nvidia-smi refuses to combine: -L with queries, a selective query without --format..."""
    if opts.get("list-gpus") and (opts.get("query") or "query-gpu" in opts):
        raise BadArgs(BAD_COMBINATION)
    selective = sum(k in opts for k in ("query-gpu", "query-compute-apps", "query-remapped-rows"))
    if selective > 1 or ("format" in opts) != bool(selective) or (opts.get("query") and selective):
        raise BadArgs(BAD_COMBINATION)
    if "display" in opts and (not opts.get("query") or opts.get("xml-format")):
        raise BadArgs(BAD_COMBINATION)
    if opts.get("xml-format") and not opts.get("query"):
        raise BadArgs(BAD_COMBINATION)


def reads_only_words(words: list[str]) -> bool:
    """The summary, -L, -q and the CSV queries, ``topo -m`` and ``topo -p2p``; never a loop, a setter or a monitor."""
    if words and words[0] == "topo":
        return words[1:] in (["-m"], ["--matrix"]) or (
            len(words) == 3 and words[1] in ("-p2p", "--p2pstatus"))
    value_next = False
    for word in words:
        if value_next:
            value_next = False
            continue
        flag = lookup(word.split("=", 1)[0])
        if flag is None or flag.long not in READ_ONLY:
            return False
        value_next = bool(flag.value) and "=" not in word
    return True
