"""Parsers written the way monitoring agents and exporters read these tools' output.

Each function reimplements the parsing logic of a real consumer (named in its
docstring) from its published behaviour, so a test can feed our output to it
and fail where a real deployment would.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

# -- nvidia-smi --query-gpu --format=csv -----------------------------------------------------

#: ``name [unit]`` headers, as the nvidia-smi Prometheus exporters split them.
HEADER = re.compile(r"^(?P<name>[^\s\[]+)(?: \[(?P<unit>[^\]]+)\])?$")


def query_gpu_csv(text: str) -> list[dict[str, str]]:
    """Rows keyed by field name, as nvidia_gpu_exporter reads them.

    It reads the CSV with leading spaces trimmed, takes the field name from
    each header (the part before `` [unit]``) and keeps the raw cell.
    """
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    names = []
    for cell in rows[0]:
        m = HEADER.match(cell)
        assert m, f"header cell {cell!r} is not 'name' or 'name [unit]'"
        names.append(m["name"])
    return [dict(zip(names, row, strict=True)) for row in rows[1:]]


def header_units(text: str) -> dict[str, str | None]:
    first = next(csv.reader(io.StringIO(text), skipinitialspace=True))
    return {m["name"]: m["unit"] for m in (HEADER.match(c) for c in first) if m}


def csv_number(cell: str) -> float | None:
    """The exporter's value transform: N/A is missing, hex is an integer, a unit suffix is dropped."""
    if cell in ("[N/A]", "N/A", "[Not Supported]"):
        return None
    if cell.startswith("0x"):
        return float(int(cell, 16))
    if cell in ("Enabled", "Active", "Yes", "On"):
        return 1.0
    if cell in ("Disabled", "Not Active", "No", "Off"):
        return 0.0
    if cell.startswith("P") and cell[1:].isdigit():
        return float(cell[1:])
    return float(cell.split(" ")[0])


# -- nvidia-smi -q -x -------------------------------------------------------------------------


def smi_xml(text: str) -> ET.Element:
    """The ``<nvidia_smi_log>`` root; the DOCTYPE must not stop ElementTree."""
    root = ET.fromstring(text)
    assert root.tag == "nvidia_smi_log"
    return root


def xml_number(elem: ET.Element | None, path: str) -> float:
    """``<power_draw>395.99 W</power_draw>`` → 395.99, as exporters read a leaf's text."""
    assert elem is not None
    node = elem.find(path)
    assert node is not None and node.text is not None, path
    return float(node.text.split()[0])


# -- ibstat ------------------------------------------------------------------------------------


@dataclass
class IbPort:
    number: int
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class IbCard:
    name: str
    fields: dict[str, str] = field(default_factory=dict)
    ports: list[IbPort] = field(default_factory=list)


def ibstat(text: str) -> list[IbCard]:
    """CA and port records the way gpud's ibstat parser builds them.

    ``CA 'name'`` opens a card; ``Port N:`` opens a port; ``Key: value``
    lines belong to the open port, or to the card before any port.
    Indentation may be tabs or spaces.
    """
    cards: list[IbCard] = []
    port: IbPort | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if m := re.fullmatch(r"CA '([^']+)'", line):
            cards.append(IbCard(m[1]))
            port = None
        elif m := re.fullmatch(r"Port (\d+):", line):
            port = IbPort(int(m[1]))
            cards[-1].ports.append(port)
        else:
            key, sep, value = line.partition(":")
            assert sep, f"ibstat line without a colon: {raw!r}"
            (port.fields if port else cards[-1].fields)[key.strip()] = value.strip()
    return cards


def ibstatus(text: str) -> dict[tuple[str, int], dict[str, str]]:
    """``Infiniband device 'mlx5_0' port 1 status:`` blocks of ``key: value``."""
    blocks: dict[tuple[str, int], dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in text.splitlines():
        if m := re.fullmatch(r"Infiniband device '([^']+)' port (\d+) status:", line):
            current = blocks.setdefault((m[1], int(m[2])), {})
        elif line.strip():
            key, _, value = line.strip().partition(":")
            current[key.strip()] = value.strip()
    return blocks


# -- perfquery ---------------------------------------------------------------------------------

PERFQUERY_LINE = re.compile(r"^(?P<name>\w+):\.+(?P<value>\S+)$")


def perfquery(text: str) -> dict[str, int]:
    """``Name:.....value`` counters, as the InfiniBand exporters read ``perfquery -x``."""
    counters: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = PERFQUERY_LINE.match(line)
        assert m, f"perfquery line not 'Name:....value': {line!r}"
        counters[m["name"]] = int(m["value"], 0)
    return counters


# -- Slurm --------------------------------------------------------------------------------------


def parsable2(text: str, header: bool = True, names: list[str] | None = None) -> list[dict[str, str]]:
    """``sacct --parsable2`` / ``sinfo``/``squeue`` with a ``|`` format: split on ``|``, no trailing one."""
    lines = text.splitlines()
    if header:
        names, lines = lines[0].split("|"), lines[1:]
    assert names is not None
    rows = []
    for line in lines:
        cells = line.split("|")
        assert len(cells) == len(names), f"{line!r} has {len(cells)} cells for {names}"
        rows.append(dict(zip(names, cells, strict=True)))
    return rows


# -- nccl-tests ----------------------------------------------------------------------------------


@dataclass
class NcclRow:
    size: int
    count: int
    dtype: str
    redop: str
    root: int
    oop_time_us: float
    oop_algbw: float
    oop_busbw: float
    oop_wrong: str
    ip_time_us: float
    ip_algbw: float
    ip_busbw: float
    ip_wrong: str


def nccl_tests(text: str) -> tuple[list[NcclRow], float | None]:
    """Result rows and ``# Avg bus bandwidth``, as benchmark harnesses read them.

    A result row is a line not starting with ``#`` that splits into 13
    whitespace-separated cells and starts with an integer size; the average is
    the last word of the ``# Avg bus bandwidth`` line.
    """
    rows: list[NcclRow] = []
    avg = None
    for line in text.splitlines():
        if line.startswith("# Avg bus bandwidth"):
            avg = float(line.split()[-1])
            continue
        cells = line.split()
        if line.startswith("#") or len(cells) != 13 or not cells[0].isdigit():
            continue
        rows.append(NcclRow(int(cells[0]), int(cells[1]), cells[2], cells[3], int(cells[4]), float(cells[5]),
                            float(cells[6]), float(cells[7]), cells[8], float(cells[9]), float(cells[10]),
                            float(cells[11]), cells[12]))
    return rows, avg


# -- dmesg Xid -----------------------------------------------------------------------------------

#: gpud's rule for an Xid in the kernel log, and the PCI device it names.
XID = re.compile(r"NVRM: Xid.*?: (\d+),")
XID_DEVICE = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})\)")
DMESG_TIME = re.compile(r"^\[\s*(\d+\.\d{6})\] ")
DMESG_CTIME = re.compile(r"^\[(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ")


def xids(text: str) -> list[tuple[int, str, str]]:
    """(xid, PCI device, line) for each Xid line."""
    found = []
    for line in text.splitlines():
        m = XID.search(line)
        if m:
            dev = XID_DEVICE.search(line)
            assert dev, f"Xid line without its PCI device: {line!r}"
            found.append((int(m[1]), dev[1].lower(), line))
    return found


# -- ipmitool sel elist ----------------------------------------------------------------------------


@dataclass
class SelRecord:
    record_id: int
    date: str
    time: str
    sensor: str
    event: str
    direction: str


def sel_elist(text: str) -> list[SelRecord]:
    """Pipe-separated SEL records, as the IPMI exporters and log shippers split them.

    The record id is hexadecimal; date is ``MM/DD/YYYY``, time ``HH:MM:SS``.
    """
    records = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        assert len(cells) == 6, f"sel elist line without 6 fields: {line!r}"
        assert re.fullmatch(r"\d\d/\d\d/\d{4}", cells[1]) and re.fullmatch(r"\d\d:\d\d:\d\d", cells[2]), line
        assert cells[5] in ("Asserted", "Deasserted"), line
        records.append(SelRecord(int(cells[0], 16), *cells[1:]))
    return records
