"""dcgmi stats through the shell: the Slurm prolog's job records, the learner's own, DCGM's errors,
and figures that agree with dmesg, nvidia-smi, ps and the fault that was injected."""

from __future__ import annotations

import re

import pytest

from emulator.cluster import lifecycle
from emulator.session import Session
from tests.support import golden, on


def _gpu_box(report: str, index: int) -> str:
    """The ``-v`` box of one GPU."""
    return report.split(f"| GPU ID: {index} ")[1].split("| GPU ID: ")[0]


def _value(box: str, name: str) -> str:
    return re.search(rf"^\| {re.escape(name)}\s*\| (.*?)\s*\|$", box, re.M).group(1)


# -- golden outputs --------------------------------------------------------------------------------

@pytest.mark.parametrize("name,line", [
    ("dcgmi_stats_j.txt", "dcgmi stats -j 48213"),
    ("dcgmi_stats_j_v_gpu0.txt", "dcgmi stats -j 48213 -v | head -46"),
])
def test_job_report_of_the_training_job_matches_golden(name, line):
    out, status = on("node01").execute(line)
    assert status == 0
    golden(name, out)


def test_process_report_matches_golden():
    s = on("node01")
    pid = s.cluster.training.ranks[0].pid
    out, status = s.execute(f"dcgmi stats -p {pid} -v")
    assert status == 0
    golden("dcgmi_stats_p_v.txt", out)


# -- the report agrees with the model and the other tools -------------------------------------------

def test_every_row_is_eighty_columns_wide():
    out, _ = on("node01").execute("dcgmi stats -j 48213 -v")
    rows = [line for line in out.splitlines() if line.startswith(("|", "+"))]
    assert len(rows) > 250 and {len(row) for row in rows} == {80}


def test_an_xid_fault_shows_in_the_job_with_its_time_since_the_start():
    s = Session(lab="diagnostic-snapshot", seed=0)   # Xid 48 on node01 GPU 0
    truth = s.cluster.truth()
    s.execute(f"ssh {truth['node']}")
    box = _gpu_box(s.execute("dcgmi stats -j 48213 -v")[0], int(truth["gpu"]))
    bus = truth["bus_id"][9:11].lower()
    xids = [line for line in s.execute("dmesg")[0].splitlines() if f"Xid (PCI:0000:{bus}:00)" in line]
    assert _value(box, "Critical XID Errors") == str(len(xids)) == "11"
    assert _value(box, "Double Bit ECC Errors") == "1"
    job = next(j for j in s.cluster.slurm.jobs if j.job_id == 48213)
    first = next(e for e in s.cluster.nodes[truth["node"]].hw.kernel_log if f"Xid (PCI:0000:{bus}:00)" in e.text)
    seconds = int(first.offset_s - job.start_s)
    assert _value(box, "XID (Hr:Min:Sec since start)") == f"{seconds // 3600}:{seconds // 60:02d}:{seconds % 60:02d}"
    assert _value(box, "Overall Health") == "Failure"
    other = _gpu_box(s.execute("dcgmi stats -j 48213 -v")[0], 1)
    assert _value(other, "Critical XID Errors") == "0"
    summary = s.execute("dcgmi stats -j 48213")[0]
    assert _value(summary, "Critical XID Errors") == "11" and _value(summary, "End Time") != "Still Running"


def test_a_thermal_slowdown_shows_in_clocks_and_slowdown_time():
    s = Session(lab="gpu-data-path", seed=3)   # node02 GPU 4 held at 1440 MHz by thermal slowdown
    s.execute("ssh node02")
    report = s.execute("dcgmi stats -j 48213 -v")[0]
    hot, cool = _gpu_box(report, 4), _gpu_box(report, 5)
    # Held at 1440 MHz under load; the minimum is the idle clock of the job's start-up (no kernel yet).
    assert _value(hot, "SM Clock (MHz)").endswith("Max: 1440, Min: 345")
    # Its healthy neighbour runs at the 700 W software power cap: below 1980 MHz, far above the hot GPU.
    cool_clock = re.fullmatch(r"Avg: (\d+), Max: (\d+), Min: 345", _value(cool, "SM Clock (MHz)"))
    assert cool_clock is not None and 1700 <= int(cool_clock.group(1)) <= int(cool_clock.group(2)) < 1980
    assert float(_value(hot, "       - Thermal (%)")) > 10
    assert _value(hot, "Overall Health") == "Warning"
    now = int(s.execute("nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -i 4")[0])
    assert 1410 <= now <= 1440


def test_processes_are_the_ranks_nvidia_smi_and_ps_show():
    s = on("node01")
    report = s.execute("dcgmi stats -j 48213 -v")[0]
    for rank in (r for r in s.cluster.training.ranks if r.node == "node01"):
        assert _value(_gpu_box(report, rank.gpu), "PID") == str(rank.pid)
        assert f"{rank.pid} pt_main_thread" in s.execute(f"ps -o pid=,comm= -p {rank.pid}")[0]
    assert _value(s.execute("dcgmi stats -j 48213")[0], "No. of Processes") == "8"


# -- the learner's own records and DCGM's errors -------------------------------------------------------

def test_a_job_recorded_by_hand_runs_from_start_to_stop():
    s = on("node05")
    assert s.execute("dcgmi stats -s sweep1") == ("Successfully started recording stats for sweep1.\n", 0)
    s.execute("sleep 298")
    assert s.execute("dcgmi stats -x sweep1") == ("Successfully stopped recording stats for sweep1.\n", 0)
    out, _ = s.execute("dcgmi stats -j sweep1")
    assert _value(out, "Total Execution Time (sec)") == "302"   # the sleep and two 2 s command lines
    assert s.execute("dcgmi stats -s sweep1") == (
        "Error: Unable to start job for group. Return: This Job Id is in use. Please use another job Id.\n", 230)
    assert s.execute("dcgmi stats -r sweep1") == ("Successfully removed job sweep1.\n", 0)
    assert s.execute("dcgmi stats -j sweep1") == (
        "Error: Unable to retrieve job statistics. Return: No data is available.\n", 242)
    assert s.execute("dcgmi stats -x sweep1") == ("Error: Job sweep1 was not found.\n", 242)


def test_remove_all_drops_the_prolog_records_too():
    s = on("node01")
    assert s.execute("dcgmi stats -a") == ("Successfully removed all jobs.\n", 0)
    assert s.execute("dcgmi stats -j 48213")[1] == 242
    assert s.execute("dcgmi stats -s 48213")[1] == 0


def test_group_and_argument_errors_use_dcgm_wording():
    s = on("node01")
    assert s.execute("dcgmi stats -g 9 -s x") == (
        "Error: Unable to start job for group. Return: The Group is not found.\n", 251)
    assert s.execute("dcgmi stats -g 9 -e") == (
        "Error: Unable to enable process watches for group. Return: The Group is not found.\n", 251)
    assert s.execute("dcgmi stats -g -1 -e") == (
        "Error: Positive value expected, negative value found for arg group.\n", 255)
    assert s.execute("dcgmi stats -p abc")[0].startswith("Error: Couldn't read argument value from string 'abc'")
    assert s.execute("dcgmi stats -p 99999999999")[1] == 255
    assert s.execute('dcgmi stats -s ""') == (
        "Error: Unable to start job for group. Return: Bad parameter passed to function.\n", 255)
    assert s.execute("dcgmi stats -e -j 1")[1] == 255
    assert s.execute("dcgmi stats -d") == ("Process stats watches cannot be disabled at this time.\n", 0)
    assert s.execute("dcgmi stats -j")[1] == 255
    assert "stats -- Used to view process statistics." in s.execute("dcgmi stats --help")[0]


def test_pid_stats_need_watches_and_a_gpu_process():
    s = on("node08")   # no job has run here since it booted
    assert s.execute("dcgmi stats -p 1") == ("Error: Watches have not been enabled. Unable to get PID info.\n", 240)
    assert s.execute("dcgmi stats -e") == ("Successfully started process watches.\n", 0)
    assert s.execute("dcgmi stats -p 1") == (
        "Error: Unable to get information for process with PID 1. Return: No data is available.\n", 242)


def test_a_reboot_empties_the_host_engine():
    login = on(None)
    assert login.execute("ssh node03 dcgmi stats -j 48213")[1] == 0
    lifecycle.reset(login.cluster, login.cluster.nodes["node03"], login.cluster.clock.elapsed, cycle=False)
    login.cluster.clock.advance(lifecycle.BOOT_S + 1.0)
    assert login.execute("ssh node03 dcgmi stats -j 48213")[1] == 242


def test_the_prolog_that_records_jobs_is_on_every_node():
    s = on("node02")
    assert "Prolog=/etc/slurm/prolog.d/*" in s.execute("cat /etc/slurm/slurm.conf")[0]
    assert 'dcgmi stats --jstart "$SLURM_JOB_ID"' in s.execute("cat /etc/slurm/prolog.d/50-dcgm-stats.sh")[0]
    assert 'dcgmi stats --jstop "$SLURM_JOB_ID"' in s.execute("cat /etc/slurm/epilog.d/50-dcgm-stats.sh")[0]


def test_a_recorded_job_survives_a_snapshot_and_restore():
    s = on("node05")
    s.execute("dcgmi stats -s warmup")
    restored = Session.restore(s.snapshot())
    out, status = restored.execute("dcgmi stats -j warmup")
    assert status == 0 and "Successfully retrieved statistics for job: warmup. " in out


def test_a_gpu_off_the_bus_counts_its_xid_and_reads_no_figures():
    s = Session(lab="diagnostic-snapshot", seed=1)   # Xid 79 on node03 GPU 6
    truth = s.cluster.truth()
    assert truth["xid"] == "79"
    s.execute(f"ssh {truth['node']}")
    box = _gpu_box(s.execute("dcgmi stats -j 48213 -v")[0], int(truth["gpu"]))
    assert _value(box, "Critical XID Errors") == "1"
    assert _value(box, "Power Usage (Watts)") == _value(box, "SM Clock (MHz)") == "Avg: N/A, Max: N/A, Min: N/A"
    assert _value(box, "Overall Health") == "Failure"
    summary = s.execute("dcgmi stats -j 48213")[0]
    assert not _value(summary, "Power Usage (Watts)").startswith("Avg: N/A")
