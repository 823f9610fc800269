"""Host tools through the shell: real layouts, values from the model, and clear errors."""

from __future__ import annotations

import re

import pytest

from emulator.cluster.faults import apply_fault
from tests.support import golden, on, run


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


def test_bad_flags_are_errors_not_tracebacks():
    s = on("node01")
    for line in ("free -z", "top -b -n 0", "vmstat x", "lfs frob", "lscpu --nope", "df --nope", "ps --bogus"):
        out, status = s.execute(line)
        assert status != 0 and "Traceback" not in out, line





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


def test_a_gpu_that_fell_off_the_bus_reads_all_ones():
    s = on(None)
    apply_fault(s.cluster, "xid", {"node": "node02", "gpu": 3, "code": 79})
    run(s, "ssh node02")
    assert "61:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev ff) (prog-if ff)\n" in run(s, "lspci")
    assert "\t!!! Unknown header type 7f\n" in run(s, "lspci -vv -s 61:00.0")


def test_numactl_runs_a_command_under_a_valid_policy():
    s = on("node01")
    assert s.execute("numactl --cpunodebind=1 --membind=1 hostname") == ("node01\n", 0)
    assert s.execute("numactl -N 2 hostname") == ("numactl: Invalid nodes argument: 2\n", 1)
    assert s.execute("numactl -N 0 nosuch") == ("numactl: execution of `nosuch': No such file or directory\n", 1)


# -- lspci -t: the PCI tree --------------------------------------------------------------------

def test_lspci_tree_matches_golden():
    golden("host_lspci_tv.txt", run(on("node01"), "lspci -tv"))


def test_lspci_tree_draws_every_function_lspci_lists_and_each_bridge_range():
    s = on("node02")
    flat = run(s, "lspci").splitlines()
    tree = run(s, "lspci -t")
    assert len(re.findall(r"(?<![0-9a-f:])[0-9a-f]{2}\.[0-7]", tree)) == len(flat)
    bridges = re.findall(r"^(\S+) .*\n(?:\t.*\n)*?\tBus: primary=\w+, secondary=(\w+), subordinate=(\w+)",
                         run(s, "lspci -vv"), re.M)
    assert len(bridges) == sum(" PCI bridge: " in line for line in flat) == 72
    for bus, secondary, subordinate in bridges:
        span = secondary if secondary == subordinate else f"{secondary}-{subordinate}"
        assert f"{bus[3:]}-[{span}]-" in tree, bus
    for line in flat:
        bus = line[:2]
        if " PCI bridge: " not in line and " Host bridge: " not in line:
            assert f"-[{bus}]----00.0" in tree, line
    assert "\\-01.0-[15-1b]----00.0-[16-1b]--+-00.0-[17-18]----00.0-[18]----00.0\n" in tree


def test_lspci_tree_agrees_with_nvidia_smi_topology():
    """A GPU and a NIC behind one switch are PXB in topo -m; on one socket NODE; across sockets SYS."""
    s = on("node01")
    tree = run(s, "lspci -t").splitlines()
    node = s.cluster.nodes["node01"]

    def place(bus: str) -> int:
        row = next(n for n, line in enumerate(tree) if line.endswith(f"-[{bus}]----00.0"))
        return next(int(m.group(1), 16) for line in reversed(tree[:row + 1])
                    if (m := re.search(r"\[0000:([0-9a-f]{2})\]", line)))

    matrix = [line.split("\t") for line in run(s, "nvidia-smi topo -m").splitlines()[1:19]]
    for gpu in node.gpus:
        g_root = place(gpu.pci_bus_id[9:11].lower())
        for k, nic in enumerate(node.nics):
            n_root = place(nic.pci_bus_id[5:7])
            expected = "PXB" if g_root == n_root else "NODE" if (g_root < 0x80) == (n_root < 0x80) else "SYS"
            assert matrix[gpu.index][9 + k] == expected, (gpu.index, nic.name)


def test_a_lost_gpu_keeps_its_place_in_the_tree():
    s = on(None)
    apply_fault(s.cluster, "xid", {"node": "node02", "gpu": 3, "code": 79})
    run(s, "ssh node02")
    assert "\\-01.0-[60-61]----00.0-[61]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB]\n" in run(s, "lspci -tv")


def test_the_link_dmesg_blames_for_a_downgrade_is_the_bridge_above_the_gpu_in_the_tree():
    s = on(None)
    apply_fault(s.cluster, "pcie-downgrade", {"node": "node03", "gpu": 4, "gen": 4})
    run(s, "ssh node03")
    port = re.search(r"link at 0000:(\w\w:\w\w\.\w) ", run(s, "dmesg")).group(1)
    assert port == "9c:00.0"
    assert f"Bus: primary={port[:2]}, secondary=9d, subordinate=9d, sec-latency=0" in run(s, f"lspci -vv -s {port}")
    assert "-[9c-9d]----00.0-[9d]----00.0  NVIDIA Corporation" in run(s, "lspci -tv")


def test_every_bus_id_nvidia_smi_reports_is_an_h100_in_the_tree():
    s = on("node04")
    tree = run(s, "lspci -tv")
    buses = re.findall(r"Bus Id\s+: 00000000:(\w\w):00\.0", run(s, "nvidia-smi -q"))
    assert len(buses) == 8
    for bus in buses:
        assert f"-[{bus.lower()}]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB]\n" in tree
