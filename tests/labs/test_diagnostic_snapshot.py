"""diagnostic-snapshot: every tool tells one memory error, and the finding asks for the burst's primary Xid.

Typed through the shell as a learner types: a contained ECC error (Xid 94) shows in the ECC counters,
the row remapper, ``--query-gpu=remapped_rows.*`` and ``dcgmi diag``; a double-bit error's burst
(48, 63, 94) is milliseconds apart in the kernel log, and ``submit`` takes its first Xid and explains
the others.
"""

from __future__ import annotations

import re

from emulator.session import Session
from tests.support import run

LAB = "diagnostic-snapshot"


def _failed(session: Session) -> tuple[str, str]:
    truth = session.cluster.truth()
    return truth["node"], truth["gpu"]


def test_a_contained_ecc_error_shows_in_every_tool() -> None:
    session = Session(lab=LAB, seed=2)
    node, gpu = _failed(session)
    kernel = run(session, f'ssh {node} "dmesg | grep -i xid"')
    assert re.search(r"\): 94, pid='<unknown>', name=<unknown>, Contained: SM", kernel)
    assert ": 63, " in kernel and "marked for remapping" in kernel
    ecc = run(session, f"ssh {node} nvidia-smi -q -i {gpu} -d ECC,ROW_REMAPPER")
    assert re.findall(r"DRAM Uncorrectable\s+: (\d+)", ecc) == ["1", "1"]
    assert re.search(r"Uncorrectable Error\s+: 1\n\s+Pending\s+: Yes", ecc)
    rows = run(session, f"ssh {node} nvidia-smi -i {gpu} --query-gpu=remapped_rows.uncorrectable,"
                        "remapped_rows.pending --format=csv,noheader")
    assert rows.strip() == "1, Yes"
    out, _ = session.execute(f"ssh {node} dcgmi diag -r 1")
    assert re.search(r"Page Retirement/Row Remap \| Fail", out)
    assert f"GPU {gpu} has uncorrectable memory errors and row" in out
    healthy = Session(lab=LAB, seed=2, faults=False)
    assert re.findall(r"DRAM Uncorrectable\s+: (\d+)", run(
        healthy, f"ssh {node} nvidia-smi -q -i {gpu} -d ECC")) == ["0", "0"]


def test_a_contained_error_is_solved_by_its_xid_and_advises_restart_then_reset() -> None:
    session = Session(lab=LAB, seed=2)
    node, gpu = _failed(session)
    out = run(session, f"submit node={node} gpu={gpu} xid=94")
    said = " ".join(out.split())
    assert "Correct" in said and "Xid 94 is the primary error" in said
    assert "application can restart" in said and f"nvidia-smi -r -i {gpu}" in said


def test_a_double_bit_error_burst_is_milliseconds_apart_in_order() -> None:
    session = Session(lab=LAB, seed=0)
    node, _ = _failed(session)
    lines = run(session, f'ssh {node} "dmesg | grep -i xid"').splitlines()
    stamps = [(float(m.group(1)), int(m.group(2))) for m in
              (re.match(r"\[\s*(\d+\.\d+)\] NVRM: Xid \(PCI:[0-9a-f:]+\): (\d+),", line) for line in lines) if m]
    assert [code for _, code in stamps[:3]] == [48, 63, 94]
    gaps = [b - a for (a, _), (b, _) in zip(stamps, stamps[1:])]
    assert all(0.001 <= gap <= 0.05 for gap in gaps), gaps


def test_the_primary_xid_is_accepted_and_a_follow_on_xid_is_explained() -> None:
    session = Session(lab=LAB, seed=0)
    node, gpu = _failed(session)
    wrong, _ = session.execute(f"submit node={node} gpu={gpu} xid=94")
    said = " ".join(wrong.split())
    assert "Not yet" in said and "48 is the primary error, and 63 and 94 are its consequences" in said
    right = " ".join(run(session, f"submit node={node} gpu={gpu} xid=48").split())
    assert "Correct" in right and "Xid 48 is the primary error" in right and "Xid 63 is the row remap" in right
