"""Fabric tools through the shell: formats, faults, resets, and one port agreeing across tools."""

from __future__ import annotations

import re
import shlex

import pytest

from emulator.cluster.faults import apply_fault
from emulator.commands.fabric.iproute2 import spellings
from emulator.commands.fabric.rdma import DISPLAY_FLAGS, Rdma
from emulator.session import Session
from tests.support import golden, on, run


def colon(guid: str) -> str:
    """``0xa088c20300e2ba22`` as sysfs and ibv_devinfo print it: ``a088:c203:00e2:ba22``."""
    h = guid[2:]
    return ":".join(h[i:i + 4] for i in range(0, 16, 4))


def test_ibstat_one_port_golden():
    s = on("node02")
    assert run(s, "ibstat mlx5_3 1") == (
        "CA: 'mlx5_3'\n"
        "Port 1:\n"
        "State: Active\n"
        "Physical state: LinkUp\n"
        "Rate: 400\n"
        "Base lid: 111\n"
        "LMC: 0\n"
        "SM lid: 1\n"
        "Capability mask: 0xa751e848\n"
        "Port GUID: 0xa088c203008ef968\n"
        "Link layer: InfiniBand\n"
    )


def test_ibstat_lists_every_rdma_device():
    s = on("node01")
    assert run(s, "ibstat -l").split() == [f"mlx5_{i}" for i in range(10)]
    full = run(s, "ibstat")
    assert full.count("CA type: MT4129") == 10
    assert full.count("Link layer: Ethernet") == 2


def test_ibstat_unknown_device_panics_like_ibdiags():
    out, status = on("node01").execute("ibstat mlx4_0")
    assert status == 255
    assert re.fullmatch(r"ibpanic: \[\d+\] main: 'mlx4_0' IB device can't be found\n", out)


def test_ibstat_bad_flag_is_a_getopt_error():
    out, status = on("node01").execute("ibstat -z")
    assert status == 2
    assert out.startswith("ibstat: invalid option -- 'z'\nUsage: ibstat [options] <ca_name> [portnum]")


def test_ibstatus_shows_hdr_rate_of_a_downgraded_port():
    s = on("node03")
    apply_fault(s.cluster, "link-rate", {"node": "node03", "port": "mlx5_5"})
    out = run(s, "ibstatus mlx5_5")
    assert "\tstate:\t\t 4: ACTIVE\n" in out
    assert "\tphys state:\t 5: LinkUp\n" in out
    assert "\trate:\t\t 200 Gb/sec (4X HDR)\n" in out


def test_ibv_devices_golden_header():
    out = run(on("node01"), "ibv_devices")
    lines = out.splitlines()
    assert lines[0] == "    device          \t   node GUID"
    assert lines[1] == "    ------          \t----------------"
    assert re.fullmatch(r"    mlx5_0          \t[0-9a-f]{16}", lines[2])


def test_ibv_devinfo_unknown_device():
    out, status = on("node01").execute("ibv_devinfo -d mlx5_77")
    assert (out, status) == ("IB device 'mlx5_77' wasn't found\n", 255)


def test_perfquery_extended_layout_and_header():
    out = run(on("node01"), "perfquery -x")
    lines = out.splitlines()
    assert lines[0] == "# Port extended counters: Lid 100 port 1 (CapMask: 0x5A00 CapMask2: 0x0000002)"
    assert lines[1] == "PortSelect:......................1"
    assert lines[3].startswith("PortXmitData:....................")
    assert all(len(line.split(":", 1)[0]) + len(re.match(r"[^:]*:(\.*)", line).group(1)) == 32 for line in lines[1:])


def test_perfquery_x_shows_64_bit_error_counters_only_where_capmask2_advertises_them():
    """perfquery.c: the error counters follow the data counters only on a port whose ClassPortInfo
    CapMask2 has IsAdditionalPortCountersExtendedSupported; ConnectX-7 (MT4129) has it."""
    s = on("node02")
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_3", "errors_per_s": 100})
    out = run(s, "perfquery -x -C mlx5_3 -P 1")
    assert out.splitlines()[0] == "# Port extended counters: Lid 111 port 1 (CapMask: 0x5A00 CapMask2: 0x0000002)"
    assert len(out.splitlines()) == 26 and int(re.search(r"SymbolErrorCounter:\.+(\d+)", out).group(1)) > 65535
    s.cluster.nodes["node02"].nics[3].ca_type = "MT4099"   # a CA type without the additional counters
    out = run(s, "perfquery -x -C mlx5_3 -P 1")
    assert out.splitlines()[0] == "# Port extended counters: Lid 111 port 1 (CapMask: 0x5A00 CapMask2: 0x0000000)"
    assert [line.split(":")[0] for line in out.splitlines()[1:]] == [
        "PortSelect", "CounterSelect", "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts",
        "PortUnicastXmitPkts", "PortUnicastRcvPkts", "PortMulticastXmitPkts", "PortMulticastRcvPkts"]
    # The error counters are read from PortCounters then, at their own widths: 16 bits saturate at 65535.
    assert "SymbolErrorCounter:..............65535\n" in run(s, "perfquery -C mlx5_3 -P 1")
    report = run(s, "ibqueryerrors -C mlx5_3 --ca")
    assert "[SymbolErrorCounter == 65535]" in report and "(" not in report.split("port 1:")[1].splitlines()[0]


def test_perfquery_basic_data_counters_saturate_at_32_bits():
    out = run(on("node01"), "perfquery")
    assert "PortXmitData:....................4294967295\n" in out


def test_perfquery_reset_then_counts_from_zero():
    s = on("node02")
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_3", "errors_per_s": 10})
    before = run(s, "perfquery -x 111 1")
    assert int(re.search(r"SymbolErrorCounter:\.+(\d+)", before).group(1)) > 1000
    assert run(s, "perfquery -R -C mlx5_3 -P 1") == ""
    after = run(s, "perfquery -x -C mlx5_3 -P 1")
    symbols = int(re.search(r"SymbolErrorCounter:\.+(\d+)", after).group(1))
    assert 0 < symbols < 100


def test_perfquery_remote_lid_reads_the_other_nodes_port():
    s = on("node01")
    out = run(s, "perfquery 123 1")
    assert out.startswith("# Port counters: Lid 123 port 1 (CapMask: 0x5A00)\n")


def test_perfquery_sm_lid_reads_the_subnet_managers_port_and_resets_it():
    # The SM sends its MADs once a sweep (every 10 simulated seconds); typed as ``ssh node01 CMD`` from the
    # login node, each line runs at the same instant as on a fresh node01, so the reset and the read share a sweep.
    s = on(None)
    sm_lid = re.search(r"SM lid: (\d+)", run(s, "ssh node01 ibstat mlx5_0"))
    assert sm_lid and sm_lid.group(1) == "1"
    out = run(s, "ssh node01 perfquery -x 1")
    assert out.startswith("# Port extended counters: Lid 1 port 1 (CapMask: 0x5A00 CapMask2: 0x0000002)\n")
    assert int(re.search(r"PortXmitPkts:\.+(\d+)", out).group(1)) > 0
    assert "SymbolErrorCounter:..............0\n" in out
    assert run(s, "ssh node01 perfquery -R 1") == ""
    assert "PortXmitPkts:....................0\n" in run(s, "ssh node01 perfquery 1")
    out, status = s.execute("ssh node01 perfquery 1 2")
    assert status == 255 and "dport (Lid 1)" in out


def test_perfquery_unknown_lid_times_out():
    out, status = on("node01").execute("perfquery 4000")
    assert status == 255
    assert "dport (Lid 4000)" in out and out.endswith("perfquery: iberror: failed: classportinfo query\n")


def test_mlxlink_shows_degraded_speed_against_supported():
    s = on("node03")
    apply_fault(s.cluster, "link-rate", {"node": "node03", "port": "mlx5_5"})
    out = run(s, "mlxlink -d mlx5_5")
    assert "Speed                           : IB-HDR\n" in out
    assert "Supported Cable Speed           : 0x000000f2 (NDR,HDR,EDR,FDR,DDR)\n" in out
    assert "Recommendation                  : No issue was observed\n" in out


def test_mlxlink_decodes_the_speed_masks_as_mstflint_does():
    """IB_LINK_SPEED bits 0x80 NDR .. 0x02 DDR (0x01 is SDR); an Ethernet port lists its extended protocols."""
    s = on("node01")
    ib = run(s, "mlxlink -d mlx5_0")
    assert "Enabled Link Speed              : 0x000000f2 (NDR,HDR,EDR,FDR,DDR)\n" in ib
    eth = run(s, "mlxlink -d mlx5_8")
    assert ("Enabled Link Speed (Ext.)       : 0x000017f2 (200G_4X,100G_2X,100G_4X,50G_1X,50G_2X,40G,25G,10G,1G)\n"
            in eth)
    assert "Supported Cable Speed (Ext.)    : 0x000017f2 (" in eth


def test_mlxlink_counters_show_symbol_errors():
    s = on("node02")
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_3", "errors_per_s": 10})
    out = run(s, "mlxlink -d mlx5_3 -c")
    assert "Physical Counters and BER Info\n------------------------------\n" in out
    assert int(re.search(r"Symbol Errors\s+: (\d+)", out).group(1)) > 1000


def test_mlxlink_unknown_device():
    out, status = on("node01").execute("mlxlink -d mlx5_55")
    assert status == 1 and out.startswith("-E- Failed to open device")


def test_rdma_link_line():
    out = run(on("node01"), "rdma link show mlx5_0/1")
    assert out == ("link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 100 sm_lid 1 lmc 0 state ACTIVE "
                   "physical_state LINK_UP netdev ibp24s0\n")


def test_port_down_reads_down_everywhere():
    s = on("node02")
    apply_fault(s.cluster, "port-down", {"node": "node02", "port": "mlx5_3"})
    assert "State: Down\nPhysical state: Disabled\nRate: 40\n" in run(s, "ibstat mlx5_3 1")
    assert "state DOWN physical_state DISABLED netdev ibp94s0" in run(s, "rdma link")
    assert "ibp94s0          DOWN" in run(s, "ip -br link")
    assert "Link detected: no" in run(s, "ethtool ibp94s0")


@pytest.mark.parametrize("seed", [0, 5])
def test_one_faulty_port_agrees_across_tools(seed):
    s = Session(seed=seed)
    truth = apply_fault(s.cluster, "link-rate", {}).truth
    run(s, f"ssh {truth['node']}")
    port, lid, guid, netdev = truth["port"], truth["lid"], truth["guid"], truth["netdev"]
    ibstat = run(s, f"ibstat {port} 1")
    assert f"Rate: 200\nBase lid: {lid}\n" in ibstat and f"Port GUID: {guid}\n" in ibstat
    ibstatus = run(s, f"ibstatus {port}")
    assert f"base lid:\t 0x{int(lid):x}\n" in ibstatus and "200 Gb/sec (4X HDR)" in ibstatus
    assert f"default gid:\t fe80:0000:0000:0000:{colon(guid)}\n" in ibstatus
    devinfo = run(s, f"ibv_devinfo -v -d {port}")
    assert f"port_lid:\t\t{lid}\n" in devinfo and "active_speed:\t\t50.0 Gbps (64)" in devinfo
    assert f"node_guid:\t\t\t{colon(guid)}\n" in devinfo
    assert f"Lid {lid} port 1" in run(s, f"perfquery -C {port}")
    assert f"Lid {lid} port 1" in run(s, f"perfquery {lid} 1")
    assert "Speed                           : IB-HDR" in run(s, f"mlxlink -d {port}")
    assert f"link {port}/1 subnet_prefix fe80:0000:0000:0000 lid {lid} " in run(s, "rdma link")
    assert re.search(rf"^{netdev} +UP ", run(s, "ip -br link"), re.M)
    assert "\tSpeed: 200000Mb/s\n" in run(s, f"ethtool {netdev}")
    sys_port = f"/sys/class/infiniband/{port}/ports/1"
    assert run(s, f"cat {sys_port}/rate") == "200 Gb/sec (4X HDR)\n"
    assert run(s, f"cat {sys_port}/lid") == f"0x{int(lid):x}\n"
    assert run(s, f"cat /sys/class/infiniband/{port}/node_guid") == f"{colon(guid)}\n"


@pytest.mark.parametrize("seed", [1, 2])
def test_counters_agree_between_perfquery_sysfs_and_mlxlink(seed):
    s = Session(seed=seed)
    truth = apply_fault(s.cluster, "symbol-errors", {}).truth
    run(s, f"ssh {truth['node']}")
    port, lid = truth["port"], truth["lid"]
    sys_dir = f"/sys/class/infiniband/{port}/ports/1"
    # Each command costs simulated time; reset first so every tool reads the same interval's counts.
    run(s, f"perfquery -R -C {port}")
    perf = run(s, f"perfquery -x {lid} 1")
    symbols = int(re.search(r"SymbolErrorCounter:\.+(\d+)", perf).group(1))
    sysfs = int(run(s, f"cat {sys_dir}/counters/symbol_error"))
    mlx = int(re.search(r"Symbol Errors\s+: (\d+)", run(s, f"mlxlink -d {port} -c")).group(1))
    assert 0 < symbols <= sysfs <= mlx
    assert run(s, f"cat {sys_dir}/lid").strip() == f"0x{int(lid):x}"
    assert run(s, f"cat {sys_dir}/rate").strip() == "400 Gb/sec (4X NDR)"


def test_ibstat_whole_ca_golden():
    assert run(on("node01"), "ibstat mlx5_0") == (
        "CA 'mlx5_0'\n"
        "\tCA type: MT4129\n"
        "\tNumber of ports: 1\n"
        "\tFirmware version: 28.39.1002\n"
        "\tHardware version: 0\n"
        "\tNode GUID: 0xa088c20300c20e76\n"
        "\tSystem image GUID: 0xa088c20300c20e76\n"
        "\tPort 1:\n"
        "\t\tState: Active\n"
        "\t\tPhysical state: LinkUp\n"
        "\t\tRate: 400\n"
        "\t\tBase lid: 100\n"
        "\t\tLMC: 0\n"
        "\t\tSM lid: 1\n"
        "\t\tCapability mask: 0xa751e848\n"
        "\t\tPort GUID: 0xa088c20300c20e76\n"
        "\t\tLink layer: InfiniBand\n"
    )


def test_ibdev2netdev_maps_devices_to_netdevs_with_state():
    s = on("node02")
    apply_fault(s.cluster, "port-down", {"node": "node02", "port": "mlx5_3"})
    out = run(s, "ibdev2netdev")
    assert "mlx5_0 port 1 ==> ibp24s0 (Up)\n" in out
    assert "mlx5_3 port 1 ==> ibp94s0 (Down)\n" in out
    assert "mlx5_8 port 1 ==> enp41s0f0np0 (Up)\n" in out


@pytest.mark.parametrize("name,line,faults", [
    ("fabric_ibstatus_link_rate.txt", "ibstatus", [("link-rate", {"node": "node02", "port": "mlx5_3"})]),
    ("fabric_ibv_devinfo_v.txt", "ibv_devinfo -v -d mlx5_0", []),
    ("fabric_mlxlink_port_down.txt", "mlxlink -d mlx5_5", [("port-down", {"node": "node02", "port": "mlx5_5"})]),
    ("fabric_perfquery_x_errors.txt", "perfquery -x -C mlx5_7 -P 1 | grep -v -e Data -e Pkts",
     [("symbol-errors", {"node": "node02", "port": "mlx5_7", "errors_per_s": 6})]),
    ("fabric_iblinkinfo_2x.txt", "iblinkinfo", [("link-rate", {"node": "node04", "port": "mlx5_1", "width": "2X"})]),
    ("fabric_ip_addr.txt", "ip addr", []),
    ("fabric_rdma_link_flap.txt", "rdma link; dmesg | grep ibp94s0 | tail -n 4",
     [("link-flap", {"node": "node02", "port": "mlx5_3"})]),
])
def test_output_matches_golden(name, line, faults):
    # Counters rise with simulated time: the line runs first thing, as ``ssh node02 LINE`` from the login node.
    s = on(None)
    for fault, params in faults:
        apply_fault(s.cluster, fault, params)
    golden(name, run(s, f"ssh node02 {shlex.quote(line)}"))


def test_perfquery_reads_a_leaf_uplink_waiting_under_congestion():
    s = on("node01")
    apply_fault(s.cluster, "congestion", {"nodes": 2})
    first = run(s, "perfquery -x 2 33")
    assert first.startswith("# Port extended counters: Lid 2 port 33 (CapMask: 0x5A00 CapMask2: 0x0000002)\n"
                            "PortSelect:......................33\n")
    wait = int(re.search(r"PortXmitWait:\.+(\d+)", first).group(1))
    later = int(re.search(r"PortXmitWait:\.+(\d+)", run(s, "perfquery -x 2 33")).group(1))
    assert later > wait > 0
    healthy = run(on("node01"), "perfquery -x 2 33")
    assert "PortXmitWait:....................0\n" in healthy


def _counter(text: str, name: str) -> int:
    return int(re.search(rf"^{name}:\.+(\d+)$", text, re.M).group(1))


def test_leaf_downlink_counts_for_itself_facing_a_node_with_a_weak_receiver():
    """Receive errors stay at the node's end, the link's retrains count at both, traffic is mirrored."""
    s = on("node01")
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_0", "errors_per_s": 10})
    run(s, "sleep 5")
    switch_side, node_side, later = run(s, "perfquery -x 2 2"), run(s, "perfquery -x 108 1"), run(s, "perfquery -x 2 2")
    for name in ("SymbolErrorCounter", "PortRcvErrors"):
        assert _counter(node_side, name) > 0 and _counter(switch_side, name) == 0
    assert _counter(switch_side, "LinkErrorRecoveryCounter") == _counter(node_side, "LinkErrorRecoveryCounter") > 0
    # Each command reads a moment later: one end's transmit brackets the other end's receive.
    for xmit, rcv in (("PortXmitData", "PortRcvData"), ("PortXmitPkts", "PortRcvPkts")):
        assert _counter(switch_side, xmit) <= _counter(node_side, rcv) <= _counter(later, xmit)
        assert _counter(switch_side, rcv) <= _counter(node_side, xmit) <= _counter(later, rcv)
    assert s.execute("perfquery 2 99")[1] == 255


def test_ibqueryerrors_names_only_the_node_end_of_a_link_with_receive_errors():
    s = on("node01")
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_0", "errors_per_s": 10})
    out = run(s, "ibqueryerrors")
    assert re.findall(r'^Errors for "(.*)"$', out, re.M) == ["node02 mlx5_0"]
    assert re.search(r"port 1: \[SymbolErrorCounter == \d+ .*\] \[PortRcvErrors == \d+", out)
    assert "1 ports have errors beyond threshold" in out


def test_mlxlink_module_shows_one_weak_lane_on_a_marginal_link():
    s = on("node02")
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_3", "errors_per_s": 10})
    rx = re.search(r"Rx Power Current \[dBm\]\s+: (\S+) \[-10\.4\.\.5\]", run(s, "mlxlink -d mlx5_3 -m")).group(1)
    lanes = [float(v) for v in rx.split(",")]
    assert sum(v < -5 for v in lanes) == 1 and sum(v > 0 for v in lanes) == 3
    healthy = re.search(r"Rx Power Current \[dBm\]\s+: (\S+)", run(s, "mlxlink -d mlx5_0 -m")).group(1)
    assert all(float(v) > 0 for v in healthy.split(","))


def test_fabric_and_host_tools_are_deterministic_for_a_seed():
    lines = ["ibstat", "ibstatus", "ibv_devinfo -v", "perfquery -x", "perfquery 2 33", "mlxlink -d mlx5_1 -m -c",
             "rdma link", "iblinkinfo", "ibqueryerrors", "ibnetdiscover", "ibdiagnet", "ip -s a", "ethtool -S eno1",
             "lspci -vv", "numactl -H", "free -h", "top -b -n 2", "ps aux", "df -h", "iostat -x 1 2", "vmstat 1 2",
             "lfs df -h"]

    def transcript(seed: int) -> list[tuple[str, int]]:
        s = Session(seed=seed)
        apply_fault(s.cluster, "symbol-errors", {})
        apply_fault(s.cluster, "congestion", {})
        s.execute("ssh node02")
        return [s.execute(line) for line in lines]

    assert transcript(4) == transcript(4)
    assert transcript(4) != transcript(5)


def test_show_gids_lists_roce_v2_gids_with_the_storage_address():
    out = run(on("node01"), "show_gids mlx5_8")
    assert out.splitlines()[0] == "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV"
    assert "mlx5_8\t1\t3\t0000:0000:0000:0000:0000:ffff:0a1e:000b\t10.30.0.11  \tv2\tenp41s0f0np0\n" in out
    assert out.endswith("n_gids_found=4\n")


def test_every_flag_rdma_declares_is_accepted():
    s = on("node01")
    for spelling in Rdma().option_strings():
        out, status = s.execute(f"rdma {spelling} link")
        assert status == 0 and "unknown" not in out, (spelling, out)


def test_rdmas_usage_offers_the_display_flags_it_declares():
    usage = run(on("node01"), "rdma help")
    offered = {s for short, rest in re.findall(r"(-\w)\[(\w+)\]", usage) for s in (short, short + rest)}
    assert spellings(DISPLAY_FLAGS) <= offered
