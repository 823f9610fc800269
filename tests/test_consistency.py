"""One incident reads the same in every tool.

For the faulty node of several labs and seeds, the test types what an
operator would and checks that every tool showing an identifier, a rate, a
state or an instant shows the same one: GPU bus ids, UUIDs and serials; mlx5
names, LIDs, GUIDs and rates; the failed node and the job's end; the UTC
instant of the event in the kernel log, the journal, the SEL and the job's
files. It also checks that simulated time moves every one of them together.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from emulator.cluster.jobfiles import mtimes as log_mtimes
from emulator.cluster.timeline import failed_at
from emulator.session import Session

JOB = 48213
JOBDIR = "/lustre/jobs/llm-pretrain"
IPMI = "ipmitool -I lanplus -H {node}-bmc -U admin -P admin"


def sh(s: Session, line: str, ok: bool = True) -> str:
    """Type ``line``; its output (stdout and stderr in order)."""
    out, status = s.execute(line)
    assert not ok or status == 0, f"{line!r} -> {status}\n{out}"
    return out


def truth(s: Session) -> dict[str, str]:
    return s.cluster.faults[0].truth if s.cluster.faults else {}


def bus(pci_tag: str) -> str:
    """Any spelling of a GPU's PCI address (``1b:00.0``, ``0000:1b:00``, ``00000000:1B:00.0``) → ``1B``."""
    m = re.search(r"(?:[0-9a-fA-F]{4,8}:)?([0-9a-fA-F]{2}):00(?:\.0)?$", pci_tag)
    assert m, pci_tag
    return m.group(1).upper()


# -- GPUs: bus ids, UUIDs, serials, pids --------------------------------------------------------

GPU_CASES = [("diagnostic-snapshot", 0), ("diagnostic-snapshot", 1), ("diagnostic-snapshot", 2),
             ("gpu-data-path", 1), ("nvlink", 1), ("sandbox", 0)]


def query_gpus(s: Session) -> dict[str, tuple[str, str, str]]:
    """bus → (index, uuid, serial) from ``nvidia-smi --query-gpu``."""
    out, _ = s.execute("nvidia-smi --query-gpu=index,pci.bus_id,uuid,serial --format=csv,noheader")
    rows = [line.split(", ") for line in out.splitlines() if not line.startswith("Unable to determine")]
    return {bus(r[1]): (r[0], r[2], r[3]) for r in rows}


def lost(s: Session) -> set[str]:
    """Buses of GPUs the driver lost (nvidia-smi cannot get a handle)."""
    out, _ = s.execute("nvidia-smi -L")
    return {bus(b) for b in re.findall(r"device handle for gpu (\S+): Unknown Error", out)}


def smi_q(s: Session) -> dict[str, tuple[str, str]]:
    """bus → (uuid, serial) from the ``nvidia-smi -q`` blocks."""
    found: dict[str, tuple[str, str]] = {}
    out, _ = s.execute("nvidia-smi -q")
    for block in re.split(r"^(?=GPU [0-9A-F]{8}:)", out, flags=re.M)[1:]:
        head = block.split("\n", 1)[0]
        uuid = re.search(r"^\s+GPU UUID\s+: (\S+)", block, re.M)
        serial = re.search(r"^\s+Serial Number\s+: (\S+)", block, re.M)
        inner = re.search(r"^\s+Bus Id\s+: (\S+)", block, re.M)
        assert uuid and serial and inner, block[:300]
        assert bus(inner.group(1)) == bus(head[4:]), "the block's Bus Id is its heading's"
        found[bus(head[4:])] = (uuid.group(1), serial.group(1))
    return found


@pytest.mark.parametrize(("lab", "seed"), GPU_CASES)
def test_every_gpu_tool_names_the_same_gpus_by_the_same_bus_ids_uuids_and_serials(lab: str, seed: int) -> None:
    s = Session(lab=lab, seed=seed)
    node = truth(s).get("node", "node01")
    sh(s, f"ssh {node}")
    csv = query_gpus(s)
    gone = lost(s)
    assert len(csv) + len(gone) == len(s.cluster.nodes[node].gpus) and not gone & set(csv)
    if not gone:  # with a GPU lost, nvidia-smi -q stops at it
        assert smi_q(s) == {b: (u, ser) for b, (_i, u, ser) in csv.items()}
        topo = re.findall(r"^GPU(\d+)\t", sh(s, "nvidia-smi topo -m"), re.M)
        assert sorted(topo, key=int) == sorted((i for i, _u, _s in csv.values()), key=int)
    else:
        assert set(smi_q(s).items()) <= {(b, (u, ser)) for b, (_i, u, ser) in csv.items()}

    out, _ = s.execute("nvidia-smi -L")
    listed = re.findall(r"^GPU (\d+): .*\(UUID: (\S+)\)$", out, re.M)
    assert {i: u for i, u in listed} == {i: u for i, u, _s in csv.values()}

    dcgm = sh(s, "dcgmi discovery -l")
    pairs = re.findall(r"PCI Bus ID: (\S+)\s*\|\s*\n\|\s+\| Device UUID: (\S+)", dcgm)
    assert {bus(b): u for b, u in pairs} == {b: u for b, (_i, u, _s) in csv.items()}

    lspci = re.findall(r"^([0-9a-f]{2}:00\.0) 3D controller: NVIDIA", sh(s, "lspci"), re.M)
    assert len(lspci) == len(s.cluster.nodes[node].gpus), "lspci lists every GPU in the slots, even one off the bus"
    assert set(csv) <= {bus(a) for a in lspci}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_xid_names_the_gpu_and_the_rank_pid_that_every_other_tool_names(seed: int) -> None:
    s = Session(lab="diagnostic-snapshot", seed=seed)
    t = truth(s)
    sh(s, f"ssh {t['node']}")
    dmesg = sh(s, "dmesg -T")
    xids = re.findall(r"^\[([^\]]+)\] NVRM: Xid \(PCI:([0-9a-f:]+)\): (\d+), pid=(\d+|'<unknown>'),", dmesg, re.M)
    assert xids, dmesg[-2000:]
    assert {bus(b) for _t, b, _x, _p in xids} == {bus(t["bus_id"])}
    assert t["xid"] in {x for _t, _b, x, _p in xids}
    banner = re.search(r"NVRM: GPU at PCI:([0-9a-f:]+): (\S+)\n.*NVRM: GPU Board Serial Number: (\d+)", dmesg)
    assert banner and bus(banner.group(1)) == bus(t["bus_id"])
    assert (banner.group(2), banner.group(3)) == (t["uuid"], t["serial"])
    csv = query_gpus(s)
    if bus(t["bus_id"]) in csv:  # a GPU that fell off the bus is not in nvidia-smi any more
        assert csv[bus(t["bus_id"])][1:] == (t["uuid"], t["serial"])
        assert csv[bus(t["bus_id"])][0] == t["gpu"]
    # The pid in the Xid is the rank that ran on that GPU: the launcher's report names it for local rank 0,
    # and its node's ranks follow in steps of 7 (ps lists them while they run).
    pids = {int(p) for _t, _b, _x, p in xids if p.isdigit()}
    if t["xid"] == "79":
        assert not pids, "the driver cannot name a process once the GPU is off the bus"
        return
    run = s.cluster.training
    assert run is not None
    on_gpu = [r.pid for r in run.ranks if r.node == t["node"] and r.gpu == int(t["gpu"])]
    assert pids == set(on_gpu)
    slurm = sh(s, f"cat {JOBDIR}/slurm-{JOB}.out")
    first = re.findall(r"failed \(exitcode: -6\) local_rank: 0 \(pid: (\d+)\)", slurm)
    node_first = min(r.pid for r in run.ranks if r.node == t["node"])
    assert str(node_first) in first
    assert min(pids) - node_first == 7 * int(t["gpu"])


@pytest.mark.parametrize(("lab", "seed"), [("late-rank", 1), ("topology", 0), ("sandbox", 0)])
def test_a_running_rank_has_one_pid_in_nvidia_smi_ps_top_and_py_spy(lab: str, seed: int) -> None:
    s = Session(lab=lab, seed=seed)
    node = truth(s).get("node", "node01")
    sh(s, f"ssh {node}")
    apps = [line.split(", ") for line in sh(s, "nvidia-smi --query-compute-apps=pid,gpu_bus_id,gpu_uuid "
                                            "--format=csv,noheader").splitlines()]
    csv = query_gpus(s)
    assert len(apps) == len(csv)
    for _pid, gpu_bus, uuid in apps:
        assert csv[bus(gpu_bus)][1] == uuid
    table = re.findall(r"^\|\s+(\d+)\s+N/A\s+N/A\s+(\d+)\s+C\s", sh(s, "nvidia-smi"), re.M)
    assert {(csv[bus(b)][0], p) for p, b, _u in apps} == set(table)
    ps = set(re.findall(r"^alice\s+(\d+) .* -u train\.py", sh(s, "ps aux"), re.M))
    assert {p for p, _b, _u in apps} <= ps
    top = set(re.findall(r"^\s*(\d+) alice .* pt_main_thread$", sh(s, "top -b -n 1"), re.M))
    assert top <= ps and top
    for pid, _b, _u in apps[:2]:
        assert sh(s, f"py-spy dump --pid {pid}").startswith(f"Process {pid}: /usr/bin/python3 -u train.py")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_misbound_rank_sits_on_the_other_numa_node_than_its_gpu_in_every_tool(seed: int) -> None:
    """CPUs misbound: taskset shows the other node's CPUs while numa_maps binds to the GPU's node. Memory
    misbound: taskset shows the GPU's own CPUs, and only numa_maps names the other node."""
    s = Session(lab="topology", seed=seed)
    t = truth(s)
    sh(s, f"ssh {t['node']}")
    numa = {m.group(1): m.group(2) for m in re.finditer(r"^node (\d+) cpus: (.+)$", sh(s, "numactl -H"), re.M)}
    rows = re.findall(r"^GPU(\d+)\t.*\t(\S+)\t(\d+)\t\tN/A$", sh(s, "nvidia-smi topo -m"), re.M)
    cpus, gpu_numa = next((c, n) for g, c, n in rows if g == t["gpu"])
    gpu_bus = next(b for b, (i, _u, _s) in query_gpus(s).items() if i == t["gpu"]).lower()
    assert gpu_numa == sh(s, f"cat /sys/bus/pci/devices/0000:{gpu_bus}:00.0/numa_node").strip()
    bound = re.search(r"current affinity list: (\S+)", sh(s, f"taskset -cp {t['pid']}")).group(1)  # type: ignore[union-attr]
    assert t["numa"] != gpu_numa and bound == t["cpus"]
    maps = sh(s, f"cat /proc/{t['pid']}/numa_maps")
    memory_node = t["numa"] if t["cause"] == "memory-misbinding" else gpu_numa
    assert set(re.findall(r"^[0-9a-f]+ (bind:\d+) ", maps, re.M)) == {f"bind:{memory_node}"}
    assert set(re.findall(r" N(\d+)=", maps)) == {memory_node}
    if t["cause"] == "memory-misbinding":
        assert bound == cpus
        return
    assert bound != cpus

    def expand(text: str) -> set[int]:
        out: set[int] = set()
        for part in text.replace(" ", ",").split(","):
            if "-" in part:
                lo, hi = part.split("-")
                out |= set(range(int(lo), int(hi) + 1))
            elif part:
                out.add(int(part))
        return out

    assert expand(bound) == expand(numa[t["numa"]])
    psr = int(sh(s, f"ps -o psr= -p {t['pid']}"))
    assert psr in expand(numa[t["numa"]])


# -- InfiniBand ports: names, LIDs, GUIDs, rates ------------------------------------------------

IB_CASES = [("fabric-triage", 0), ("fabric-triage", 1), ("fabric-triage", 2), ("multi-node-slowdown", 1)]


@pytest.mark.parametrize(("lab", "seed"), IB_CASES)
def test_the_faulty_port_has_one_name_lid_guid_and_rate_in_every_fabric_tool(lab: str, seed: int) -> None:
    s = Session(lab=lab, seed=seed)
    t = truth(s)
    port = t["port"]
    sh(s, f"ssh {t['node']}")
    ibstat = sh(s, f"ibstat {port}")
    rate = int(re.search(r"Rate: (\d+)", ibstat).group(1))  # type: ignore[union-attr]
    lid = int(re.search(r"Base lid: (\d+)", ibstat).group(1))  # type: ignore[union-attr]
    guid = re.search(r"Port GUID: 0x([0-9a-f]{16})", ibstat).group(1)  # type: ignore[union-attr]
    assert (str(lid), "0x" + guid) == (t["lid"], t["guid"])
    if "rate" in t:
        assert rate == int(t["rate"])
    colon = ":".join(guid[i:i + 4] for i in range(0, 16, 4))

    ibstatus = sh(s, f"ibstatus {port}")
    assert f"Infiniband device '{port}' port 1 status:" in ibstatus
    assert re.search(rf"base lid:\s+0x{lid:x}\n", ibstatus)
    assert re.search(rf"rate:\s+{rate} Gb/sec \(", ibstatus)
    assert f"fe80:0000:0000:0000:{colon}" in ibstatus

    assert sh(s, f"perfquery -x -C {port} -P 1").startswith(f"# Port extended counters: Lid {lid} port 1")

    devinfo = sh(s, f"ibv_devinfo -d {port} -v")
    assert f"hca_id:\t{port}" in devinfo and f"node_guid:\t\t\t{colon}" in devinfo
    assert re.search(rf"port_lid:\s+{lid}\n", devinfo)
    width = int(re.search(r"active_width:\s+(\d+)X", devinfo).group(1))  # type: ignore[union-attr]
    lane = float(re.search(r"active_speed:\s+([\d.]+) Gbps", devinfo).group(1))  # type: ignore[union-attr]
    assert width * lane == rate

    sysfs = f"/sys/class/infiniband/{port}"
    assert sh(s, f"cat {sysfs}/ports/1/rate").startswith(f"{rate} Gb/sec (")
    assert sh(s, f"cat {sysfs}/ports/1/lid") == f"0x{lid:x}\n"
    assert sh(s, f"cat {sysfs}/node_guid") == colon + "\n"
    assert sh(s, f"cat {sysfs}/ports/1/rate") == re.search(r"rate:\s+(.+)\n", ibstatus).group(1) + "\n"  # type: ignore[union-attr]


def _busbw(out: str, size: int) -> float:
    row = re.search(rf"^\s+{size}\s+\d+\s+float\s+sum\s+-1\s+\S+\s+\S+\s+(\S+)", out, re.M)
    assert row, out[-1500:]
    return float(row.group(1))


@pytest.mark.parametrize("seed", [1])
def test_nccl_uses_the_ports_ibstat_lists_and_its_busbw_follows_the_slowest_port(seed: int) -> None:
    s = Session(lab="multi-node-slowdown", seed=seed)
    t = truth(s)
    assert t["cause"] == "link-rate"
    # 1 GiB buffers fit beside the job (4 GiB do not); beside it the test gets half of each GPU, in both sessions.
    out = sh(s, f"NCCL_DEBUG=INFO srun --jobid {JOB} --overlap -N 4 --ntasks-per-node=8 all_reduce_perf -b 1G -e 1G -g 1")
    using = re.findall(rf"^{t['node']}:\d+:\d+ \[\d\] NCCL INFO NET/IB : Using (.+?) \[RO\]", out, re.M)
    assert len(using) == 8
    devices = set(re.findall(r"\[\d+\](mlx5_\d+):1/IB", using[0]))
    sh(s, f"ssh {t['node']}")
    rails = {c for c in re.findall(r"^CA '(mlx5_\d+)'", sh(s, "ibstat"), re.M)}
    assert t["port"] in devices and devices <= rails
    sh(s, "exit")
    healthy = Session(lab="sandbox", seed=seed)
    base = _busbw(sh(healthy, f"srun --jobid {JOB} --overlap -N 4 --ntasks-per-node=8 all_reduce_perf -b 1G -e 1G -g 1"),
                  1 << 30)
    slow = _busbw(out, 1 << 30)
    # The ring runs at its slowest hop: one port at half rate halves the job-wide busbw.
    assert slow / base == pytest.approx(int(t["rate"]) / 400, rel=0.08)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_jobs_nccl_transport_lines_follow_its_hca_list_and_name_real_devices_and_addresses(seed: int) -> None:
    s = Session(lab="nccl-transport", seed=seed)
    script = sh(s, "cat /home/alice/jobs/pretrain.sbatch")
    hca = re.search(r"^export NCCL_IB_HCA=(\S+)$", script, re.M)
    out = sh(s, f"cat {JOBDIR}/slurm-{JOB}.out")
    using = re.findall(r"^(node\d+):\d+:\d+ \[(\d)\] NCCL INFO NET/IB : Using (.+?) \[RO\]; OOB (\w+):([\d.]+)<0>$", out, re.M)
    sockets = re.findall(r"^(node\d+):\d+:\d+ \[\d\] NCCL INFO NET/Socket : Using \[0\](\w+):([\d.]+)<0>$", out, re.M)
    assert using or sockets
    for node, _gpu, devices, ifname, addr in using:
        names = re.findall(r"\[\d+\](mlx5_\d+):1/IB", devices)
        cas = re.findall(r"^CA '(mlx5_\d+)'", sh(s, f"ssh {node} ibstat"), re.M)
        assert set(names) <= set(cas)
        if hca and not hca.group(1).startswith("^"):
            assert all(any(n == h or n.startswith(h) for h in hca.group(1).split(",")) for n in names)
        assert f"inet {addr}/" in sh(s, f"ssh {node} ip addr show {ifname}")
    for node, ifname, addr in sockets[:2]:
        assert f"inet {addr}/" in sh(s, f"ssh {node} ip addr show {ifname}")


# -- A failed node: Slurm, ssh, the BMC, the snapshot ----------------------------------------------


def _stamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_node_that_went_down_is_the_same_node_at_the_same_instants_in_every_tool(seed: int) -> None:
    s = Session(lab="out-of-band", seed=seed)
    t = truth(s)
    node = t["node"]
    job = s.cluster.slurm.job(JOB)
    assert job is not None and job.state == "NODE_FAIL" and job.failed_node == node

    reasons = re.findall(r"^Not responding\s+slurm\s+(\S+) (\S+)$", sh(s, "sinfo -R"), re.M)
    assert [n for _w, n in reasons] == [node]
    noticed = _stamp(reasons[0][0])
    assert re.search(rf"^gpu\*\s+up\s+\S+\s+1\s+down\* {node}$", sh(s, "sinfo"), re.M)
    assert f"Reason=Not responding [slurm@{reasons[0][0]}]" in sh(s, f"scontrol show node {node}")
    assert str(JOB) not in sh(s, "squeue"), "a job that ended leaves the default listing"

    acct = sh(s, f"sacct -X -j {JOB} -n -P -o state,exitcode,end,failednode,nodelist")
    assert acct == f"NODE_FAIL|0:0|{reasons[0][0]}|{node}|node[01-04]\n"
    shown, status = s.execute(f"scontrol show job {JOB}")
    if s.cluster.clock.now().replace(tzinfo=None) - noticed <= timedelta(seconds=300):  # MinJobAge
        assert "JobState=NODE_FAIL Reason=NodeDown" in shown and f"EndTime={reasons[0][0]}" in shown
    else:
        assert (shown, status) == ("slurm_load_jobs error: Invalid job id specified\n", 1)

    assert sh(s, f"ssh {node} true", ok=False) == f"ssh: connect to host {node} port 22: No route to host\n"

    sel = sh(s, IPMI.format(node=node) + " sel elist")
    events = [(datetime.strptime(f"{d} {h}", "%m/%d/%Y %H:%M:%S"), what)
              for d, h, what in re.findall(r"\| (\d\d/\d\d/\d{4}) \| (\d\d:\d\d:\d\d) \| (.+)$", sel, re.M)]
    # slurmctld gives up on the node SlurmdTimeout (300 s) after the event the SEL records (power lost,
    # machine check, OS stop, watchdog).
    assert any(noticed - when == timedelta(seconds=300) for when, _what in events)
    power = re.search(r"System Power\s+: (\w+)", sh(s, IPMI.format(node=node) + " chassis status"))
    assert power and power.group(1) == ("off" if t["cause"] == "psu-failure" else "on")

    sh(s, f"diag-snapshot --job {JOB} -o /home/alice/snap.txt")
    manifest = sh(s, "diag-snapshot --extract /home/alice/snap.txt MANIFEST")
    assert re.search(rf"reason: ssh: connect to host {node} port 22: No route to host", manifest)
    assert {m for m in re.findall(r"^\s+(node\d+)/nvidia-smi-q\.txt\s+\$", manifest, re.M)} == {node}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_node_failure_ends_the_jobs_files_at_the_kill_with_slurmstepds_notice(seed: int) -> None:
    s = Session(lab="out-of-band", seed=seed)
    t = truth(s)
    job = s.cluster.slurm.job(JOB)
    assert job is not None and job.end_s is not None
    end = s.cluster.clock.at(job.end_s)
    out_before = sh(s, f"cat {JOBDIR}/slurm-{JOB}.out")
    log_before = sh(s, f"cat {JOBDIR}/train.log")
    sh(s, "sleep 600")
    assert sh(s, f"cat {JOBDIR}/slurm-{JOB}.out") == out_before
    assert sh(s, f"cat {JOBDIR}/train.log") == log_before
    last_step = re.findall(r"^(\S+ \S+),\d+ INFO \[train\.py:212\] step", log_before, re.M)[-1]
    assert datetime.strptime(last_step, "%Y-%m-%d %H:%M:%S") < end.replace(tzinfo=None)
    batch_host = "node01"
    when = end.strftime("%Y-%m-%dT%H:%M:%S")
    if t["node"] == batch_host:
        assert "slurmstepd" not in out_before, "the batch script and srun died with their host"
    else:
        notice = f"CANCELLED AT {when} DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"
        survivors = [n for n in ("node01", "node02", "node03", "node04") if n != t["node"]]
        assert out_before.endswith("\n".join([
            f"srun: error: Node failure on {t['node']}",
            f"slurmstepd: error: *** JOB {JOB} ON {batch_host} {notice}",
            "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
            *[f"slurmstepd: error: *** STEP {JOB}.0 ON {n} {notice}" for n in survivors]]) + "\n")


@pytest.mark.parametrize(("lab", "seed"), [("out-of-band", 2), ("diagnostic-snapshot", 0), ("late-rank", 1)])
def test_once_the_job_has_ended_its_ranks_are_gone_from_every_tool_on_its_surviving_nodes(lab: str, seed: int) -> None:
    s = Session(lab=lab, seed=seed)
    sh(s, "sleep 300")
    job = s.cluster.slurm.job(JOB)
    assert job is not None and job.state in ("NODE_FAIL", "FAILED")
    node = next(n for n in job.nodes if n != job.failed_node)
    sh(s, f"ssh {node}")
    util = sh(s, "nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits")
    assert {line for line in util.splitlines()} == {"0, 1"}
    assert sh(s, "nvidia-smi --query-compute-apps=pid --format=csv,noheader") == ""
    assert "No running processes found" in sh(s, "nvidia-smi")
    assert not re.search(r"train\.py|torchrun", sh(s, "ps aux"))
    assert "pt_main_thread" not in sh(s, "top -b -n 1")
    assert {row.split()[2] for row in sh(s, "dcgmi dmon -e 203 -c 1").splitlines()[2:]} == {"0"}


def test_the_panic_on_the_serial_console_is_the_instant_the_sel_records() -> None:
    s = Session(lab="out-of-band", seed=2)
    t = truth(s)
    assert t["cause"] == "kernel-panic"
    node = s.cluster.nodes[t["node"]]
    sel = sh(s, IPMI.format(node=t["node"]) + " sel elist")
    stop = re.search(r"\| (\d\d/\d\d/\d{4}) \| (\S+) \| OS Critical Stop", sel)
    assert stop
    console = sh(s, IPMI.format(node=t["node"]) + " sol activate")
    uptime = float(re.search(r"^\[\s*([\d.]+)\] Kernel panic", console, re.M).group(1))  # type: ignore[union-attr]
    panic = s.cluster.clock.at(node.health.boots[-1].offset_s + uptime).replace(tzinfo=None)
    recorded = datetime.strptime(" ".join(stop.groups()), "%m/%d/%Y %H:%M:%S")
    assert timedelta(0) <= panic - recorded < timedelta(seconds=1)


def test_every_rail_netdev_names_the_pci_slot_lspci_shows_and_topo_lists_the_same_nics() -> None:
    s = Session(lab="fabric-triage", seed=0)
    sh(s, "ssh node02")
    pairs = re.findall(r"^(mlx5_\d+) port 1 ==> (\S+) \(Up\)$", sh(s, "ibdev2netdev"), re.M)
    lspci = dict(re.findall(r"^([0-9a-f]{2}):00\.0 (Infiniband|Ethernet) controller: Mellanox", sh(s, "lspci"), re.M))
    for dev, netdev in pairs:
        m = re.fullmatch(r"(?:ibp|enp)(\d+)s0(?:f0np0)?", netdev)
        assert m, netdev
        kind = lspci[f"{int(m.group(1)):02x}"]
        assert (kind == "Infiniband") == netdev.startswith("ib"), (dev, netdev, kind)
    legend = re.findall(r"^  NIC(\d+): (mlx5_\d+)$", sh(s, "nvidia-smi topo -m"), re.M)
    assert [d for _n, d in legend] == [d for d, _n in pairs]
    cas = re.findall(r"^CA '(mlx5_\d+)'", sh(s, "ibstat"), re.M)
    assert cas == [d for d, _n in pairs]


# -- A rank that hangs: RUNNING until the watchdog tears it down, FAILED after ------------------------


def _states(s: Session) -> tuple[str, str, str, str]:
    """(squeue's default listing, sacct State|ExitCode, scontrol JobState, compute apps on the rank's node)."""
    squeue = sh(s, "squeue -h -u alice -o '%i %t'")
    acct = sh(s, f"sacct -X -n -P -j {JOB} -o state,exitcode").strip()
    m = re.search(r"JobState=(\S+)", sh(s, f"scontrol show job {JOB}"))
    assert m
    apps = sh(s, f"ssh {truth(s)['node']} nvidia-smi --query-compute-apps=pid --format=csv,noheader")
    return squeue, acct, m.group(1), apps


@pytest.mark.parametrize("seed", [1, 4, 7])
def test_a_hung_job_reads_running_until_the_teardown_and_failed_after_in_every_tool(seed: int) -> None:
    s = Session(lab="late-rank", seed=seed)
    t = truth(s)
    assert t["cause"] == "io"
    down = failed_at(s.cluster)
    assert down is not None and down > s.cluster.clock.elapsed + 10
    squeue, acct, state, apps = _states(s)
    assert f"{JOB} R" in squeue and acct == "RUNNING|0:0" and state == "RUNNING" and t["pid"] in apps
    assert t["pid"] in sh(s, f"ssh {t['node']} ps aux")
    sh(s, f"sleep {int(down - s.cluster.clock.elapsed) + 1}")
    squeue, acct, state, apps = _states(s)
    assert str(JOB) not in squeue and acct == "FAILED|1:0" and state == "FAILED" and apps == ""
    assert t["pid"] not in sh(s, f"ssh {t['node']} ps aux")
    assert "FAILED" in sh(s, f"squeue -t all -h -j {JOB} -o %T")
    out = sh(s, f"cat {JOBDIR}/slurm-{JOB}.out")
    teardown = re.findall(r"^E(\d{4}) (\d\d:\d\d:\d\d)\.\d+ \d+ torch/distributed/elastic/multiprocessing/api\.py",
                          out, re.M)
    end = s.cluster.clock.at(down)
    assert teardown[-1][1] == (end - timedelta(seconds=1)).strftime("%H:%M:%S")
    assert out.endswith("srun: error: node04: task 3: Exited with exit code 1\n+ echo 'attempt 2 of 2 failed'\n"
                        "attempt 2 of 2 failed\n+ exit 1\n")
    ended = sh(s, f"sacct -X -n -P -j {JOB} -o end").strip()
    assert ended == end.strftime("%Y-%m-%dT%H:%M:%S")
    sh(s, "sleep 600")
    assert sh(s, f"cat {JOBDIR}/slurm-{JOB}.out") == out


def test_a_gpu_error_that_stops_a_rank_fails_the_job_once_the_watchdog_has_torn_it_down() -> None:
    s = Session(lab="diagnostic-snapshot", seed=0)
    t = truth(s)
    xid = datetime.strptime(t["time"], "%Y-%m-%dT%H:%M:%SZ")
    shown = sh(s, f"scontrol show job {JOB}")
    end = re.search(r"EndTime=(\S+)", shown).group(1)  # type: ignore[union-attr]
    assert "JobState=FAILED Reason=NonZeroExitCode" in shown and "ExitCode=1:0" in shown
    # The watchdog fires Timeout(ms)=600000 after the rank stopped; the launcher needs about half a minute more.
    assert timedelta(seconds=600) < _stamp(end) - xid < timedelta(seconds=660)
    out = sh(s, f"cat {JOBDIR}/slurm-{JOB}.out")
    fired = re.search(r"\[E(\d{4}) (\d\d:\d\d:\d\d)\.\d+ ProcessGroupNCCL\.cpp:607\]", out)
    assert fired and fired.group(2) == (xid + timedelta(seconds=600)).strftime("%H:%M:%S")
    log = sh(s, f"cat {JOBDIR}/train.log")
    last = re.findall(r"^(\S+ \S+),\d+ INFO \[train\.py:212\] step", log, re.M)[-1]
    assert datetime.strptime(last, "%Y-%m-%d %H:%M:%S") <= xid


# -- One event, one instant: dmesg -T, journalctl, the SEL, the job's files -------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_xid_has_one_utc_instant_in_dmesg_journalctl_and_the_snapshot(seed: int) -> None:
    s = Session(lab="diagnostic-snapshot", seed=seed)
    t = truth(s)
    xid = datetime.strptime(t["time"], "%Y-%m-%dT%H:%M:%SZ")
    sh(s, f"ssh {t['node']}")
    dmesg = re.search(r"^\[(.+?)\] NVRM: Xid", sh(s, "dmesg -T"), re.M)
    assert dmesg and datetime.strptime(dmesg.group(1), "%a %b %d %H:%M:%S %Y") == xid
    journal = re.search(r"^(\S+) \S+ kernel: NVRM: Xid", sh(s, "journalctl -k -o short-iso --no-pager"), re.M)
    assert journal and datetime.fromisoformat(journal.group(1)).replace(tzinfo=None) == xid
    sh(s, "exit")
    sh(s, f"diag-snapshot --nodes {t['node']} -o /home/alice/x.txt")
    kernel = sh(s, f"diag-snapshot --extract /home/alice/x.txt {t['node']}/kernel.log")
    assert journal.group(0) in kernel


# -- Simulated time moves everything together ------------------------------------------------------


def test_sleep_advances_the_clock_and_every_counter_log_and_job_time_with_it() -> None:
    s = Session(lab="sandbox", seed=0)
    before = sh(s, "date -u +%s")
    t0 = sh(s, "squeue -h -j 48213 -o %M").strip()
    log0 = sh(s, f"tail -n 1 {JOBDIR}/train.log")
    ctr0 = sh(s, "ssh node01 perfquery -x -C mlx5_0 -P 1 | grep PortXmitData")
    up0 = sh(s, "ssh node01 cat /proc/uptime").split()[0]
    sh(s, "sleep 600")
    after = sh(s, "date -u +%s")
    assert int(after) - int(before) >= 600
    t1 = sh(s, "squeue -h -j 48213 -o %M").strip()

    def secs(text: str) -> int:
        parts = [int(p) for p in text.split(":")]
        return parts[0] * 3600 + parts[1] * 60 + parts[2] if len(parts) == 3 else parts[0] * 60 + parts[1]

    assert secs(t1) - secs(t0) >= 600
    log1 = sh(s, f"tail -n 1 {JOBDIR}/train.log")
    step = lambda text: int(re.search(r" step (\d+) ", text).group(1))  # type: ignore[union-attr]  # noqa: E731
    assert step(log1) > step(log0)
    ctr1 = sh(s, "ssh node01 perfquery -x -C mlx5_0 -P 1 | grep PortXmitData")
    assert int(ctr1.rsplit(".", 1)[1]) > int(ctr0.rsplit(".", 1)[1])
    assert float(sh(s, "ssh node01 cat /proc/uptime").split()[0]) - float(up0) >= 600


def test_a_streaming_command_advances_the_clock_by_what_it_waits() -> None:
    s = Session(lab="sandbox", seed=0)
    before = int(sh(s, "date -u +%s"))
    sh(s, "ssh node01 nvidia-smi dmon -c 30 -d 1")
    assert int(sh(s, "date -u +%s")) - before >= 30
    before = int(sh(s, "date -u +%s"))
    sh(s, "ssh node07 all_reduce_perf -b 8 -e 8G -f 2 -g 8")   # an idle node: 8 GiB fits
    assert int(sh(s, "date -u +%s")) - before >= 2
    before = int(sh(s, "date -u +%s"))
    sh(s, f"diag-snapshot --job {JOB} -o /home/alice/b.txt")
    after = int(sh(s, "date -u +%s"))
    created = re.search(r"^created:\s+(\S+)", sh(s, "diag-snapshot --extract /home/alice/b.txt MANIFEST"), re.M)
    assert created and after - before >= 30, "collecting from four nodes and their BMCs takes half a minute"
    stamp = datetime.strptime(created.group(1), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before + 30 <= stamp.timestamp() <= after


@pytest.mark.parametrize(("lab", "seed"), [("diagnostic-snapshot", 0), ("out-of-band", 2), ("late-rank", 1),
                                           ("sandbox", 0)])
def test_a_job_file_was_last_modified_when_its_last_line_was_written(lab: str, seed: int) -> None:
    s = Session(lab=lab, seed=seed)
    sh(s, "sleep 300")

    def mtime(path: str) -> datetime:
        return s.cluster.clock.at(log_mtimes(s.cluster)[path]())

    last = re.findall(r"^(\S+ \S+),(\d+) ", sh(s, f"cat {JOBDIR}/train.log"), re.M)[-1]
    assert mtime(f"{JOBDIR}/train.log").strftime("%Y-%m-%d %H:%M:%S,%f")[:-3] == ",".join(last)
    out = sh(s, f"cat {JOBDIR}/slurm-{JOB}.out").splitlines()
    stamped = [line for line in out if re.match(r"\[?(rank\d+\]:\[)?[EW]\d{4} ", line)]
    killed = re.search(r"CANCELLED AT (\S+)", out[-1])
    written = mtime(f"{JOBDIR}/slurm-{JOB}.out")
    if killed:
        assert written.strftime("%Y-%m-%dT%H:%M:%S") == killed.group(1)
    elif out[-1].startswith(("srun: error", "+ exit")):
        assert written.strftime("%H:%M:%S") == (datetime.strptime(stamped[-1].split()[1][:8], "%H:%M:%S")
                                              + timedelta(seconds=1)).strftime("%H:%M:%S")
    else:
        assert written.strftime("%H:%M:%S") == stamped[-1].split()[1][:8]


def _ids_by_node(log: str) -> dict[str, dict[int, set[int]]]:
    """Per node, the TIDs each PID prints its ``host:PID:TID`` NCCL INFO lines from."""
    found: dict[str, dict[int, set[int]]] = {}
    for node, pid, tid in re.findall(r"^(node\d+):(\d+):(\d+) \[\d+\] NCCL INFO ", log, re.M):
        found.setdefault(node, {}).setdefault(int(pid), set()).add(int(tid))
    return found


def _assert_threads_are_their_process_own(ids: dict[str, dict[int, set[int]]], others: set[int]) -> None:
    for node, by_pid in ids.items():
        owners: dict[int, int] = {}
        for pid, tids in by_pid.items():
            for tid in tids:
                assert owners.setdefault(tid, pid) == pid, f"{node}: TID {tid} in processes {owners[tid]} and {pid}"
                assert tid == pid or (tid not in by_pid and tid not in others), \
                    f"{node}: a thread of {pid} has the id {tid} of a process"


@pytest.mark.parametrize("seed", range(4))
def test_each_mpirun_rank_process_logs_nccl_from_its_own_pid_and_threads(seed: int) -> None:
    s = Session(lab="nccl-algorithms", seed=seed)
    log = sh(s, "mpirun -np 16 -H node09:8,node10:8 -x NCCL_DEBUG=INFO all_reduce_perf -b 8 -e 8 -g 1 -n 1")
    ids = _ids_by_node(log)
    assert set(ids) == {"node09", "node10"} and all(len(by_pid) == 8 for by_pid in ids.values())
    _assert_threads_are_their_process_own(ids, set())


@pytest.mark.parametrize("seed", range(3))
def test_a_jobs_nccl_threads_are_its_ranks_own_and_no_pid_ps_or_py_spy_shows(seed: int) -> None:
    s = Session(lab="nccl-transport", seed=seed)
    run = s.cluster.training
    assert run is not None
    ids = _ids_by_node(sh(s, f"cat /lustre/jobs/llm-pretrain/slurm-{run.job_id}.out"))
    node = run.nodes[0]
    sh(s, f"ssh {node}")
    listed = {int(p) for p in re.findall(r"^\S+\s+(\d+) ", sh(s, "ps aux"), re.M)}
    for rank in [r for r in run.ranks if r.node == node][:2]:
        listed |= {int(t) for t in re.findall(r"^Thread (\d+) ", sh(s, f"py-spy dump --pid {rank.pid}"), re.M)}
    assert {r.pid for r in run.ranks if r.node == node} <= set(ids[node])
    _assert_threads_are_their_process_own(ids, listed - set(ids[node]))
