"""/proc/<pid> and the boot ID render from the model and agree with ps, pgrep, taskset and journalctl."""

from __future__ import annotations

import re

from emulator.cluster import lifecycle
from tests.support import on


def _status(s, pid: int) -> dict[str, str]:
    out, status = s.execute(f"cat /proc/{pid}/status")
    assert status == 0, out
    return dict(line.split(":\t", 1) for line in out.splitlines())


def test_a_rank_status_agrees_with_ps_and_taskset():
    s = on("node01")
    pid = int(s.execute("pgrep pt_main_thread")[0].split()[0])
    fields = _status(s, pid)
    ps = s.execute(f"ps -o ppid=,stat=,rss=,nlwp=,comm= -p {pid}")[0].split()
    assert fields["Name"] == ps[4] == "pt_main_thread"
    assert fields["Pid"] == fields["Tgid"] == str(pid)
    assert fields["PPid"] == ps[0]
    assert fields["State"] == "R (running)" and ps[1].startswith("R")
    assert fields["VmRSS"] == f"{int(ps[2]):>8} kB"
    assert fields["Threads"] == ps[3] == "97"
    uid = s.execute("id -u")[0].strip()
    assert fields["Uid"] == fields["Gid"] == "\t".join([uid] * 4) and uid == "1001"
    groups = re.findall(r"(\d+)\(", s.execute("id")[0].split("groups=")[1])
    assert fields["Groups"].split() == sorted(groups, key=int) == ["44", "1001", "1500"]
    affinity = s.execute(f"taskset -cp {pid}")[0].rsplit(": ", 1)[1].strip()
    assert fields["Cpus_allowed_list"] == affinity == "0-55,112-167"
    assert fields["Cpus_allowed"] == "00000000,000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff"


def test_every_listed_process_has_a_directory_and_nothing_else_does():
    s = on("node02")
    pids = sorted(int(p) for p in s.execute("ps -eo pid=")[0].split())
    listed = sorted(int(name) for name in s.execute("ls /proc")[0].split() if name.isdecimal())
    assert listed == pids
    assert s.execute("cat /proc/4/status") == ("cat: /proc/4/status: No such file or directory\n", 1)
    assert s.execute("cat /proc/1/comm") == ("systemd\n", 0)


def test_a_kernel_thread_has_no_memory_lines():
    fields = _status(on("node03"), 2)
    assert fields["Name"] == "kthreadd" and "VmRSS" not in fields and fields["PPid"] == "0"


def test_cmdline_is_nul_separated():
    s = on("node01")
    pid = s.execute("pgrep torchrun")[0].split()[0]
    out, _ = s.execute(f"cat /proc/{pid}/cmdline")
    assert out.startswith("/usr/bin/python3\0/usr/local/bin/torchrun\0--nnodes=") and out.endswith("\0")


def test_boot_id_is_stable_names_the_journal_boot_and_changes_with_a_reboot():
    s = on("node05")
    first, _ = s.execute("cat /proc/sys/kernel/random/boot_id")
    again, _ = s.execute("cat /proc/sys/kernel/random/boot_id")
    assert first == again and len(first) == 37 and first.count("-") == 4
    listed = s.execute("journalctl --list-boots")[0].splitlines()[-1].split()[1]
    assert first.strip().replace("-", "") == listed
    assert on("node06").execute("cat /proc/sys/kernel/random/boot_id")[0] != first
    login = on(None)
    assert login.execute("ssh node05 cat /proc/sys/kernel/random/boot_id")[0] == first
    lifecycle.reset(login.cluster, login.cluster.nodes["node05"], login.cluster.clock.elapsed, cycle=False)
    login.cluster.clock.advance(lifecycle.BOOT_S + 1.0)
    rebooted, status = login.execute("ssh node05 cat /proc/sys/kernel/random/boot_id")
    assert status == 0 and rebooted != first
    assert rebooted.strip().replace("-", "") == \
        login.execute("ssh node05 journalctl --list-boots")[0].splitlines()[-1].split()[1]


def test_numa_maps_binds_a_rank_to_its_gpus_node_and_leaves_others_at_the_default():
    s = on("node01")
    pids = [int(p) for p in s.execute("pgrep pt_main_thread")[0].split()]
    first, last = min(pids), max(pids)         # local rank 0 (GPU0, node 0) and 7 (GPU7, node 1)
    for pid, numa in ((first, "0"), (last, "1")):
        maps = s.execute(f"cat /proc/{pid}/numa_maps")[0].splitlines()
        assert maps and all(re.fullmatch(rf"[0-9a-f]+ bind:{numa} .* N{numa}=\d+ kernelpagesize_kB=4", m) for m in maps)
        starts = [int(m.split()[0], 16) for m in maps]
        assert starts == sorted(starts) and starts[-1] < 1 << 47
    daemon = s.execute("cat /proc/1/numa_maps")[0].splitlines()
    assert daemon and all(re.search(r" default .* N0=\d+ N1=\d+ kernelpagesize_kB=4$", m) for m in daemon)
    kthread = s.execute("cat /proc/2/numa_maps")
    assert kthread == ("", 0)
