"""Slurm operator actions through the shell: salloc, scontrol reboot / cancel_reboot, requeue."""

from __future__ import annotations

from emulator.session import Session
from tests.support import run

# -- salloc -------------------------------------------------------------------------


def test_salloc_grants_nodes_and_starts_a_shell_with_the_allocation():
    s = Session()
    out, status = s.execute("salloc -N2 --gres=gpu:8 -t 30 -J probe")
    assert status == 0
    job = out.split()[4]
    assert out == f"salloc: Granted job allocation {job}\nsalloc: Nodes node[07-08] are ready for job\n"
    assert run(s, "echo $SLURM_JOB_ID $SLURM_JOB_NODELIST $SLURM_NNODES $SLURM_JOB_NAME $SHLVL").splitlines() == \
        [f"{job} node[07-08] 2 probe 2"]
    assert run(s, "hostname").splitlines() == ["login01"]
    assert run(s, "srun hostname").splitlines() == ["node07", "node08"]
    assert run(s, f"squeue -h -j {job} -o '%i %j %T %D %N'").splitlines() == [f"{job} probe RUNNING 2 node[07-08]"]
    assert "BatchFlag=0" in s.execute(f"scontrol show job {job}")[0]
    assert run(s, "sinfo -h -n node07 -o %t").splitlines() == ["alloc"]


def test_exit_relinquishes_the_allocation_and_drops_its_variables():
    s = Session()
    job = s.execute("salloc -N1")[0].split()[4]
    s.execute("export MINE=1; cd /tmp")
    out, status = s.execute("exit")
    assert (out, status) == (f"exit\nsalloc: Relinquishing job allocation {job}\n", 0)
    assert run(s, "echo x${SLURM_JOB_ID}x${MINE}x $SHLVL; pwd").splitlines() == ["xxx 1", "/home/alice"]
    assert run(s, f"sacct -X -n -j {job} -o JobName,State").splitlines() == ["interacti+  COMPLETED "]
    assert run(s, "sinfo -h -n node07 -o %t").splitlines() == ["idle"]
    assert s.execute("exit")[0] == "logout\n"  # back on the login shell


def test_a_subshell_exit_inside_salloc_does_not_end_it():
    s = Session()
    s.execute("salloc -N1")
    assert run(s, "( exit 3 ); echo $? $SLURM_NNODES").splitlines() == ["3 1"]


def test_salloc_with_a_command_runs_it_then_relinquishes():
    s = Session()
    out, status = s.execute("salloc -N2 -n 4 srun -l hostname")
    assert status == 0
    job = out.split()[4]
    assert out.splitlines()[2:] == ["0: node07", "1: node07", "2: node08", "3: node08",
                                    f"salloc: Relinquishing job allocation {job}"]
    assert "SLURM_JOB_ID" not in s.execute("env")[0]


def test_srun_inside_salloc_uses_its_task_count():
    s = Session()
    s.execute("salloc -N2 -n 4")
    assert run(s, "srun -l hostname | sort").splitlines() == ["0: node07", "1: node07", "2: node08", "3: node08"]


def test_srun_pty_bash_inside_salloc_is_a_step_on_the_first_node():
    s = Session()
    s.execute("salloc -N2")
    assert s.execute("srun --pty bash") == ("", 0)
    assert run(s, "hostname; echo $SLURM_JOB_ID $SLURM_PROCID $SLURMD_NODENAME").splitlines() == ["node07", "48218 0 node07"]
    assert run(s, "sacct -n -j 48218 -o JobID,JobName,State").splitlines()[-1] == "48218.0            bash    RUNNING "
    assert s.execute("exit") == ("exit\n", 0)
    assert run(s, "hostname; echo x${SLURMD_NODENAME}x $SLURM_NNODES").splitlines() == ["login01", "xx 2"]
    assert run(s, "sacct -n -j 48218 -o JobID,State").splitlines()[-1] == "48218.0       COMPLETED "
    assert run(s, "squeue -h -j 48218 -o %T").splitlines() == ["RUNNING"]  # the allocation outlives the step


def test_the_time_limit_revokes_the_allocation_on_the_simulated_clock():
    s = Session()
    s.execute("salloc -N1 -t 1")
    assert s.execute("sleep 30") == ("", 0)
    assert s.execute("sleep 40")[0] == ("salloc: Job 48218 has exceeded its time limit and its allocation has been "
                                        "revoked.\n")
    assert run(s, "sacct -X -n -j 48218 -o State,Elapsed").splitlines() == ["   TIMEOUT   00:01:00 "]
    assert run(s, "sinfo -h -n node07 -o %t").splitlines() == ["idle"]
    assert s.execute("srun hostname")[1] == 1
    assert s.execute("exit")[0] == "exit\n"


def test_unsatisfiable_requests_get_slurms_errors():
    for line, reason in [("salloc -N99", "Requested node configuration is not available"),
                         ("salloc --gres=gpu:9", "Requested node configuration is not available"),
                         ("salloc -p nope", "Invalid partition name specified"),
                         ("salloc -w node99", "Invalid node name specified")]:
        out, status = Session().execute(line)
        assert (out, status) == (f"salloc: error: Job submit/allocate failed: {reason}\n", 1), line


def test_salloc_on_a_busy_node_queues_and_ctrl_c_revokes_the_request():
    s = Session()
    pending = s.run("salloc -w node06")
    first = pending.step()
    assert first is not None and first.text() == ("salloc: Pending job allocation 48218\n"
                                                  "salloc: job 48218 queued and waiting for resources\n")
    assert run(s, "squeue -h -j 48218 -o '%T %R'").splitlines() == ["PENDING (Resources)"]
    pending.interrupt()
    while pending.step() is not None:
        pass
    assert run(s, "sacct -X -n -j 48218 -o State%20").splitlines() == ["   CANCELLED by 1001 "]


# -- scontrol reboot ------------------------------------------------------------------


def test_reboot_of_an_idle_node_goes_through_slurms_states_and_boots_it_afresh():
    s = Session()
    boot_before = s.execute("scontrol show node node07 | grep -o 'BootTime=[^ ]*'")[0]
    assert s.execute("sudo scontrol reboot node07") == ("", 0)
    assert run(s, "sinfo -h -n node07 -o '%t|%T|%E'").splitlines() == ["boot|reboot|reboot requested"]
    assert "State=IDLE+REBOOT_REQUESTED " in s.execute("scontrol show node node07")[0]
    s.execute("sleep 10")
    assert run(s, "sinfo -h -n node07 -o '%t|%E'").splitlines() == ["boot^|reboot requested : reboot issued"]
    assert "State=DOWN+REBOOT_ISSUED " in s.execute("scontrol show node node07")[0]
    assert s.execute("ssh node07 true")[1] == 255
    s.execute("sleep 240")
    assert run(s, "sinfo -h -n node07 -o '%t|%E'").splitlines() == ["idle|none"]
    assert s.execute("scontrol show node node07 | grep -o 'BootTime=[^ ]*'")[0] != boot_before
    assert " up 1 min," in s.execute("ssh node07 uptime")[0]
    assert "Linux version" in run(s, "ssh node07 dmesg").splitlines()[0]
    assert run(s, "ipmitool -H node07-bmc -U admin -P admin chassis restart_cause").splitlines() == \
        ["System restart cause: soft reset"]


def test_reboot_asap_on_a_busy_node_drains_it_and_waits_for_its_job():
    s = Session()
    s.execute("sudo scontrol reboot ASAP nextstate=down reason=bad_hca node05")
    assert run(s, "sinfo -h -n node05 -o '%t|%E'").splitlines() == ["drng@|bad_hca"]
    assert "State=ALLOCATED+DRAIN+REBOOT_REQUESTED " in s.execute("scontrol show node node05")[0]
    s.execute("sleep 60")
    assert run(s, "sinfo -h -n node05 -o %t").splitlines() == ["drng@"]  # bob's job still runs there
    s.execute("sudo -u bob scancel 48214")  # the job's owner ends it
    s.execute("sleep 35")
    assert run(s, "sinfo -h -n node05 -o %t").splitlines() == ["boot^"]
    assert "State=DOWN+DRAIN+REBOOT_ISSUED" in s.execute("scontrol show node node05")[0]
    s.execute("sleep 300")
    assert run(s, "sinfo -h -n node05 -o '%t|%E'").splitlines() == ["down|bad_hca : reboot issued : reboot complete"]


def test_cancel_reboot_undoes_an_asap_drain_before_the_reboot_is_issued():
    s = Session()
    s.execute("sudo scontrol reboot ASAP node08")
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["boot|Reboot ASAP"]
    assert s.execute("sudo scontrol cancel_reboot node08") == ("", 0)
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["idle|none"]
    s.execute("sleep 60")
    assert run(s, "sinfo -h -n node08 -o %t").splitlines() == ["idle"]
    s.execute("sudo scontrol reboot node08; sleep 10")
    assert s.execute("sudo scontrol cancel_reboot node08") == ("slurm_update error: Reboot already in progress\n", 1)


def test_update_state_cancel_reboot_cancels_like_cancel_reboot():
    s = Session()
    s.execute("sudo scontrol reboot node08")
    assert s.execute("sudo scontrol update nodename=node08 state=cancel_reboot") == ("", 0)
    s.execute("sleep 30")
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["idle|none"]


def test_reboot_errors():
    for line, message in [("sudo scontrol reboot", "Missing node list. Specify ALL|<NodeList>"),
                          ("sudo scontrol reboot node99", "scontrol_reboot_nodes error: Invalid node name specified"),
                          ("sudo scontrol reboot nextstate=up node01", "Invalid state: up\nValid states: DOWN, RESUME"),
                          ("sudo scontrol reboot nextstate= node01", "missing state"),
                          ("sudo scontrol cancel_reboot", "missing argument for keyword:cancel_reboot")]:
        assert Session().execute(line) == (message + "\n", 1), line


def test_reboot_nextstate_resume_returns_the_node_with_its_drain_and_reason_cleared():
    s = Session()
    run(s, "sudo scontrol update nodename=node08 state=drain reason='HW-7: fan'")
    assert run(s, "sudo scontrol reboot nextstate=res node08") == ""   # any prefix of RESUME
    s.execute("sleep 300")
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["idle|none"]
    assert "Reason=" not in run(s, "scontrol show node node08")


def test_reboot_nextstate_down_keeps_the_node_down_with_reboot_complete_appended():
    s = Session()
    run(s, "sudo scontrol reboot ASAP nextstate=DOWN reason='HW-7: Xid 79' node08")
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["boot|HW-7: Xid 79"]
    s.execute("sleep 300")
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["down|HW-7: Xid 79 : reboot issued : reboot complete"]
    assert "   State=DOWN ThreadsPerCore" in run(s, "scontrol show node node08")
    assert run(s, "sinfo -R -h -n node08 -o '%100E %u'").split() == \
        ["HW-7:", "Xid", "79", ":", "reboot", "issued", ":", "reboot", "complete", "root"]


def test_a_plain_reboot_of_a_drained_node_leaves_it_drained():
    s = Session()
    run(s, "sudo scontrol update nodename=node08 state=drain reason='HW-7: fan'")
    run(s, "sudo scontrol reboot node08")
    s.execute("sleep 300")
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["drain|HW-7: fan : reboot issued"]


# -- who may act --------------------------------------------------------------------------


def test_node_updates_and_reboots_need_slurms_operator():
    s = Session()
    for line, message in [("scontrol update nodename=node08 state=drain reason=x", "slurm_update error: Invalid user id"),
                          ("scontrol reboot node08", "scontrol_reboot_nodes error: Permission denied"),
                          ("scontrol reboot ASAP nextstate=DOWN reason=x node08",
                           "scontrol_reboot_nodes error: Permission denied"),
                          ("scontrol cancel_reboot node08", "slurm_update error: Invalid user id")]:
        assert s.execute(line) == (message + "\n", 1), line
    assert run(s, "sinfo -h -n node08 -o '%t|%E'").splitlines() == ["idle|none"]
    # scontrol's own checks come before slurmctld's: the learner still sees them.
    assert s.execute("scontrol update nodename=node08 state=drain") == \
        ("You must specify a reason when DOWNING or DRAINING a node. Request denied\n", 1)
    assert run(s, "sudo -u slurm scontrol update nodename=node08 state=drain reason=x") == ""
    assert run(s, "sinfo -h -R -n node08 -o '%E %u'").splitlines() == ["x slurm"]
    assert s.execute("sudo -u bob scontrol update nodename=node08 state=resume") == \
        ("slurm_update error: Invalid user id\n", 1)
    assert s.execute("sudo -u nobody scontrol ping") == \
        ("sudo: unknown user nobody\nsudo: error initializing audit plugin sudoers_audit\n", 1)
    assert run(s, "whoami; sudo whoami; sudo -u slurm id") == \
        "alice\nroot\nuid=64030(slurm) gid=64030(slurm) groups=64030(slurm)\n"


def test_users_act_on_their_own_jobs_and_operators_on_anyones():
    s = Session()
    assert s.execute("scontrol update jobid=48215 requeue=1") == ("Invalid user id for job 48215\n", 1)
    assert s.execute("scontrol requeue 48215") == ("Access/permission denied for job 48215\n", 1)
    assert s.execute("scancel 48215") == (
        "scancel: error: Kill job error on job id 48215: Access/permission denied\n", 1)
    assert s.execute("scontrol hold 48216") == ("Invalid user id for job 48216\n", 1)
    assert run(s, "sudo scontrol hold 48216; squeue -h -j 48216 -o %r") == "JobHeldAdmin\n"
    assert run(s, "sudo scontrol update jobid=48215 requeue=1") == ""
    assert run(s, "sudo scontrol requeue 48215") == ""
    assert run(s, "squeue -h -j 48215 -o '%u %T %r'").splitlines() == ["carol PENDING BeginTime"]


# -- scontrol requeue -----------------------------------------------------------------


def test_requeue_is_refused_while_the_job_says_requeue_0_as_slurm_does():
    s = Session()
    assert "Requeue=0 " in run(s, "scontrol show job 48213")
    assert s.execute("scontrol requeue 48213") == ("Requested operation is presently disabled for job 48213\n", 1)
    assert run(s, "squeue -h -j 48213 -o %T").splitlines() == ["RUNNING"]
    for line in ("scontrol update JobId=48213 Requeue=1", "scontrol update jobid=48213 requeue=1",
                 "scontrol update job=48213 Requeue=1"):
        assert run(s, line) == "", line
    assert "Requeue=1 Restarts=0 " in run(s, "scontrol show job 48213")
    assert run(s, "scontrol requeue 48213") == ""
    assert "Requeue=1 Restarts=1 " in run(s, "scontrol show job 48213")
    run(s, "scontrol update JobId=48213 Requeue=0")
    assert "Requeue=0 Restarts=1 " in run(s, "scontrol show job 48213")


def test_scontrol_update_job_errors():
    s = Session()
    for line, message in [("scontrol update jobid=48213", "No changes specified"),
                          ("scontrol update jobid=48213 requeue=yes", "scontrol: error: Invalid Requeue value: yes"),
                          ("scontrol update jobid=99 requeue=1", "Invalid job id specified for job 99"),
                          ("scontrol update jobid=48213 Bogus=1",
                           "Update of this parameter is not supported: Bogus=1\nRequest aborted"),
                          ("scontrol update requeue=1", "No valid entity in update command\nInput line must include "
                           "\"NodeName\", \"PartitionName\", \"Reservation=<name>\", or \"JobId\"")]:
        assert s.execute(line) == (message + "\n", 1), line


def test_requeue_returns_a_running_batch_job_to_pending_and_keeps_its_run_for_sacct():
    s = Session()
    assert s.execute("scontrol update jobid=48213 requeue=1; scontrol requeue 48213") == ("", 0)
    assert run(s, "squeue -h -j 48213 -o '%T %r %D'").splitlines() == ["PENDING BeginTime 4"]
    record = s.execute("scontrol show job 48213")[0]
    assert "JobState=PENDING Reason=BeginTime" in record and "Restarts=1 " in record
    assert "EligibleTime=2026-03-11T09:02:03" in record
    assert run(s, "sinfo -h -n node01 -p gpu -o %t").splitlines() == ["idle"]
    assert run(s, "ssh node01 nvidia-smi --query-compute-apps=pid --format=csv,noheader").splitlines() == []
    assert run(s, "sacct -n -j 48213 -o JobID,State,Restarts").splitlines() == ["48213           PENDING        1 "]
    assert run(s, "sacct -n -D -X -j 48213 -o JobID,State,NodeList").splitlines() == [
        "48213          REQUEUED     node[01-04] ", "48213           PENDING   None assigned "]
    s.execute("sleep 125")
    assert run(s, "squeue -h -j 48213 -o '%T %N'").splitlines() == ["RUNNING node[01-04]"]


def test_sacct_state_filter_finds_requeued_runs_only_with_duplicates():
    s = Session()
    s.execute("scontrol update jobid=48213 requeue=1; scontrol requeue 48213")
    assert run(s, "sacct -n -X -s RQ -o JobID,State").splitlines() == []
    assert run(s, "sacct -n -X -D -s REQUEUED -o JobID,State").splitlines() == ["48213          REQUEUED "]


def test_requeuehold_holds_the_job_until_released():
    s = Session()
    assert s.execute("sbatch --parsable --wrap hostname")[0].strip() == "48218"
    assert s.execute("scontrol requeuehold 48218") == ("Requested operation is presently disabled for job 48218\n", 1)
    job = s.execute("sbatch --parsable --requeue --wrap hostname")[0].strip()
    s.execute(f"scontrol requeuehold {job}")
    assert run(s, f"squeue -h -j {job} -o '%T %r'").splitlines() == ["PENDING JobHeldUser"]
    s.execute("sleep 200")
    assert run(s, f"squeue -h -j {job} -o '%T %r'").splitlines() == ["PENDING JobHeldUser"]
    s.execute(f"scontrol release {job}; sleep 1")
    assert run(s, f"squeue -h -j {job} -o '%T'").splitlines() == ["RUNNING"]


def test_requeue_errors_name_the_job_in_slurmctlds_order():
    s = Session()
    for line, message in [("scontrol requeue 48217", "Requested operation is presently disabled for job 48217"),
                          ("scontrol requeue 48215", "Access/permission denied for job 48215"),
                          ("scontrol requeue 99", "Invalid job id specified for job 99"),
                          ("scontrol requeue", "too few arguments for keyword:requeue")]:
        assert s.execute(line) == (message + "\n", 1), line
    run(s, "scontrol update jobid=48217 requeue=1")   # BatchFlag=0: not a batch job
    assert s.execute("scontrol requeue 48217") == ("Only batch jobs are accepted or processed for job 48217\n", 1)
    assert run(s, "sbatch --parsable --hold --requeue --wrap hostname") == "48218\n"
    assert s.execute("scontrol requeue 48218") == ("Job is pending execution for job 48218\n", 1)


# -- flags every client shares --------------------------------------------------------


def test_every_slurm_client_prints_its_version_and_the_viewers_offer_json():
    s = Session()
    for tool in ("sinfo", "squeue", "sacct", "scontrol", "srun", "sbatch", "scancel", "salloc"):
        assert s.execute(f"{tool} -V") == ("slurm 23.11.10\n", 0), tool
        assert s.execute(f"{tool} --version") == ("slurm 23.11.10\n", 0), tool
    for tool in ("sinfo", "squeue", "sacct"):
        assert "--json" in s.execute(f"{tool} --help")[0]
    assert s.execute("scontrol --json")[1] == 1
    assert s.execute("sinfo -h -o %P")[0].splitlines()[0] == "gpu*"  # -h stays --noheader
    assert s.execute("srun -h")[0].startswith("Usage: srun")
