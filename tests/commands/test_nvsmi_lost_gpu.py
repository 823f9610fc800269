"""A GPU that fell off the bus (Xid 79) reads the same in every nvidia-smi format: its handle error in
its place, the other GPUs after it, exit status 15."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from emulator.cluster.faults import apply_fault
from tests.support import golden, on


@pytest.fixture
def lost():
    s = on("node02")
    apply_fault(s.cluster, "xid", {"code": 79, "node": "node02", "gpu": 6})
    return s


def _error(s, lower: bool = False) -> str:
    bus = s.cluster.nodes["node02"].gpus[6].pci_bus_id[4:]
    return f"Unable to determine the device handle for {'gpu ' if lower else 'GPU'}{bus}: Unknown Error"


def test_xml_log_of_the_lost_gpu_alone_matches_golden(lost):
    out, status = lost.execute("nvidia-smi -q -x -i 6")
    assert status == 15
    golden("nvidia-smi_q_x_lost_gpu.xml", out)


def test_xml_log_puts_the_error_in_place_and_keeps_the_other_gpus(lost):
    out, status = lost.execute("nvidia-smi -q -x")
    assert status == 15
    lines = out.splitlines()
    assert lines.count(_error(lost)) == 1
    assert lines[lines.index(_error(lost)) + 1] == '\t<gpu id="00000000:DF:00.0">'
    document = ET.fromstring("\n".join(line for line in lines if line != _error(lost)))
    assert document.findtext("attached_gpus") == "8"
    ids = [gpu.get("id") for gpu in document.findall("gpu")]
    text, _ = lost.execute("nvidia-smi -q")
    assert ids == [line[4:] for line in text.splitlines() if line.startswith("GPU 0")]
    assert len(ids) == 7


def test_every_format_names_the_same_lost_gpu_and_exits_15(lost):
    gpus = lost.cluster.nodes["node02"].gpus
    for line, error in (("nvidia-smi", _error(lost)), ("nvidia-smi -q", _error(lost)),
                        ("nvidia-smi -q -d PERFORMANCE", _error(lost)), ("nvidia-smi -L", _error(lost, True)),
                        ("nvidia-smi --query-gpu=index,uuid --format=csv,noheader", _error(lost))):
        out, status = lost.execute(line)
        assert status == 15 and out.splitlines().count(error) == 1, line
    listed = lost.execute("nvidia-smi --query-gpu=uuid --format=csv,noheader")[0].splitlines()
    assert [u for u in listed if u.startswith("GPU-")] == [g.uuid for g in gpus if g.present]


def test_the_other_gpus_alone_still_answer(lost):
    out, status = lost.execute("nvidia-smi -q -x -i 0,7")
    assert status == 0 and "Unable" not in out and out.count("<gpu id=") == 2
