"""Fabric-wide scans through the shell: ibdiagnet, iblinkinfo, ibhosts, ibswitches."""

from __future__ import annotations

import re

from emulator.cluster.faults import apply_fault
from emulator.commands.fabric.ibqueryerrors import human
from tests.support import on, run


def test_ibdiagnet_counts_speed_and_counter_problems():
    s = on("node01")
    apply_fault(s.cluster, "link-rate", {"node": "node03", "port": "mlx5_0"})
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_0", "errors_per_s": 10})
    out, status = s.execute("ibdiagnet")
    assert status == 1
    assert "-I- Speed / Width checks      1          0          \n" in out
    assert re.search(r"-I- Port Counters\s+[1-9]\d*\s+[1-9]", out)


def test_ibdiagnet_healthy_fabric_is_clean():
    out, status = on("node01").execute("ibdiagnet")
    assert status == 0
    assert "Discovering ... 74 nodes (10 Switches & 64 CA-s) discovered." in out
    assert "-I- Port Counters             0          0" in out


def test_ibdiagnet_writes_its_log_with_the_bad_port():
    s = on("node01")
    apply_fault(s.cluster, "symbol-errors", {"node": "node03", "port": "mlx5_0", "errors_per_s": 10})
    s.execute("ibdiagnet")
    log = run(s, "cat /var/tmp/ibdiagnet2/ibdiagnet2.log")
    assert "node03/mlx5_0/P1" in log and "symbol_error_counter" in log
    assert "lid=0x0074" in log


def test_iblinkinfo_names_the_switch_port_and_hints_the_lost_speed():
    s = on("node01")
    apply_fault(s.cluster, "link-rate", {"node": "node03", "port": "mlx5_0"})
    out = run(s, "iblinkinfo")
    assert ('           2    3[  ] ==( 4X         53.125 Gbps Active/  LinkUp)==>     116    1[  ] '
            '"node03 mlx5_0" ( Could be 106.25 Gbps)\n') in out
    assert out.startswith("Switch: 0x")
    assert "leaf-r0-01:\n" in out.splitlines()[0] + "\n"


def test_iblinkinfo_down_ports_only():
    s = on("node01")
    apply_fault(s.cluster, "port-down", {"node": "node05", "port": "mlx5_0"})
    out = run(s, "iblinkinfo -d")
    assert out.splitlines()[1] == '           2    5[  ] ==(                Down/ Polling)==>             [  ] "" ( )'
    assert len(out.splitlines()) == 2   # only the switch with the down port is headed
    cas = run(s, "iblinkinfo --cas-only")
    assert "node05 mlx5_0" not in cas and "CA: node05 mlx5_7:" in cas


def test_ibhosts_and_ibswitches_list_every_rail_of_the_subnet():
    s = on("node01")
    apply_fault(s.cluster, "port-down", {"node": "node05", "port": "mlx5_0"})
    hosts = run(s, "ibhosts")
    assert hosts.count("Ca\t: 0x") == 63 and "node05 mlx5_0" not in hosts and "node05 mlx5_1" in hosts
    switches = run(s, "ibswitches").splitlines()
    assert all(line.startswith("Switch\t: 0x") for line in switches)
    assert [line.split('"')[1] for line in switches] == [f"leaf-r{r}-01" for r in range(8)] + ["spine-01", "spine-02"]


def test_ibqueryerrors_reports_errors_and_congestion_but_not_healthy_ports():
    s = on("node01")
    apply_fault(s.cluster, "symbol-errors", {"node": "node03", "port": "mlx5_0", "errors_per_s": 10})
    apply_fault(s.cluster, "congestion", {"nodes": 1})
    out = run(s, "ibqueryerrors")
    assert re.search(r'^Errors for "node03 mlx5_0"\n   GUID 0x[0-9a-f]{16} port 1: '
                     r"\[SymbolErrorCounter == \d+ \(\d+\.\d{3}K?\)\]", out, re.M)
    assert "PortXmitWait ==" in out
    # node03's port, the congested node's eight rail ports, and the eight rail leaves they hang off
    assert out.count("Errors for") == 17
    assert 'Errors for "node02 mlx5_7"' in out and '"leaf-r7-01"' in out
    assert "## Summary: 74 nodes checked" in out
    assert "Errors for" not in run(on("node01"), "ibqueryerrors")


def test_ibqueryerrors_exporter_options_add_data_counters_and_link_info():
    s = on("node01")
    apply_fault(s.cluster, "symbol-errors", {"node": "node03", "port": "mlx5_0", "errors_per_s": 10})
    out = run(s, "ibqueryerrors --verbose --details --suppress-common --data --report-port --switch --ca")
    lines = out.splitlines()
    at = lines.index('Errors for "node03 mlx5_0"')
    assert re.fullmatch(r"   GUID 0x[0-9a-f]{16} port 1: \[SymbolErrorCounter == \d+ \([\d.]+K?\)\] "
                        r"\[PortRcvErrors == (\d+) \([\d.]+K?\)\] \[PortInactiveDiscards == \1\] "
                        r"\[PortXmitData == \d+ \([\d.]+[KMGT]B\)\] \[PortRcvData == \d+ \([\d.]+[KMGT]B\)\].*"
                        r"\[PortMulticastRcvPkts == \d+ \([\d.]+K?\)\]", lines[at + 1])
    leaf = s.cluster.nodes["node03"].nics[0].peer_switch
    assert re.fullmatch(r"       Link info:    116   1\[  \] ==\( 4X        106\.25 Gbps Active/  LinkUp\)==>  "
                        rf'0xfc6a1c03[0-9a-f]{{8}} +\d+ +\d+\[  \] "{leaf}" \( \)', lines[at + 2])
    assert out.endswith("\n## Suppressed: PortRcvSwitchRelayErrors\n")
    assert "\n\n## Summary: 74 nodes checked, 1 bad nodes found\n" in out
    assert "Errors for 0x" not in out       # the leaf port facing it receives cleanly
    cas_only = run(s, "ibqueryerrors --ca")
    assert leaf not in cas_only and "## Summary: 64 nodes checked, 1 bad nodes found" in cas_only
    assert '"node03 mlx5_0"' not in run(s, "ibqueryerrors --switch")


def test_ibqueryerrors_human_readable_values_follow_infiniband_diags():
    assert [human(0), human(40), human(6714), human(29638), human(2930775814)] == \
        ["0.000", "40.000", "6.557K", "28.943K", "2.729G"]
    assert [human(100, data=True), human(300, data=True), human(1934732822901, data=True)] == \
        ["400.000B", "1.172KB", "7.039TB"]


def test_ibqueryerrors_names_the_congested_leaf_uplinks():
    s = on("node01")
    apply_fault(s.cluster, "congestion", {"nodes": 2})
    out = run(s, "ibqueryerrors")
    assert re.search(r'^Errors for 0xfc6a1c03[0-9a-f]{8} "leaf-r0-01"\n   GUID 0x[0-9a-f]{16} port 33: '
                     r"\[PortXmitWait == \d+ \([\d.]+[KMG]?\)\]", out, re.M)
    assert "SymbolErrorCounter ==" not in out


def test_ibnetdiscover_topology_file_names_both_ends_and_the_speed():
    s = on("node01")
    apply_fault(s.cluster, "link-rate", {"node": "node03", "port": "mlx5_0"})
    out = run(s, "ibnetdiscover")
    assert out.startswith("#\n# Topology file: generated on Wed Mar 11 09:00:")
    assert re.search(r'^\[3\]\t"H-[0-9a-f]{16}"\[1\]\([0-9a-f]{16}\) \t\t# "node03 mlx5_0" lid 116 4xHDR$', out, re.M)
    assert re.search(r'^Ca\t1 "H-[0-9a-f]{16}"\t\t# "node01 mlx5_0"$', out, re.M)


def test_sminfo_reports_the_master():
    out = run(on("node01"), "sminfo")
    assert re.fullmatch(r"sminfo: sm lid 1 sm guid 0x[0-9a-f]{16}, activity count \d+ priority 15 state 3 "
                        r"SMINFO_MASTER\n", out)


def test_ibclearcounters_then_ibqueryerrors_shows_only_what_grew():
    s = on("node01")
    apply_fault(s.cluster, "symbol-errors", {"node": "node02", "port": "mlx5_0", "errors_per_s": 2})
    assert run(s, "ibclearcounters") == "## Summary: 74 nodes cleared 0 errors\n"
    assert "Errors for" not in run(s, "ibqueryerrors")
    run(s, "sleep 30")
    grown = run(s, "ibqueryerrors")
    count = int(re.search(r'"node02 mlx5_0"\n   GUID 0x[0-9a-f]{16} port 1: \[SymbolErrorCounter == (\d+) ',
                          grown).group(1))
    assert 60 <= count <= 80   # 2 per second over the sleep and the commands' own time


def test_a_powered_off_node_drops_out_of_the_fabric_but_a_panicked_one_does_not():
    off = on("node01")
    apply_fault(off.cluster, "host-down", {"node": "node03", "cause": "psu-failure"})
    assert '           2    3[  ] ==(                Down/ Polling)==>             [  ] "" ( )' in run(off, "iblinkinfo")
    assert "node03" not in run(off, "ibhosts")
    panicked = on("node01")
    apply_fault(panicked.cluster, "host-down", {"node": "node03", "cause": "kernel-panic"})
    assert '"node03 mlx5_0"' in run(panicked, "ibhosts")   # the HCA's firmware still answers


def test_every_rail_port_asks_the_same_subnet_manager_and_a_bad_port_is_refused():
    s = on("node01")
    master = run(s, "sminfo")
    assert run(s, "sminfo -C mlx5_4") == master == run(s, "sminfo -C mlx5_7 -P 1")
    assert run(s, "ibswitches -C mlx5_3") == run(s, "ibswitches")
    out, status = s.execute("ibhosts -C mlx5_0 -P 2")
    assert status == 255 and "can't open UMAD port (mlx5_0:2)" in out
