"""ip and ethtool through the shell: interfaces, addresses and link state from the model."""

from __future__ import annotations

import re

from emulator.cluster.faults import apply_fault
from emulator.session import Session


def on(node: str, *faults: tuple[str, dict[str, object]], seed: int = 0) -> Session:
    """A sandbox session logged in to ``node`` with ``faults`` applied."""
    s = Session(seed=seed)
    for name, params in faults:
        apply_fault(s.cluster, name, params)
    s.shell.push_host(s.cluster.nodes[node])
    return s


def run(s: Session, line: str) -> str:
    out, status = s.execute(line)
    assert status == 0, out
    return out


def test_ip_brief_addresses():
    out = run(on("node01"), "ip -br a")
    assert out.splitlines()[0] == "lo               UNKNOWN        127.0.0.1/8 ::1/128 "
    assert re.search(r"^eno1 +UP +10\.10\.0\.11/16 ", out, re.M)


def test_ip_unknown_device_and_object():
    s = on("node01")
    assert s.execute("ip link show eth7") == ('Device "eth7" does not exist.\n', 1)
    assert s.execute("ip bogus") == ('Object "bogus" is unknown, try "ip help".\n', 255)


def test_ethtool_ib_speed_follows_rate():
    s = on("node03", ("link-rate", {"node": "node03", "port": "mlx5_5"}))
    assert "\tSpeed: 200000Mb/s\n" in run(s, "ethtool ibp192s0")
    assert "\tSpeed: 400000Mb/s\n" in run(s, "ethtool ibp24s0")


def test_ip_s_link_counts_the_same_bytes_as_ethtool():
    s = on("node01")
    ip_out = run(s, "ip -s link show enp41s0f0np0").splitlines()
    assert ip_out[2] == "    RX:  bytes packets errors dropped  missed   mcast           "
    rx_ip = int(ip_out[3].split()[0])
    rx_ethtool = int(re.search(r"rx_bytes: (\d+)", run(s, "ethtool -S enp41s0f0np0")).group(1))
    assert rx_ethtool >= rx_ip > 0
