"""The whole tree of one host, built from the cluster model.

``/home`` and ``/lustre`` are shared by every host (NFS and the parallel
filesystem; :mod:`emulator.hostfs.shared`); ``/etc``, ``/proc``, ``/sys``,
``/var/log``, ``/tmp`` and ``/dev`` belong to one host, each from its own
module. Files under ``/proc``, ``/sys`` and the job directory are callables
rendered from the model when read, so they change as the simulated clock
runs and as faults act.
"""

from __future__ import annotations

from emulator.cluster.model import Cluster, Node
from emulator.hostfs.etc import etc_dir
from emulator.hostfs.proc import proc_dir
from emulator.hostfs.sysfs import populate_sys
from emulator.hostfs.varlog import var_log_dir
from emulator.vfs import Dir, File, FileSystem


def build(cluster: Cluster, node: Node, shared: dict[str, Dir]) -> FileSystem:
    """The whole tree of one host."""
    root = Dir({
        "home": shared["home"],
        "lustre": shared["lustre"],
        "tmp": Dir(mode=0o1777),
        "dev": Dir({"null": File("", mode=0o666), "zero": File("", mode=0o666)}),
        "etc": etc_dir(cluster, node),
        "proc": proc_dir(cluster, node),
        "sys": Dir(populate=lambda d: populate_sys(cluster, node, d)),
        "var": Dir({"log": var_log_dir(cluster, node), "tmp": Dir(mode=0o1777)}),
        "opt": Dir(),
        "usr": Dir({"bin": Dir(), "sbin": Dir(), "local": Dir({"cuda": Dir(), "bin": Dir()})}),
    })
    if node.role == "compute":
        root.children["raid"] = Dir(mode=0o1777)
    return FileSystem(root, lambda: cluster.clock.elapsed)
