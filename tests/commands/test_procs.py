"""ps, top and free through the shell: the training job's processes and the host's memory."""

from __future__ import annotations

import re

import pytest

from emulator.cluster.faults import apply_fault
from emulator.commands.host.ps import Ps
from emulator.commands.host.taskset import Taskset
from tests.support import on, run


def test_free_human_golden_header_and_units():
    out = run(on("node01"), "free -h")
    lines = out.splitlines()
    assert lines[0] == "               total        used        free      shared  buff/cache   available"
    assert re.fullmatch(r"Mem: {11}2\.0Ti +\d+Gi +1\.\dTi +\d+Gi +\d+Gi +1\.\dTi", lines[1])
    assert lines[2] == "Swap:             0B          0B          0B"


def test_free_agrees_with_top_memory_line():
    s = on("node02")
    total_kib = int(run(s, "free").splitlines()[1].split()[1])
    top = run(s, "top -b -n 1")
    assert f"MiB Mem : {total_kib / 1024:8.1f} total" in top


@pytest.mark.parametrize("host", ["node01", "node08", None])
def test_meminfo_free_top_and_vmstat_agree(host):
    """free, top and vmstat read /proc/meminfo's figures as procps does (cache = Cached + SReclaimable)."""
    s = on(host)
    info = {k: int(v.split()[0]) for k, v in (line.split(":", 1) for line in run(s, "cat /proc/meminfo").splitlines())}
    cache = info["Buffers"] + info["Cached"] + info["SReclaimable"]
    used = info["MemTotal"] - info["MemFree"] - cache
    total, f_used, free, shared, buff_cache, available = map(int, run(s, "free").splitlines()[1].split()[1:])
    assert (total, f_used, free, shared, buff_cache, available) == (
        info["MemTotal"], used, info["MemFree"], info["Shmem"], cache, info["MemAvailable"])
    wide = run(s, "free -w").splitlines()[1].split()
    assert (int(wide[5]), int(wide[6])) == (info["Buffers"], info["Cached"] + info["SReclaimable"])
    vm = run(s, "vmstat").splitlines()[2].split()
    assert list(map(int, vm[3:6])) == [info["MemFree"], info["Buffers"], info["Cached"] + info["SReclaimable"]]
    mib = 1024
    assert (f"MiB Mem : {total / mib:8.1f} total, {free / mib:8.1f} free, {used / mib:8.1f} used, "
            f"{cache / mib:8.1f} buff/cache") in run(s, "top -b -n 1")


def test_top_lists_training_ranks_first_on_a_job_node():
    s = on("node01")
    lines = run(s, "top -b -n 1").splitlines()
    assert lines[0].startswith("top - 09:00:")
    assert lines[6] == "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND"
    ranks = {r.pid for r in s.cluster.training.ranks if r.node == "node01"}
    first = [int(line.split()[0]) for line in lines[7:15]]
    assert set(first) == ranks
    assert all(line.endswith(" pt_main_thread") for line in lines[7:15])


def test_top_on_an_idle_node_has_no_python():
    out = run(on("node08"), "top -b -n 1")
    assert "pt_main_thread" not in out


def test_ps_aux_shows_ranks_and_loader_workers():
    s = on("node01")
    out = run(s, "ps aux")
    assert out.startswith("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n")
    run_ = s.cluster.training
    for rank in (r for r in run_.ranks if r.node == "node01"):
        assert re.search(rf"^alice +{rank.pid} ", out, re.M)
    assert out.count("python3 -u train.py --config") == 8 * (1 + run_.loader_workers)


def test_ps_p_o_and_missing_pid():
    s = on("node01")
    pid = s.cluster.training.ranks[0].pid
    out = run(s, f"ps -p {pid} -o pid,comm,nlwp")
    assert out == f"    PID COMMAND         NLWP\n {pid:>6} pt_main_thread    97\n"
    assert s.execute("ps -p 999999") == ("    PID TTY          TIME CMD\n", 1)


def test_a_rank_stuck_in_io_sleeps_in_the_kernel():
    s = on(None)
    truth = apply_fault(s.cluster, "straggler", {"kind": "io", "rank": 10}).truth
    run(s, f"ssh {truth['node']}")
    out = run(s, f"ps -o pid,stat,comm -p {truth['pid']}")
    assert out.splitlines()[1].split() == [truth["pid"], "Dl", "pt_main_thread"]
    others = run(s, "top -b -n 1").splitlines()[7]
    assert others.split()[7] == "R" and others.endswith("pt_main_thread")


def test_a_saturated_filesystem_shows_as_iowait_and_blocked_loaders():
    s = on(None)
    apply_fault(s.cluster, "storage-contention", {})
    run(s, "ssh node01")
    cpu = run(s, "top -b -n 1").splitlines()[2]
    assert float(cpu.split(",")[4].split()[0]) > 10.0          # %wa
    states = run(s, "ps -o stat,comm -u alice").splitlines()[1:]
    assert any(line.split() == ["D", "pt_data_worker"] for line in states)
    healthy = on("node01")
    assert float(run(healthy, "top -b -n 1").splitlines()[2].split(",")[4].split()[0]) < 1.0


def test_ps_wchan_names_where_a_blocked_process_waits():
    """wchan: - while running, the Lustre read wait in D, the idle loaders' poll; 6 wide unless last or widened."""
    s = on(None)
    truth = apply_fault(s.cluster, "straggler", {"kind": "io", "rank": 10}).truth
    run(s, f"ssh {truth['node']}")
    out = run(s, f"ps -o pid,stat,wchan,comm -p {truth['pid']}")
    assert out == f"    PID STAT WCHAN  COMMAND\n {truth['pid']:>6} Dl   cl_syn pt_main_thread\n"
    assert run(s, f"ps -o stat,wchan:20 -p {truth['pid']}") == "STAT WCHAN\nDl   cl_sync_io_wait\n"
    assert run(s, f"ps -o pid,wchan:20,comm -p {truth['pid']}").splitlines()[1].split()[1] == "cl_sync_io_wait"
    assert run(s, f"cat /proc/{truth['pid']}/wchan") == "cl_sync_io_wait"
    waits = {tuple(line.split()) for line in run(s, "ps -eo stat,comm,wchan --no-headers").splitlines()}
    assert ("Rl", "pt_main_thread", "-") in waits                      # the other ranks busy-poll in NCCL
    assert ("Ss", "systemd", "do_epoll_wait") in waits and ("Sl", "torchrun", "hrtimer_nanosleep") in waits
    assert ("S", "pt_data_worker", "do_sys_poll") in waits             # idle loaders wait on their index queue


def test_ps_wchan_of_loaders_blocked_on_a_saturated_filesystem():
    s = on(None)
    apply_fault(s.cluster, "storage-contention", {})
    run(s, "ssh node01")
    rows = [line.split() for line in run(s, "ps -C pt_data_worker -o stat=,wchan:20=").splitlines()]
    assert ["D", "cl_sync_io_wait"] in rows
    assert all(w == ("cl_sync_io_wait" if st == "D" else "-" if st.startswith("R") else "do_sys_poll")
               for st, w in rows)


def test_ps_C_selects_by_command_name_and_adds_to_other_selections():
    s = on("node01")
    ranks = run(s, "ps -C pt_main_thread -o comm=").splitlines()
    assert ranks == ["pt_main_thread"] * 8
    both = run(s, "ps -C torchrun,slurmstepd -o comm=").split()
    assert sorted(both) == ["slurmstepd", "torchrun"]
    assert run(s, "ps -C systemd -p 2 -o pid=,comm=").split() == ["1", "systemd", "2", "kthreadd"]
    assert s.execute("ps -C alice") == ("    PID TTY          TIME CMD\n", 1)   # a user's name is no command


def test_taskset_shows_a_misbound_rank_on_the_other_socket():
    s = on(None)
    truth = apply_fault(s.cluster, "numa-misbinding", {"rank": 5}).truth
    run(s, f"ssh {truth['node']}")
    bound = run(s, f"taskset -cp {truth['pid']}")
    assert bound == f"pid {truth['pid']}'s current affinity list: 0-55,112-167\n"   # GPU 5 sits on NUMA 1
    rank0 = s.cluster.training.ranks[0].pid
    assert run(s, f"taskset -p {rank0}") == f"pid {rank0}'s current affinity mask: ffffffffffffff00000000000000ffffffffffffff\n"
    assert s.execute("taskset -cp 999999") == ("taskset: failed to get pid 999999's affinity: No such process\n", 1)


def test_ps_takes_combined_unix_flags_and_header_overrides():
    s = on("node01")
    rank = s.cluster.training.ranks[0]
    out = run(s, "ps -eo pid,psr,comm")
    assert out.splitlines()[0] == "    PID PSR COMMAND"
    assert re.search(rf"^ {rank.pid} +\d+ pt_main_thread$", out, re.M)
    assert run(s, f"ps -p {rank.pid} -o pid=").strip() == str(rank.pid)
    assert run(s, "ps -p 1 -o pid,comm=NAME").splitlines()[0] == "    PID NAME"
    assert s.execute("ps -o")[1] == 1


def test_pgrep_finds_the_training_ranks_that_ps_lists():
    s = on("node01")
    ranks, status = s.execute("pgrep -f train.py")
    table, _ = s.execute("ps -eo pid,args")
    listed = {line.split()[0] for line in table.splitlines() if "train.py" in line}
    assert status == 0 and set(ranks.split()) == listed and listed
    assert s.execute("pgrep no-such-process") == ("", 1)


# -- the declared flags ------------------------------------------------------------------------

#: A valid use of each declared flag (by long name, else short); ``{}`` stands for the spelling, ``PID`` for a rank's.
FLAG_USES = {
    Ps: {"--help": "{}", "-e": "{}", "-A": "{}", "-f": "-e {}", "-F": "-e {}", "--format": "{} pid,comm",
         "-O": "{} pid", "--pid": "{} PID", "--user": "{} alice", "-U": "{} alice", "-C": "{} pt_main_thread", "-w": "{}",
         "--sort": "-e {} -pid", "--no-headers": "-e {}", "--no-heading": "-e {}"},
    Taskset: {"--help": "{}", "--cpu-list": "{} -p PID", "--pid": "{} PID", "--all-tasks": "{} -p PID"},
}


@pytest.mark.parametrize("command", FLAG_USES, ids=lambda command: command.name)
def test_every_declared_flag_is_accepted(command):
    uses = FLAG_USES[command]
    assert {flag.long or flag.short for flag in command.flags} == set(uses)
    s = on("node01")
    pid = str(s.cluster.training.ranks[0].pid)
    for flag in command.flags:
        for spelling in flag.strings():
            run(s, f"{command.name} " + uses[flag.long or flag.short].format(spelling).replace("PID", pid))
