"""The hosts' files rendered from the model: /proc, /sys, /etc, /var/log, and the training job's logs.

Each host gets a virtual filesystem (:func:`build`) whose files are read live
from the cluster model, so ``cat /proc/meminfo`` agrees with ``free`` and a
job's ``train.log`` agrees with ``sacct``. It imports only the model
(``emulator.cluster``) and ``emulator.vfs``.
"""

from __future__ import annotations

from emulator.hostfs.build import build
from emulator.hostfs.shared import shared_dirs

__all__ = ["build", "shared_dirs"]
