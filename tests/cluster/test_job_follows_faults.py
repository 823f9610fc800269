"""The job feels every fault, and each fault has an upstream cause an operator can find, typed through the shell.

A fault present at launch (Fabric Manager failed, an NVLink that never trained) fails the job at
start-up and an Xid 74 ends it within seconds, as Slurm, the job's logs, timeline, nvidia-smi and ps
all say; healthy GPUs sit at the software power cap in every tool; a lowered power limit has a sudo
audit line, a hot GPU a failing fan, a saturated Lustre another tenant's job.
"""

from __future__ import annotations

import re

import pytest

from emulator.cluster.faults import apply_fault
from emulator.cluster.faults.neighbours import TENANT_LEAD_S
from emulator.session import Session
from tests.support import run

JOB = "48213"
OUT = f"/lustre/jobs/llm-pretrain/slurm-{JOB}.out"
LOG = "/lustre/jobs/llm-pretrain/train.log"


def nvlink(seed: int) -> tuple[Session, str, str]:
    session = Session("nvlink", seed)
    truth = session.cluster.truth()
    return session, truth["node"], truth["cause"]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_job_failed_at_start_up_in_slurm(seed):
    s, node, _ = nvlink(seed)
    acct = run(s, f"sacct -j {JOB} -o JobID,State,ExitCode")
    assert re.search(rf"^{JOB}\s+FAILED\s+1:0", acct, re.M), acct
    assert re.search(rf"^{JOB}\.0\s+FAILED\s+1:0", acct, re.M), acct
    assert JOB not in run(s, "squeue")
    # Ended 1.5 h ago, past MinJobAge: slurmctld forgot it, only the accounting database keeps it.
    out, status = s.execute(f"scontrol show job {JOB}")
    assert status != 0 and "Invalid job id specified" in out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_logs_end_with_the_error_of_the_failing_node(seed):
    s, node, cause = nvlink(seed)
    out = run(s, f"cat {OUT}")
    log = run(s, f"tail -4 {LOG}")
    assert f"host      : {node}" in out.split("Root Cause (first observed failure):")[1]
    assert out.rstrip().endswith(f"srun: Force Terminated StepId={JOB}.0")
    assert "step 1" not in run(s, f"cat {LOG}")
    if cause == "fabricmanager-stopped":
        assert "Error 802: system not yet initialized" in out
        assert log.rstrip().endswith("SIGTERM received before the first step, exiting")
    else:
        assert "ncclUnhandledCudaError: Call to CUDA function failed." in out
        assert "P2P is disabled between NVLINK connected GPUs" in out
        assert "ncclRemoteError" in log and "Connection closed by remote peer" in log


@pytest.mark.parametrize("seed", [0, 1])
def test_timeline_and_the_nodes_show_no_running_job(seed):
    s, node, _ = nvlink(seed)
    chart = run(s, "timeline")
    assert "steady state  " not in chart.split("PHASE")[1]
    assert f"init failed on {node}, job killed" in chart
    # The chart's span ends where the job ended (its failure row), not at the clock's now.
    failure_end = re.search(r"^failure\s+\S+\s+(\S+)", chart, re.M).group(1)
    assert chart.splitlines()[1].split()[-1] == failure_end
    assert "killed in init" in run(s, "timeline -r")
    for host in ("node01", node):
        assert "No running processes found" in run(s, f"ssh {host} nvidia-smi")
        assert "train.py" not in run(s, f"ssh {host} ps -ef")


def test_fabric_manager_journal_says_why_it_failed_and_when():
    s = Session("nvlink", 0)
    assert s.cluster.truth()["cause"] == "fabricmanager-stopped"
    node = s.cluster.truth()["node"]
    journal = run(s, f"ssh {node} journalctl -u nvidia-fabricmanager")
    assert re.search(r"fabric manager NVIDIA GPU driver interface version [\d.]+ don't match with driver version "
                     r"550\.90\.07", journal), journal
    # The maintenance reboot that started the skewed Fabric Manager came before the job launched.
    started = re.search(r"^Mar 11 (\d\d:\d\d):\d\d .*Starting NVIDIA fabric manager", journal, re.M)
    assert started is not None and started.group(1) < "07:30"


def test_the_healthy_twin_runs_on():
    s = Session("nvlink", 0, faults=False)
    assert re.search(rf"^{JOB}\s+RUNNING", run(s, f"sacct -j {JOB} -o JobID,State"), re.M)
    assert "steady state" in run(s, "timeline")
    assert "Root Cause" not in run(s, f"cat {OUT}")


@pytest.mark.parametrize("seed", [0, 1])
def test_an_xid_74_ends_the_job_within_seconds_and_every_artefact_agrees(seed):
    s = Session(None, seed)
    truth = apply_fault(s.cluster, "xid", {"code": 74}).truth
    node, gpu, when = truth["node"], truth["gpu"], truth["time"]
    hhmm = when[11:16]
    dmesg = run(s, f"ssh {node} dmesg -T")
    assert re.search(rf"{hhmm}:\d\d 2026\] NVRM: Xid \(PCI:[0-9a-f:]+\): 74, pid=\d+", dmesg), dmesg[-600:]
    acct = run(s, f"sacct -j {JOB} -X -n -o State,ExitCode,End")
    state, code, end = acct.split()
    assert (state, code) == ("FAILED", "1:0") and end[11:16] == hhmm
    out = run(s, f"cat {OUT}")
    rank = next(r for r in s.cluster.training.ranks if r.node == node and r.gpu == int(gpu))
    assert (f"[rank{rank.rank}]:[E0311 {hhmm}" in out
            and "CUDA error: uncorrectable NVLink error detected during the execution" in out)
    assert f"host      : {node}" in out and "Signal 6 (SIGABRT)" in out
    assert "Watchdog caught collective operation timeout" not in out
    chart = run(s, "timeline")
    assert f"CUDA error on rank {rank.rank}, job torn down" in chart
    log = run(s, f"tail -1 {LOG}")
    if rank.rank != 0:   # rank 0 outlived the failing rank: srun's SIGTERM reached it
        assert log[11:16] == hhmm and "SIGTERM received" in log
    assert "No running processes found" in run(s, f"ssh {node} nvidia-smi")


def test_a_lowered_power_limit_has_a_sudo_audit_line_naming_who_and_when():
    s = Session("gpu-data-path", 0)
    truth = s.cluster.truth()
    assert truth["cause"] == "power-cap"
    node, gpu, user = truth["node"], truth["gpu"], truth["user"]
    audit = run(s, f"ssh {node} sudo cat /var/log/auth.log")
    hhmmss = truth["time"][11:19]
    assert re.search(rf"^Mar 11 {hhmmss} {node} sudo: +{user} : TTY=pts/\d ; PWD=/home/{user} ; USER=root ; "
                     rf"COMMAND=/usr/bin/nvidia-smi -i {gpu} -pl {truth['limit_w']}$", audit, re.M), audit
    assert f"COMMAND=/usr/bin/nvidia-smi -i {gpu} -pl" in run(s, f"ssh {node} journalctl -n 20")
    limit = run(s, f"ssh {node} nvidia-smi --query-gpu=power.limit --format=csv,noheader -i {gpu}")
    assert limit.strip() == f"{float(truth['limit_w']):.2f} W"
    twin = Session("gpu-data-path", 0, faults=False)
    assert "nvidia-smi" not in run(twin, f"ssh {node} sudo cat /var/log/auth.log")


def test_a_hot_gpu_has_a_failing_fan_in_front_of_it_in_the_bmc():
    s = Session("gpu-data-path", 3)
    truth = s.cluster.truth()
    assert truth["cause"] == "thermal"
    bmc = f"ipmitool -I lanplus -H {truth['node']}-bmc -U admin -P admin"
    fans = run(s, f"{bmc} sdr type Fan")
    bad = [line.split()[0] for line in fans.splitlines() if "| cr " in line]
    assert bad == [truth["fan"]], fans
    assert f"{truth['fan']} Speed | Lower Critical going low | Asserted" in run(s, f"{bmc} sel elist")
    inlet = run(s, f"{bmc} sdr type Temperature")
    assert re.search(r"Inlet Temp .*\| ok ", inlet), inlet
    twin = Session("gpu-data-path", 3, faults=False)
    assert "| cr " not in twin.execute(f"{bmc} sdr type Fan")[0]


def test_the_logs_of_a_job_that_failed_at_start_up_are_stale_in_ls():
    listing = run(Session("nvlink", 0), "ls -l /lustre/jobs/llm-pretrain/")
    assert re.search(r" Mar 11 07:30 train\.log$", listing, re.M), listing
    assert re.search(rf" Mar 11 07:30 slurm-{JOB}\.out$", listing, re.M), listing
    growing = run(Session("nvlink", 0, faults=False), "ls -l /lustre/jobs/llm-pretrain/")
    assert re.search(r" Mar 11 (08:59|09:00) train\.log$", growing, re.M), growing


def test_a_busy_healthy_gpu_is_in_power_violation_in_every_tool():
    s = Session(None, 0)
    smi = run(s, "ssh node01 nvidia-smi dmon -c 1 -s v -i 0").splitlines()[-1].split()
    assert smi[1] == "100"   # pviol
    dcgm = run(s, "ssh node01 dcgmi dmon -e 240 -c 1 -i 0").splitlines()[-1].split()
    assert int(dcgm[-1]) >= 5200 * 10**6   # microseconds: at least since its first step at 07:32:54
    # Every sample after the start-up (no kernel yet, idle clocks) is at the power cap.
    stats = run(s, f"ssh node01 dcgmi stats -j {JOB}")
    power = re.search(r"Due to - Power \(%\)\s+\| ([\d.]+) ", stats)
    low = re.search(r"- Low Utilization \(%\)\s+\| ([\d.]+) ", stats)
    assert power and low and 0 < float(low.group(1)) < 5 and abs(float(power.group(1)) + float(low.group(1)) - 100) < 0.01
    idle = run(s, "ssh node08 dcgmi dmon -e 240 -c 1 -i 0").splitlines()[-1].split()
    assert idle[-1] == "0"


def test_the_tenant_who_saturates_lustre_runs_a_job_that_began_before_the_slowdown():
    s = Session("input-wait", 2)
    truth = s.cluster.truth()
    assert truth["cause"] == "storage-contention"
    job, tenant = truth["tenant_job"], truth["tenant"]
    assert re.search(rf"^\s+{job}\s+gpu\s+\S+\s+{tenant}\s+R\s", run(s, "squeue"), re.M)
    start = run(s, f"sacct -a -X -n -j {job} -o Start").strip()
    began = s.cluster.clock.at(s.cluster.training.degraded_s - TENANT_LEAD_S).strftime("%Y-%m-%dT%H:%M:%S")
    assert start == began
    # Its tasks run on its node: busy or asleep in a Lustre read, and counted in the load.
    node = run(s, f"squeue -h -j {job} -o %N").strip()
    tasks = run(s, f"ssh {node} ps -u {tenant} -o stat=,comm=").split("\n")
    assert sum(line.split()[1:] == ["python3"] for line in tasks if line) == 64
    assert {line.split()[0] for line in tasks if line.endswith("python3")} == {"R", "D"}
    assert float(run(s, f"ssh {node} cat /proc/loadavg").split()[0]) > 60
    # The first slow step window of train.log begins after the job started.
    first = run(s, "grep -m1 -B1 'data_wait 1' /lustre/jobs/llm-pretrain/train.log").splitlines()[0]
    assert first[:19].replace(" ", "T") > start
    assert len(run(s, "ls /lustre/datasets/tokens").split()) == 256
    assert job not in run(Session("input-wait", 0, faults=False), "squeue")


@pytest.mark.parametrize("seed", [0, 3])
def test_gpu_data_path_fault_began_before_the_restart_the_brief_blames(seed: int):
    s = Session("gpu-data-path", seed)
    truth = s.cluster.truth()
    node = truth["node"]
    if truth["cause"] == "power-cap":
        line = run(s, f"ssh {node} sudo grep -m1 'nvidia-smi -i' /var/log/auth.log")
    else:
        line = next(x for x in run(s, f"ssh {node} sudo ipmitool sel elist").splitlines() if "FAN" in x)
    stamp = re.search(r"(\d\d):(\d\d):\d\d", line)
    assert stamp is not None and (int(stamp[1]), int(stamp[2])) < (7, 30), line
    first, last = (run(s, f"{cmd} /lustre/jobs/llm-pretrain/train.log") for cmd in ("grep -m1 step_time", "tail -n 1"))
    # The run has been slow since its restart: its first logged step time is its last.
    assert abs(float(re.findall(r"step_time ([\d.]+)s", first)[0]) - float(re.findall(r"step_time ([\d.]+)s", last)[0])) < 0.2
