"""Completion codes: a solved lab run written as one short token that a replay can check.

A code holds the build of the emulator that made it, the lab, the seed, the
learner's name (optional) and the *proof*: the lines of the lab run that can
change state, ending with the ``submit`` that solved it. Lines that only read
(``nvidia-smi``, ``squeue``...) are left out; each run of them is kept as a
count, so that a replay spends the same simulated time. Verifying a code
(:mod:`emulator.completion`) replays the proof on a fresh session of that lab
and seed and reads the progress it rebuilds: solved or not, hints shown, the
reference procedure printed. Nothing in the code is trusted but the lines.

The token: ``CL1-`` then Crockford base32 (digits and capitals without
I, L, O, U; read case-blind, with I and L as 1 and O as 0) of the raw-deflated
JSON record followed by its CRC-32. A CRC-32 catches every change confined to
32 consecutive bits, so any one mistyped character (5 bits) is caught.

The build is ``VERSION+HASH``: the emulator's version and 8 hex digits of
the CRC-32 of the lab's file (of an on-call shift, ``shift``: of the files
of the labs it draws its incidents from, :mod:`emulator.labs.shift`). A code verifies on a build with the same
version and the same file of that lab; on another it is refused naming both.
So editing one lab retires that lab's codes only, and a change to the
emulator that could alter what a replay judges must raise the version.

Per-student seeds (:func:`student_seed`) are derived from the workshop's name
and the student's: FNV-1a (32-bit) of the UTF-8 text ``workshop\\nstudent``
(each trimmed, inner spaces collapsed, lower-cased), taken modulo 9000, plus
1000, so every seed has four digits. The instructor page computes the same.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from emulator import __version__
from emulator.labs.loader import _lab_files
from emulator.labs.progress import Progress
from emulator.labs.shift import KINDS, SHIFT

#: The code's prefix: the format's name and version.
PREFIX = "CL1-"
#: Crockford's base32 alphabet.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: How typed characters read: case-blind, I and L as 1, O as 0.
_READ = {**{c: i for i, c in enumerate(ALPHABET)}, "I": 1, "L": 1, "O": 0}
#: Longest code accepted (characters after the prefix), and longest student name.
CODE_LIMIT = 4_000
NAME_LIMIT = 64

#: One line of a proof: a line's text and the steps it ran before an interrupt (None: whole), or a count of
#: read-only lines left out.
ProofEntry = tuple[str, int | None] | int


class CodeError(ValueError):
    """A token that is not a readable completion code; the message says why, as ``verify`` prints it."""


@dataclass(frozen=True)
class Completion:
    """What a code says: who solved which lab at which seed, on which build, with which lines."""

    build: str
    lab: str
    seed: int
    student: str
    proof: tuple[ProofEntry, ...]


@cache
def build_id(lab: str) -> str:
    """``VERSION+HASH``: the emulator's version and the CRC-32 of lab ``lab``'s file, in 8 hex digits
    (zlib's, which is built in everywhere, where hashlib would cost the browser an import)."""
    files = dict(_lab_files())
    # An on-call shift is built from the files of the labs it draws from.
    text = "".join(files.get(f"labs/{kind}.toml", "") for kind in (KINDS if lab == SHIFT else (lab,)))
    return f"{__version__}+{zlib.crc32(text.encode()):08x}"


def completion_code(state: Progress, student: str = "") -> str:
    """The code of a solved lab run (its :attr:`~emulator.labs.progress.Progress.proof`)."""
    return encode(Completion(build_id(state.lab), state.lab, state.seed, student, state.proof))


def clean_name(name: str) -> str:
    """A student's name as codes and seeds read it: trimmed, inner spaces collapsed."""
    return " ".join(name.split())


def student_seed(workshop: str, student: str) -> int:
    """The seed of ``student`` in ``workshop``: FNV-1a 32 of ``workshop\\nstudent`` (normalised), mod 9000, + 1000."""
    text = f"{clean_name(workshop).lower()}\n{clean_name(student).lower()}"
    value = 0x811C9DC5
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return 1000 + value % 9000


# -- the proof ---------------------------------------------------------------------------------------------------
def proof(lines: Sequence[tuple[str, int | None]], read_only: Callable[[str], bool],
          hints: int, solutions: bool) -> tuple[ProofEntry, ...]:
    """The proof of a solve from the run's lines (the solving line last): read-only lines become counts.
    The hints shown and whether the procedure was printed are stated first (``hint N``, ``solutions --show``),
    so the replay counts them even when they were asked before the run began."""
    entries: list[ProofEntry] = []
    if hints:
        entries.append((f"hint {hints}", None))
    if solutions:
        entries.append(("solutions --show", None))
    for index, (line, stop) in enumerate(lines):
        last = index == len(lines) - 1
        if stop is None and not last and read_only(line):
            if entries and isinstance(entries[-1], int):
                entries[-1] += 1
            else:
                entries.append(1)
        else:
            entries.append((line, stop))
    return tuple(entries)


def replay_lines(entries: Sequence[ProofEntry], filler: str = "true") -> list[tuple[str, int | None]]:
    """The lines a replay types: each count of read-only lines as that many ``filler`` lines."""
    lines: list[tuple[str, int | None]] = []
    for entry in entries:
        lines += [(filler, None)] * entry if isinstance(entry, int) else [entry]
    return lines


# -- the token ---------------------------------------------------------------------------------------------------
def encode(completion: Completion) -> str:
    """The code of ``completion``."""
    proof_json = [entry if isinstance(entry, int) else entry[0] if entry[1] is None else list(entry)
                  for entry in completion.proof]
    record = [completion.build, completion.lab, completion.seed, clean_name(completion.student)[:NAME_LIMIT],
              proof_json]
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    payload = packer.compress(text) + packer.flush()
    return PREFIX + _base32(payload + zlib.crc32(payload).to_bytes(4, "big"))


def decode(code: str) -> Completion:
    """The completion a code holds (raises :class:`CodeError` saying why it cannot be read)."""
    token = "".join(code.split()).upper()
    if not token.startswith(PREFIX):
        raise CodeError(f"not a completion code (they start with {PREFIX})")
    body = token[len(PREFIX):].replace("-", "")
    if len(body) > CODE_LIMIT:
        raise CodeError(f"longer than any completion code ({len(body)} characters)")
    bad = next((c for c in body if c not in _READ), None)
    if bad is not None:
        raise CodeError(f"'{bad}' is not a code character: the code was mistyped")
    raw = _unbase32(body)
    if raw is None or 0 < len(raw) < 5:
        raise CodeError("the code is cut short: copy it whole")
    payload, check = raw[:-4], raw[-4:]
    if not raw or zlib.crc32(payload).to_bytes(4, "big") != check:
        raise CodeError("checksum mismatch: a character was changed, left out or added")
    try:
        record = json.loads(zlib.decompressobj(-15).decompress(payload, 1 << 20))
    except (zlib.error, ValueError):
        raise CodeError("unreadable contents") from None
    return _completion(record)


def _completion(record: Any) -> Completion:
    """Check the decoded record's shape."""
    if not (isinstance(record, list) and len(record) == 5):
        raise CodeError("unreadable contents")
    build, lab, seed, student, entries = record
    if not (isinstance(build, str) and isinstance(lab, str) and isinstance(seed, int) and seed >= 0
            and isinstance(student, str) and isinstance(entries, list)):
        raise CodeError("unreadable contents")
    parsed: list[ProofEntry] = []
    for entry in entries:
        if isinstance(entry, int) and entry > 0:
            parsed.append(entry)
        elif isinstance(entry, str):
            parsed.append((entry, None))
        elif (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
              and isinstance(entry[1], int)):
            parsed.append((entry[0], entry[1]))
        else:
            raise CodeError("unreadable contents")
    return Completion(build, lab, seed, student, tuple(parsed))


def _base32(data: bytes) -> str:
    """Crockford base32 of ``data``: 5 bits a character, the last padded with zero bits."""
    number, bits = int.from_bytes(data, "big"), len(data) * 8
    chars = -(-bits // 5)
    number <<= chars * 5 - bits
    return "".join(ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(chars)))


def _unbase32(text: str) -> bytes | None:
    """The bytes of :func:`_base32`'s text; None when its length cannot come from whole bytes, empty bytes
    when its padding bits are not zero (a changed last character)."""
    count = len(text) * 5 // 8
    pad = len(text) * 5 - count * 8
    if pad >= 5:
        return None
    number = 0
    for char in text:
        number = number << 5 | _READ[char]
    if number & ((1 << pad) - 1):
        return b""
    return (number >> pad).to_bytes(count, "big")
