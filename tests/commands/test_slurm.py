"""Slurm tools through the shell: sinfo, squeue, scontrol, sacct, srun, sbatch, scancel."""

from __future__ import annotations

import time

import pytest

from emulator.cluster.build import ClusterSpec, build_cluster
from emulator.cluster.faults import apply_fault
from emulator.session import Session
from tests.support import golden, on


@pytest.mark.parametrize("name,lab,line", [
    ("slurm_sinfo.txt", None, "sinfo"),
    ("slurm_sinfo_N_l.txt", None, "sinfo -N -l"),
    ("slurm_squeue.txt", None, "squeue"),
    ("slurm_squeue_l.txt", None, "squeue -l"),
    ("slurm_sacct.txt", None, "sacct"),
    ("slurm_scontrol_job.txt", None, "scontrol show job 48213"),
    ("slurm_scontrol_node.txt", None, "scontrol show node node01"),
    ("slurm_sinfo_R_down.txt", "out-of-band", "sinfo -R"),
    ("slurm_sinfo_down.txt", "out-of-band", "sinfo"),
    ("slurm_sacct_node_fail.txt", "out-of-band", "sacct -j 48213 --format=JobID,JobName,State,ExitCode,NodeList,End"),
])
def test_golden_output(name, lab, line):
    out, status = on(None, lab).execute(line)
    assert status == 0
    golden(name, out)


def test_sinfo_marks_the_default_partition_and_groups_by_state():
    out, _ = on(None).execute("sinfo -h -o '%P %t %D %N'")
    assert out.splitlines() == ["gpu* alloc 6 node[01-06]", "gpu* idle 2 node[07-08]", "debug alloc 2 node[01-02]"]


def test_sinfo_summarize_counts_allocated_idle_other_total():
    out, _ = on(None).execute("sinfo -s")
    assert "6/2/0/8" in out.splitlines()[1]


def test_sinfo_drained_node_shows_reason_user_and_time():
    s = Session()
    apply_fault(s.cluster, "node-drained", {"node": "node08", "reason": "bad cable", "at_s": -3600.0})
    out, _ = s.execute("sinfo -R")
    assert out.splitlines()[1] == "bad cable            root      2026-03-11T08:00:00 node08"
    out, _ = s.execute("sinfo -h -t drain -o %N")
    assert out == "node08\n"


def test_sinfo_R_cuts_a_reason_to_20_characters_and_a_wider_field_shows_it_whole():
    """sinfo's --list-reasons format is "%20E %9u %19H %N"; a field is cut at its width (print.c _print_str)."""
    s = Session()
    s.execute("sudo scontrol update nodename=node07 state=drain reason='HW-5521: GPU3 Xid 79, reset pending'")
    assert s.execute("sinfo -R") == ("REASON               USER      TIMESTAMP           NODELIST\n"
                                     "HW-5521: GPU3 Xid 79 root      2026-03-11T09:00:02 node07\n", 0)
    out, status = s.execute('sinfo -R -o "%100E %9u %19H %N"')
    assert status == 0
    assert out.splitlines() == [f"{'REASON':<100} USER      TIMESTAMP           NODELIST",
                                f"{'HW-5521: GPU3 Xid 79, reset pending':<100} root      2026-03-11T09:00:02 node07"]


def test_node_memory_agrees_across_sinfo_scontrol_free_and_meminfo():
    """RealMemory and FreeMem are MB (MemTotal and MemFree in kB over 1024), as free -m shows them."""
    s = on("node01")
    meminfo = dict(line.split(":") for line in s.execute("cat /proc/meminfo")[0].splitlines())
    total_kb, free_kb = int(meminfo["MemTotal"].split()[0]), int(meminfo["MemFree"].split()[0])
    mem = s.execute("free -m")[0].splitlines()[1].split()
    assert (int(mem[1]), int(mem[3])) == (total_kb // 1024, free_kb // 1024) == (2063874, 1253880)
    assert s.execute("free")[0].splitlines()[1].split()[1:4:2] == [str(total_kb), str(free_kb)]
    s.execute("exit")
    assert "   RealMemory=2063874 AllocMem=2063874 FreeMem=1253880 " in s.execute("scontrol show node node01")[0]
    assert s.execute("sinfo -h -N -n node01 -p gpu -o '%m %e'")[0] == "2063874 1253880\n"
    assert s.execute("sinfo -h -N -n node01 -p gpu -O memory,freemem")[0].split() == ["2063874", "1253880"]
    # sinfo -N -l prints MEMORY with "%.6m": a seven-digit RealMemory is cut to its first six.
    row = s.execute("sinfo -N -l -n node01 -p gpu")[0].splitlines()[2]
    assert row.split()[6] == "206387"


def test_sinfo_unknown_partition_prints_only_the_header_and_bad_flags_get_getopt_errors():
    out, status = on(None).execute("sinfo -p nope")
    assert (out, status) == ("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n", 0)
    out, status = on(None).execute("sinfo --bogus")
    assert status == 1 and out.startswith("sinfo: unrecognized option '--bogus'\n")


def test_squeue_filters_by_user_state_partition_and_node():
    assert on(None).execute("squeue -h -u bob -o %i")[0] == "48216\n48214\n"
    assert on(None).execute("squeue -h --me -t R -o %i")[0] == "48213\n"
    assert on(None).execute("squeue -h -w node05 -o %j")[0] == "finetune-sft\n"
    assert on(None).execute("squeue -h -p debug")[0] == ""


def test_squeue_and_sinfo_long_format_fields_by_name():
    out, _ = on(None).execute("squeue -h -j 48213 -O jobid:8,name:14,state:.9")
    assert out == "48213   llm-pretrain    RUNNING\n"
    out, _ = on(None).execute("sinfo -h -N -n node08 -O nodelist:8,statelong:6")
    assert out == "node08  idle  \n"
    assert on(None).execute("squeue -O bogus") == ("squeue: error: Invalid job format specification: bogus\n", 1)


def test_squeue_errors_use_slurms_wording():
    assert on(None).execute("squeue -j 999") == ("slurm_load_jobs error: Invalid job id specified\n", 1)
    assert on(None).execute("squeue -u mallory") == ("squeue: error: Invalid user: mallory\n", 1)
    out, status = on(None).execute("squeue -t nope")
    assert status == 1 and out.startswith("squeue: error: Invalid job state specified: nope\n")


def test_squeue_time_is_elapsed_on_the_simulated_clock():
    s = Session()
    first = s.execute("squeue -h -j 48213 -o %M")[0]
    s.execute("sleep 60")
    second = s.execute("squeue -h -j 48213 -o %M")[0]
    assert (first, second) == ("1:30:02\n", "1:31:06\n")


def test_scontrol_show_hostnames_and_errors():
    assert on(None).execute("scontrol show hostnames node[01-03]")[0] == "node01\nnode02\nnode03\n"
    assert on(None).execute("scontrol show job 1") == ("slurm_load_jobs error: Invalid job id specified\n", 1)
    assert on(None).execute("scontrol show node node99") == ("Node node99 not found\n", 1)
    assert on(None).execute("scontrol show widget") == ("invalid entity:widget for keyword:show\n", 1)


def test_scontrol_show_config_states_the_settings_the_model_follows():
    out, _ = on(None).execute("scontrol show config")
    assert "JobRequeue              = 0\n" in out
    assert "ReturnToService         = 1\n" in out
    assert "SlurmdTimeout           = 300 sec\n" in out
    assert on(None).execute("scontrol ping") == ("Slurmctld(primary) at login01 is UP\n", 0)


def test_scontrol_update_drains_and_resumes_a_node():
    s = Session()
    assert s.execute("sudo scontrol update NodeName=node08 State=DRAIN")[1] == 1
    assert s.execute("sudo scontrol update NodeName=node08 State=DRAIN Reason=testing")[1] == 0
    assert s.execute("sinfo -h -n node08 -p gpu -o %t")[0] == "drain\n"
    s.execute("sudo scontrol update NodeName=node08 State=RESUME")
    assert s.execute("sinfo -h -n node08 -p gpu -o %t")[0] == "idle\n"


def test_sacct_parsable_and_allocations_only():
    out, _ = on(None).execute("sacct -X -P -j 48213 --format=JobID,State,NNodes")
    assert out == "JobID|State|NNodes\n48213|RUNNING|4\n"


def test_sacct_window_and_errors():
    assert "nccl-check" not in on(None).execute("sacct -X")[0]
    assert "nccl-check" in on(None).execute("sacct -X -S 2026-03-10")[0]
    assert on(None).execute("sacct --format=Bogus") == ('sacct: error: Invalid field requested: "Bogus"\n', 1)
    assert on(None).execute("sacct -S yesterdayish") == ("sacct: error: Invalid time specification (pos=0): yesterdayish\n", 1)


def test_srun_runs_one_task_per_node_with_labels_and_records_the_job():
    s = Session()
    out, status = s.execute("srun -N2 -l hostname")
    assert (out, status) == ("0: node07\n1: node08\n", 0)
    out, _ = s.execute("sacct -X -n -j 48218 -o JobName,State,NodeList")
    assert out.split() == ["hostname", "COMPLETED", "node[07-08]"]
    assert s.execute("sinfo -h -n node07 -p gpu -o %t")[0] == "idle\n"


def test_srun_task_environment_comes_from_the_allocation():
    out, _ = on(None).execute("srun -N2 --ntasks-per-node=2 env")
    ranks = [line for line in out.splitlines() if line.startswith(("SLURM_PROCID=", "SLURMD_NODENAME="))]
    assert ranks == ["SLURM_PROCID=0", "SLURMD_NODENAME=node07", "SLURM_PROCID=1", "SLURMD_NODENAME=node07",
                     "SLURM_PROCID=2", "SLURMD_NODENAME=node08", "SLURM_PROCID=3", "SLURMD_NODENAME=node08"]


def test_srun_inside_an_existing_allocation():
    out, status = on(None).execute("srun --jobid 48213 -N1 hostname")
    assert (out, status) == ("node01\n", 0)
    out, status = on(None).execute("srun --jobid 999 hostname")
    assert status == 1 and "Invalid job id specified" in out


def test_srun_pty_bash_opens_a_shell_on_the_node_for_the_life_of_the_job():
    s = Session()
    assert s.execute("srun -N1 --pty bash") == ("", 0)
    assert s.execute("hostname")[0] == "node07\n"
    assert s.execute("squeue -h -j 48218 -o '%j %t'")[0] == "bash R\n"
    s.execute("exit")
    assert s.execute("sacct -X -n -j 48218 -o State")[0].split() == ["COMPLETED"]
    assert s.execute("sinfo -h -n node07 -p gpu -o %t")[0] == "idle\n"


def test_srun_in_an_allocation_adds_a_numbered_step_that_sacct_lists():
    s = Session()
    s.execute("srun --jobid 48213 -N1 nvidia-smi -L")
    out, _ = s.execute("sacct -n -j 48213 -o JobID,JobName,State")
    assert out.splitlines()[-1].split() == ["48213.1", "nvidia-smi", "COMPLETED"]
    s.execute("scancel 48213")
    out, _ = s.execute("sacct -n -j 48213 -o JobID,State")
    assert [line.split() for line in out.splitlines()] == [
        ["48213", "CANCELLED+"], ["48213.batch", "CANCELLED"], ["48213.extern", "COMPLETED"],
        ["48213.0", "CANCELLED"], ["48213.1", "COMPLETED"]]


def test_srun_queues_when_no_nodes_are_free_and_errors_are_slurms():
    out, status = on(None).execute("srun -N 8 hostname")
    assert out.startswith("srun: job 48218 queued and waiting for resources\n") and status == 1
    assert on(None).execute("srun -p nope hostname") == (
        "srun: error: Unable to allocate resources: Invalid partition name specified\n", 1)
    assert on(None).execute("srun -N 9 hostname") == (
        "srun: error: Unable to allocate resources: Requested node configuration is not available\n", 1)
    assert on(None).execute("sbatch -p debug -t 45 --wrap hostname") == (
        "sbatch: error: Batch job submission failed: Requested time limit is invalid (missing or exceeds some "
        "limit)\n", 1)


def test_sbatch_reads_sbatch_lines_runs_the_script_and_the_job_shows_in_squeue():
    s = Session()
    s.execute("printf '#!/bin/bash\\n#SBATCH -N 2\\n#SBATCH -J smoke\\nsrun hostname\\n' > /home/alice/smoke.sh")
    assert s.execute("sbatch /home/alice/smoke.sh") == ("Submitted batch job 48218\n", 0)
    out, _ = s.execute("squeue -h -j 48218 -o '%j %t %D %N'")
    assert out == "smoke R 2 node[07-08]\n"
    assert s.shell.fs.read("/home/alice/slurm-48218.out") == "node07\nnode08\n"
    s.execute("sleep 60")
    assert s.execute("sacct -X -n -j 48218 -o State")[0].split() == ["COMPLETED"]


def test_sbatch_refuses_missing_files_and_scripts_without_a_shebang():
    assert on(None).execute("sbatch /home/alice/none.sh") == ("sbatch: error: Unable to open file /home/alice/none.sh\n", 1)
    s = Session()
    s.execute("echo hostname > /home/alice/plain.sh")
    out, status = s.execute("sbatch /home/alice/plain.sh")
    assert status == 1 and out.startswith("sbatch: error: This does not look like a batch script.")


def test_scancel_cancels_own_jobs_only():
    s = Session()
    assert s.execute("scancel 48217") == ("", 0)
    assert s.execute("sacct -X -n -j 48217 -o State%20")[0].split() == ["CANCELLED", "by", "1001"]
    out, status = s.execute("scancel 48214")
    assert status == 1 and "Access/permission denied" in out
    assert s.execute("scancel 4") == ("scancel: error: Kill job error on job id 4: Invalid job id specified\n", 1)


def test_sinfo_and_squeue_answer_within_100_ms_on_1024_nodes():
    s = Session()
    s.cluster = s.shell.cluster = build_cluster(ClusterSpec(nodes=1024))
    for line in ("sinfo", "squeue"):
        s.execute(line)
        start = time.perf_counter()
        for _ in range(5):
            out, status = s.execute(line)
        assert status == 0
        assert (time.perf_counter() - start) / 5 < 0.1, line


def test_squeue_json_gives_the_jobs_scontrol_shows_in_data_parser_v0_0_40_form():
    import json
    import re
    from datetime import UTC, datetime

    s = Session("diagnostic-snapshot", 0)
    doc = json.loads(s.execute("squeue -t all --json")[0])
    assert doc["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.40" and doc["errors"] == []
    assert doc["meta"]["slurm"]["release"] == "23.11.10"
    job = next(j for j in doc["jobs"] if j["job_id"] == 48213)
    shown = s.execute("scontrol show job 48213")[0]
    assert job["job_state"] == [re.search(r"JobState=(\S+)", shown).group(1)] == ["FAILED"]
    assert job["exit_code"]["status"] == ["ERROR"] and job["exit_code"]["return_code"]["number"] == 1
    assert job["state_reason"] == "NonZeroExitCode" and job["nodes"] == "node[01-04]"
    end = re.search(r"EndTime=(\S+)", shown).group(1)
    assert datetime.fromtimestamp(job["end_time"]["number"], UTC).strftime("%Y-%m-%dT%H:%M:%S") == end
    assert job["time_limit"] == {"infinite": False, "number": 2880, "set": True}
    pending = next(j for j in doc["jobs"] if j["job_state"] == ["PENDING"])
    assert pending["start_time"]["set"] is False and pending["job_resources"] == {}
    running = json.loads(s.execute("squeue --json -j 48214")[0])["jobs"]
    assert [j["job_id"] for j in running] == [48214] and running[0]["gres_detail"] == ["gpu:h100:8(IDX:0-7)"]


def test_sacct_json_agrees_with_sacct_columns_for_a_node_failure():
    import json

    s = Session("out-of-band", 2)
    doc = json.loads(s.execute("sacct -j 48213 --json")[0])
    job = doc["jobs"][0]
    rows = [line.split("|") for line in s.execute("sacct -j 48213 -n -P -o jobid,state,exitcode,failednode,elapsed")[0]
            .splitlines()]
    assert job["state"]["current"] == [rows[0][1]] == ["NODE_FAIL"] and job["failed_node"] == rows[0][3] == "node03"
    h, m, sec = (int(x) for x in rows[0][4].split(":"))
    assert job["time"]["elapsed"] == h * 3600 + m * 60 + sec
    assert [(st["step"]["id"], st["state"][0]) for st in job["steps"]] == [(r[0], r[1]) for r in rows[1:]]
    signalled = job["steps"][0]["exit_code"]
    assert signalled["status"] == ["SIGNALED"] and signalled["signal"]["name"] == "TERM"
    assert {t["type"]: t["count"] for t in job["tres"]["allocated"]}["node"] == 4


def test_sinfo_json_records_agree_with_sinfo_columns_and_scontrol():
    import json

    s = Session(None, 0)
    apply_fault(s.cluster, "node-drained", {"node": "node08", "reason": "bad cable", "at_s": -3600.0})
    doc = json.loads(s.execute("sinfo --json")[0])
    assert doc["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.40" and doc["errors"] == []
    records = [(r["partition"]["name"], r["node"]["state"], r["nodes"]["nodes"]) for r in doc["sinfo"]]
    columns = [line.split() for line in s.execute("sinfo -h -o '%R %T %N'")[0].splitlines()]
    assert len(records) == len(columns)
    drained = next(r for r in doc["sinfo"] if r["nodes"]["nodes"] == ["node08"] and r["partition"]["name"] == "gpu")
    assert drained["node"]["state"] == ["IDLE", "DRAIN"] and drained["reason"]["description"] == "bad cable"
    assert drained["nodes"]["other"] == 1 and drained["cpus"]["other"] == drained["cpus"]["total"]
    shown = s.execute("scontrol show node node08")[0]
    assert f"RealMemory={drained['memory']['minimum']} " in shown
    assert f"CPUTot={drained['cpus']['maximum']} " in shown
    per_node = json.loads(s.execute("sinfo -N -p gpu --json")[0])["sinfo"]
    assert [r["nodes"]["nodes"] for r in per_node] == [[n] for n in s.execute("sinfo -h -N -p gpu -o %N")[0].split()]
