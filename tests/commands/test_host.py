"""Host tools through the shell: real layouts, values from the model, and clear errors."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from emulator.session import Session


def on(node: str, seed: int = 0) -> Session:
    s = Session(seed=seed)
    s.shell.push_host(s.cluster.nodes[node])
    return s


def run(s: Session, line: str) -> str:
    out, status = s.execute(line)
    assert status == 0, out
    return out


def test_lspci_names_gpus_nics_and_switches():
    out = run(on("node01"), "lspci")
    assert "1b:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)\n" in out
    assert "18:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n" in out
    assert "29:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n" in out
    assert "15:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n" in out
    assert out.count("3D controller") == 8 and out.count("Infiniband controller") == 8


def test_lspci_numeric_vendor_filter():
    out = run(on("node01"), "lspci -d 10de: -nn")
    assert "1b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n" in out
    assert "Mellanox" not in out


def test_lspci_vv_shows_link_from_the_model():
    s = on("node01")
    out = run(s, "lspci -s 1b:00.0 -vv")
    assert "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n" in out
    assert "\t\tLnkSta:\tSpeed 32GT/s, Width x16\n" in out
    gpu = s.cluster.nodes["node01"].gpus[0]
    gpu.pcie_gen_current = 4
    assert "\t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x16\n" in run(s, "lspci -s 0000:1b:00.0 -vv")


def test_lspci_bad_slot():
    assert on("node01").execute("lspci -s zz") == ("lspci: -s: Invalid slot number\n", 1)


def test_numactl_hardware_lists_both_sockets():
    out = run(on("node01"), "numactl -H")
    assert out.startswith("available: 2 nodes (0-1)\nnode 0 cpus: 0 1 2 ")
    assert " 55 112 113 " in out.splitlines()[1]
    assert out.endswith("node distances:\nnode   0   1 \n  0:  10  21 \n  1:  21  10 \n")


def test_lscpu_layout():
    out = run(on("node01"), "lscpu")
    assert "CPU(s):                  224\n" in out
    assert "  Model name:            Intel(R) Xeon(R) Platinum 8480C\n" in out
    assert "  NUMA node1 CPU(s):     56-111,168-223\n" in out
    assert "  L1d:                   5.3 MiB (112 instances)\n" in out


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


def test_df_h_shows_lustre_from_the_targets():
    out = run(on("node01"), "df -h")
    assert out.splitlines()[0].split() == ["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted", "on"]
    assert re.search(r"^10\.30\.0\.10@o2ib:/lustre +3\.8P +2\.\dP +1\.\dP +6\d% /lustre$", out, re.M)
    assert re.search(r"^/dev/md0 .* /raid$", out, re.M)


def test_mount_lustre_line():
    out = run(on("node01"), "mount -t lustre")
    assert out.startswith("10.30.0.10@o2ib:/lustre on /lustre type lustre (rw,checksum,flock,")


def test_lfs_df_lists_every_target_and_summary():
    s = on("node01")
    out = run(s, "lfs df -h")
    assert out.startswith("UUID                       bytes        Used   Available Use% Mounted on\n")
    assert out.count("[OST:") == 8 and "lustre-MDT0000_UUID" in out
    assert re.search(r"^filesystem_summary: +3\.8P ", out, re.M)


def test_iostat_x_columns_line_up():
    out = run(on("node01"), "iostat -x")
    lines = out.splitlines()
    head = next(line for line in lines if line.startswith("Device"))
    md0 = next(line for line in lines if line.startswith("md0"))
    assert head.endswith("aqu-sz  %util") and len(md0) == len(head)


def test_iostat_interval_streams_reports():
    s = on("node01")
    run_ = s.run("iostat -x 1 3")
    chunks = []
    while (chunk := run_.step()) is not None:
        chunks.append(chunk.text())
    assert "".join(chunks).count("avg-cpu:") == 3


def test_vmstat_header():
    out = run(on("node01"), "vmstat")
    assert out.splitlines()[:2] == [
        "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st",
    ]


def test_bad_flags_are_errors_not_tracebacks():
    s = on("node01")
    for line in ("free -z", "top -b -n 0", "vmstat x", "lfs frob", "lscpu --nope", "df --nope", "ps --bogus"):
        out, status = s.execute(line)
        assert status != 0 and "Traceback" not in out, line


def test_a_rank_stuck_in_io_sleeps_in_the_kernel():
    from emulator.cluster.faults import apply_fault

    s = Session(seed=0)
    truth = apply_fault(s.cluster, "straggler", {"kind": "io", "rank": 10}).truth
    run(s, f"ssh {truth['node']}")
    out = run(s, f"ps -o pid,stat,comm -p {truth['pid']}")
    assert out.splitlines()[1].split() == [truth["pid"], "Dl", "pt_main_thread"]
    others = run(s, "top -b -n 1").splitlines()[7]
    assert others.split()[7] == "R" and others.endswith("pt_main_thread")


GOLDEN = Path(__file__).parent / "golden"


def golden(name: str, text: str) -> None:
    """Compare with ``golden/<name>``; ``REGOLD=1`` rewrites it."""
    path = GOLDEN / name
    if os.environ.get("REGOLD"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("name,line", [
    ("host_lspci_vv_nic.txt", "lspci -vv -s 18:00.0"),
    ("host_lscpu.txt", "lscpu"),
    ("host_numactl_h.txt", "numactl -H"),
    ("host_free_h.txt", "free -h"),
    ("host_df_h.txt", "df -h"),
    ("host_mount.txt", "mount"),
    ("host_lfs_df_h.txt", "lfs df -h"),
])
def test_output_matches_golden(name, line):
    golden(name, run(on("node03"), line))
