"""ip and ethtool through the shell: interfaces, addresses and link state from the model."""

from __future__ import annotations

import re

from emulator.cluster.faults import apply_fault
from emulator.commands.fabric.netif import Ip
from tests.support import on, run


def test_ip_brief_addresses():
    out = run(on("node01"), "ip -br a")
    assert out.splitlines()[0] == "lo               UNKNOWN        127.0.0.1/8 ::1/128 "
    assert re.search(r"^eno1 +UP +10\.10\.0\.11/16 ", out, re.M)


def test_ip_unknown_device_and_object():
    s = on("node01")
    assert s.execute("ip link show eth7") == ('Device "eth7" does not exist.\n', 1)
    assert s.execute("ip bogus") == ('Object "bogus" is unknown, try "ip help".\n', 255)


def test_ethtool_ib_speed_follows_rate():
    s = on("node03")
    apply_fault(s.cluster, "link-rate", {"node": "node03", "port": "mlx5_5"})
    assert "\tSpeed: 200000Mb/s\n" in run(s, "ethtool ibp192s0")
    assert "\tSpeed: 400000Mb/s\n" in run(s, "ethtool ibp24s0")


def test_ip_s_link_counts_the_same_bytes_as_ethtool():
    s = on("node01")
    ip_out = run(s, "ip -s link show enp41s0f0np0").splitlines()
    assert ip_out[2] == "    RX:  bytes packets errors dropped  missed   mcast           "
    rx_ip = int(ip_out[3].split()[0])
    rx_ethtool = int(re.search(r"rx_bytes: (\d+)", run(s, "ethtool -S enp41s0f0np0")).group(1))
    assert rx_ethtool >= rx_ip > 0


def test_every_flag_ip_declares_is_accepted():
    s = on("node01")
    for spelling in Ip().option_strings():
        out, status = s.execute(f"ip {spelling} link")
        assert status == 0 and "unknown" not in out, (spelling, out)


def test_every_option_ips_usage_offers_is_declared():
    options = run(on("node01"), "ip -h").splitlines()[2]
    offered = {s for name, rest in re.findall(r"(-\w+)(?:\[(\w+)\])?", options) for s in (name, name + rest)}
    assert offered <= set(Ip().option_strings())
