"""The cluster's user accounts: names and uids, the same on every host and in Slurm."""

from __future__ import annotations

#: The learner: every session logs in as this user (``sudo -u`` runs one command as another).
LEARNER = "alice"

#: Accounts of the cluster's users: name → uid (the group has the same id).
UIDS = {"root": 0, "slurm": 64030, "alice": 1001, "bob": 1002, "carol": 1003, "dave": 1004, "erin": 1005}

#: Operators whose sudo runs leave audit lines when a fault is something one of them did by hand.
OPERATORS = ("carol", "dave", "erin")

#: System accounts the hosts' passwd has beyond Slurm's user table (alice and the others share
#: it), under the names ``ps`` truncates with ``+``.
HOST_UIDS = {"systemd+": 101, "nvidia-+": 113}

#: Supplementary groups by user, as (gid, name): the learner may open the GPU device files (video) and
#: submit to the cluster's partitions (hpc-users). ``id`` and ``/proc/<pid>/status`` both read this.
SUPPLEMENTARY = {"alice": ((44, "video"), (1500, "hpc-users"))}


#: The BMCs' operator account, the same on every node's BMC: (user, password). Operators keep it in
#: ``/etc/ipmi/bmc.cred`` on the login node, readable by root only (``sudo cat``), and pass it to
#: ``ipmitool -U ... -P ...`` or ``-E`` with ``IPMI_PASSWORD``; any other password is refused.
BMC_CREDENTIAL = ("admin", "admin")


def uid_of(user: str) -> int:
    return HOST_UIDS.get(user, UIDS.get(user, 0))


def groups_of(user: str) -> list[tuple[int, str]]:
    """The user's groups as (gid, name), its own group first, as ``id`` lists them."""
    own = [(uid_of(user), user)] if user in UIDS or user in HOST_UIDS else []
    return own + list(SUPPLEMENTARY.get(user, ()))
