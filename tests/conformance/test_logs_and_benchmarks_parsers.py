"""Kernel Xid lines, nccl-tests tables and the BMC event log, read the way gpud, harnesses and IPMI tooling read them."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from tests.conformance import parsers
from tests.conformance.support import on, together, truth


@pytest.mark.parametrize("seed", range(4))
def test_gpud_rule_finds_the_injected_xid_on_the_gpu_nvidia_smi_names(seed: int) -> None:
    s = on(None, "diagnostic-snapshot", seed)
    t = truth(s, "xid")
    s.execute(f"ssh {t['node']}")
    dmesg, iso = together(s, "dmesg", "dmesg --time-format iso")
    found = parsers.xids(dmesg)
    assert int(t["xid"]) in {code for code, _, _ in found}
    bus = t["bus_id"].lower()  # 00000000:1b:00.0 → the kernel's 0000:1b:00
    assert {dev for _, dev, _ in found} == {bus[4:-2]}
    assert all(parsers.DMESG_TIME.match(line) for _, _, line in found)
    stamped = [line for line in iso.splitlines() if parsers.XID.search(line)]
    first = datetime.strptime(stamped[0].split(",")[0], "%Y-%m-%dT%H:%M:%S")
    assert first.strftime("%Y-%m-%dT%H:%M:%SZ") == t["time"]


def test_gpud_rule_finds_no_xid_on_a_healthy_node() -> None:
    out, _ = on("node01").execute("dmesg")
    assert parsers.xids(out) == []


def test_dmesg_ctime_and_journal_carry_the_same_xid_lines() -> None:
    s = on(None, "diagnostic-snapshot", 0)
    t = truth(s, "xid")
    s.execute(f"ssh {t['node']}")
    ctime, journal = together(s, "dmesg -T", "journalctl -k")
    ctime_xids = [(c, d) for c, d, line in parsers.xids(ctime) if parsers.DMESG_CTIME.match(line)]
    journal_xids = [(c, d) for c, d, _ in parsers.xids(journal)]
    assert ctime_xids and ctime_xids == journal_xids


def test_nccl_tests_rows_and_average_parse_like_a_benchmark_harness() -> None:
    out, status = on(None).execute("srun -N2 --gpus-per-node=8 all_reduce_perf -b 8 -e 1G -f 2 -g 1")
    assert status == 0, out[-400:]
    rows, avg = parsers.nccl_tests(out)
    assert [r.size for r in rows] == [8 * 2 ** n for n in range(28)]
    ranks = len([line for line in out.splitlines() if line.startswith("#  Rank")])
    factor = 2 * (ranks - 1) / ranks
    for r in rows:
        assert r.count == r.size // 4 and r.dtype == "float" and r.redop == "sum" and r.root == -1
        for time_us, algbw, busbw in ((r.oop_time_us, r.oop_algbw, r.oop_busbw), (r.ip_time_us, r.ip_algbw, r.ip_busbw)):
            assert algbw == pytest.approx(r.size / time_us / 1e3, abs=0.011, rel=0.01)
            assert busbw == pytest.approx(algbw * factor, abs=0.011, rel=0.001)
        assert r.oop_wrong == r.ip_wrong == "0"
    assert avg is not None
    mean = sum(r.oop_busbw + r.ip_busbw for r in rows) / (2 * len(rows))
    assert avg == pytest.approx(mean, abs=0.01)
    assert "# Out of bounds values : 0 OK" in out


@pytest.mark.parametrize("seed", range(4))
def test_sel_elist_parses_into_six_fields_with_hex_ids(seed: int) -> None:
    s = on(None, "out-of-band", seed)
    node = truth(s, "host-down")["node"]
    out, status = s.execute(f"ipmitool -I lanplus -H {node}-bmc -U admin -P admin sel elist")
    assert status == 0, out
    records = parsers.sel_elist(out)
    assert [r.record_id for r in records] == list(range(1, len(records) + 1))
    stamps = [datetime.strptime(f"{r.date} {r.time}", "%m/%d/%Y %H:%M:%S") for r in records]
    assert stamps == sorted(stamps)
    assert records[-1].sensor.startswith("System Event") or any(
        r.sensor.split()[0] in ("Watchdog2", "Processor", "Power", "OS", "Critical") for r in records[3:])


#: Telegraf ipmi_sensor (metric_version 2) reading ``ipmitool sdr elist``, then the reading inside the description.
SDR_ELIST = re.compile(r"^(?P<name>[^|]*)\|[^|]+\|(?P<status_code>[^|]*)\|(?P<entity_id>[^|]*)\|(?:(?P<description>[^|]+))?")
SDR_READING = re.compile(r"^(?P<value>[0-9.]+)\s(?P<unit>.*)|(?P<status>.+)|^$")


def test_sdr_elist_parses_like_telegraf_with_numeric_readings() -> None:
    out, status = on("node01").execute("ipmitool sdr elist")
    assert status == 0
    readings = {}
    for line in out.splitlines():
        m = SDR_ELIST.match(line)
        assert m, line
        assert m["status_code"].strip() in ("ok", "ns", "nc", "cr", "nr", "lnc", "lcr", "lnr", "unc", "ucr", "unr")
        assert re.fullmatch(r"\d+\.\d+", m["entity_id"].strip()), line
        desc = SDR_READING.match((m["description"] or "").strip())
        assert desc is not None
        if desc["value"]:
            readings[m["name"].strip()] = (float(desc["value"]), desc["unit"])
    assert readings["Inlet Temp"][1] == "degrees C" and any(u == "Watts" for _, u in readings.values())


def test_sensor_table_has_ten_pipe_separated_columns() -> None:
    out, status = on("node01").execute("ipmitool sensor")
    assert status == 0
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")]
        assert len(cells) == 10, line
        assert cells[1] == "na" or re.fullmatch(r"-?\d+\.\d{3}|0x[0-9a-f]+", cells[1]), line


def test_gpud_dmesg_invocation_runs_and_finds_the_xid() -> None:
    s = on(None, "diagnostic-snapshot", 0)
    t = truth(s, "xid")
    out, status = s.execute(f"ssh {t['node']} dmesg --ctime --nopager --buffer-size 163920")
    assert status == 0
    assert int(t["xid"]) in {code for code, _, line in parsers.xids(out) if parsers.DMESG_CTIME.match(line)}


def test_journal_json_lines_carry_the_kernel_xid_at_the_same_instant_as_dmesg() -> None:
    s = on(None, "diagnostic-snapshot", 0)
    t = truth(s, "xid")
    s.execute(f"ssh {t['node']}")
    journal, iso = together(s, "journalctl -k -o json --no-pager", "dmesg --time-format iso")
    entries = [json.loads(line) for line in journal.splitlines()]
    assert all(isinstance(v, str) for e in entries for v in e.values())
    xid_entries = [e for e in entries if parsers.XID.search(e["MESSAGE"])]
    assert xid_entries and {e["_TRANSPORT"] for e in xid_entries} == {"kernel"}
    first = datetime.fromtimestamp(int(xid_entries[0]["__REALTIME_TIMESTAMP"]) / 1e6, UTC)
    iso_first = next(line for line in iso.splitlines() if parsers.XID.search(line))
    assert first.strftime("%Y-%m-%dT%H:%M:%S,%f") == iso_first.split("+")[0]
    assert int(xid_entries[0]["PRIORITY"]) <= 3 and xid_entries[0]["_HOSTNAME"] == t["node"]


def test_nccl_tests_across_a_port_with_symbol_errors_parse_and_report_less_bandwidth() -> None:
    # Beside the job: 1 GiB buffers fit in the memory its processes leave, 4 GiB would not.
    line = "srun --jobid=48213 --overlap -N2 -w node01,node02 --gpus-per-node=8 all_reduce_perf -b 256M -e 1G -f 2 -g 1"
    s = on(None, "multi-node-slowdown", 0)
    assert truth(s, "symbol-errors")["node"] == "node01"
    rows, avg = parsers.nccl_tests(s.execute(line)[0])
    base_rows, base_avg = parsers.nccl_tests(on(None).execute(line)[0])
    assert len(rows) == len(base_rows) == 3 and avg is not None and base_avg is not None
    assert avg < base_avg
