"""A host's ``/var/log``: ``kern.log``, ``syslog`` and ``auth.log``, rendered from the node's kernel log,
service journals and authentication records (rsyslog's Ubuntu defaults: auth goes to ``auth.log`` only).

Lines appear as the simulated clock reaches them; each names its source as
``journalctl`` does, with the kernel's time since boot.
"""

from __future__ import annotations

from emulator.cluster.model import Cluster, Node
from emulator.cluster.services import journal_source, unit_journal
from emulator.hostfs.tree import tree
from emulator.vfs import Dir, File


def var_log_dir(cluster: Cluster, node: Node) -> Dir:
    """The node's ``/var/log``: ``kern.log`` and ``syslog``, readable by root and adm."""
    return tree({
        "kern.log": File(lambda: _kern_log(cluster, node), mode=0o640, owner="syslog", group="adm"),
        "syslog": File(lambda: _syslog(cluster, node), mode=0o640, owner="syslog", group="adm"),
        "auth.log": File(lambda: _auth_log(cluster, node), mode=0o640, owner="syslog", group="adm"),
    })


def _auth_log(cluster: Cluster, node: Node) -> str:
    now = cluster.clock.elapsed
    lines = [f"{_syslog_stamp(cluster, at)} {node.name} {program}: {message}"
             for at, program, message in node.hw.auth_log if at <= now]
    return "\n".join(lines[-5000:]) + ("\n" if lines else "")


def _syslog_stamp(cluster: Cluster, offset: float) -> str:
    return cluster.clock.at(offset).strftime("%b %e %H:%M:%S")


def _kern_log(cluster: Cluster, node: Node) -> str:
    boot = node.health.boots[-1].offset_s if node.health.boots else 0.0
    now = cluster.clock.elapsed
    lines = []
    for event in node.hw.kernel_log:
        if event.offset_s > now:
            continue
        lines.append(f"{_syslog_stamp(cluster, event.offset_s)} {node.name} kernel: "
                     f"[{max(0.0, event.offset_s - boot):12.6f}] {event.text}")
    return "\n".join(lines[-5000:]) + ("\n" if lines else "")


def _syslog(cluster: Cluster, node: Node) -> str:
    """Kernel messages and service journals, named as ``journalctl`` names their sources."""
    now = cluster.clock.elapsed
    entries: list[tuple[float, str]] = []
    boot = node.health.boots[-1].offset_s if node.health.boots else 0.0
    for event in node.hw.kernel_log:
        if event.offset_s <= now:
            entries.append((event.offset_s, f"kernel: [{max(0.0, event.offset_s - boot):12.6f}] {event.text}"))
    for unit, service in node.hw.services.items():
        for offset, message in unit_journal(cluster, node, service):
            if offset <= now:
                entries.append((offset, f"{journal_source(unit, service, message)}: {message}"))
    entries.sort(key=lambda e: e[0])
    lines = [f"{_syslog_stamp(cluster, at)} {node.name} {text}" for at, text in entries[-5000:]]
    return "\n".join(lines) + ("\n" if lines else "")
