"""One account and one boot across the tools: alice's uid, the boot ID's UUID version, pgrep -o/-n."""

from __future__ import annotations

import re

from tests.support import on


def test_alice_has_one_uid_in_id_proc_ps_and_slurm() -> None:
    s = on(None)
    assert s.execute("id -u")[0] == "1001\n"
    uid = "1001"
    status = s.execute("ssh node01 'cat /proc/$(pgrep -o torchrun)/status'")[0]
    assert re.search(r"^Uid:\t1001\t1001\t1001\t1001$", status, re.M), status
    rows = s.execute("ssh node01 ps -eo uid,user,comm")[0].splitlines()
    assert rows[0].split() == ["UID", "USER", "COMMAND"]
    assert {r.split()[0] for r in rows[1:] if r.split()[1] == "alice"} == {uid}
    assert s.execute("ps -o uid=,ruid=,euid=")[0].split() == [uid] * 6
    jobs = s.execute("squeue -h -u alice -o '%i %U'")[0].splitlines()
    assert jobs and {line.split()[1] for line in jobs} == {uid}
    job = jobs[0].split()[0]
    assert f"UserId=alice({uid}) GroupId=alice({uid})" in s.execute(f"scontrol show job {job}")[0]
    assert set(s.execute("sacct -n -X -u alice -o uid")[0].split()) == {uid}
    s.execute("touch ~/mine")
    assert s.execute("ls -ln ~/mine")[0].split()[2:4] == [uid, uid]
    assert s.execute("ls -n /home")[0].splitlines()[1].split()[2:4] == [uid, uid]
    # bob keeps an account of his own.
    assert "bob(1002)" in s.execute("squeue -h -u bob -o %i | head -1 | xargs scontrol show job")[0]


def test_boot_ids_are_version_4_uuids_stable_per_boot() -> None:
    s = on(None)
    for host in ("login01", "node01", "node02", "node08"):
        text = s.execute(f"ssh {host} cat /proc/sys/kernel/random/boot_id")[0].strip()
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", text), text
        assert s.execute(f"ssh {host} cat /proc/sys/kernel/random/boot_id")[0].strip() == text
        listed = s.execute(f"ssh {host} journalctl --list-boots")[0].splitlines()[-1].split()[1]
        assert listed == text.replace("-", "")


def test_pgrep_oldest_and_newest() -> None:
    s = on("node01")
    pids = [int(p) for p in s.execute("pgrep pt_main")[0].split()]
    assert len(pids) == 8
    assert s.execute("pgrep -o pt_main") == (f"{min(pids)}\n", 0)
    assert s.execute("pgrep --newest pt_main") == (f"{max(pids)}\n", 0)
    assert s.execute("pgrep -l -n pt_data")[0].endswith(" pt_data_worker\n")
    assert s.execute("pgrep -o") == ("1\n", 0)  # -o alone is a criterion: the oldest process, init
    assert s.execute("pgrep -o nosuchprocess") == ("", 1)
    out, status = s.execute("pgrep -o -n pt_main")
    assert status == 2 and out.startswith("Usage:\n pgrep [options] <pattern>")


def test_every_pci_function_sits_on_the_numa_node_of_its_bus_range() -> None:
    s = on(None)
    for host in ("node01", "node04", "login01"):
        blocks = s.execute(f"ssh {host} lspci -vv")[0].split("\n\n")
        numa = {b.split()[0]: re.search(r"NUMA node: (\d+)", b) for b in blocks if b.strip()}
        assert len(numa) >= 10 and all(numa.values())
        sockets = int(s.execute(f"ssh {host} lscpu | grep 'Socket(s):'")[0].split()[-1])
        for bus, found in numa.items():
            assert found is not None
            node = found.group(1)
            if sockets == 2:
                assert node == ("0" if int(bus[:2], 16) < 0x80 else "1"), (host, bus)
            sysfs = s.execute(f"ssh {host} cat /sys/bus/pci/devices/0000:{bus}/numa_node")[0]
            assert sysfs == f"{node}\n", (host, bus)
    nvme = s.execute("ssh node01 lspci -vv -s 66:00.0")[0]
    assert "Non-Volatile memory controller" in nvme and "NUMA node: 0" in nvme
    topo = s.execute("ssh node01 nvidia-smi topo -m")[0]
    for gpu in range(8):
        bus = s.execute(f"ssh node01 nvidia-smi -i {gpu} --query-gpu=pci.bus_id --format=csv,noheader")[0]
        row = next(line for line in topo.splitlines() if line.startswith(f"GPU{gpu}\t") or line.startswith(f"GPU{gpu} "))
        assert row.split()[-2] == ("0" if int(bus.split(":")[1], 16) < 0x80 else "1"), row
