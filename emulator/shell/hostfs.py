"""The files each host shows, built from the cluster model.

``/home`` and ``/lustre`` are shared by every host; ``/etc``, ``/proc``,
``/sys``, ``/var/log``, ``/tmp`` and ``/dev`` belong to one host. Files
under ``/proc`` and ``/sys`` are callables, rendered from the model when read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..vfs import Dir, File, FileSystem

if TYPE_CHECKING:  # pragma: no cover
    from ..cluster.model import Cluster, Node


def shared_dirs(cluster: Cluster) -> dict[str, Dir]:
    """The directories every host mounts: ``/home`` and ``/lustre``."""
    home = Dir({"alice": Dir(owner="alice", group="alice")})
    lustre = Dir()
    return {"home": home, "lustre": lustre}


def build(cluster: Cluster, node: Node, shared: dict[str, Dir]) -> FileSystem:
    """The whole tree of one host."""
    root = Dir({
        "home": shared["home"],
        "lustre": shared["lustre"],
        "tmp": Dir(mode=0o1777),
        "dev": Dir({"null": File("", mode=0o666)}),
        "etc": Dir({"hostname": File(f"{node.name}\n")}),
    })
    return FileSystem(root, lambda: cluster.clock.elapsed)
