"""The remediation ladder for a suspect GPU, and the rung a GPU's state calls for.

:data:`LADDER` lists the rungs from the least to the most disruptive, each a
step, a question or the last resort. The handbook's figure of the ladder
(``tools/figure_diagrams.py``) is drawn from this table, and ``submit``, once
the learner has named a GPU error right, says which rung that GPU's state calls
for (:func:`next_rung`), so the picture and the terminal cannot disagree.

Sources:

* NVIDIA, *Analyzing Xid Errors with the Xid Catalog*
  (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html): each
  Xid's immediate action; RESTART_APP for an error the GPU contained (13, 31,
  94), RESET_GPU for 64, 95 and 119, RESTART_BM (reboot) for 79 (the
  project's notes on facts, section 5).
* NVIDIA, *GPU memory error management: Error Recovery and Response Flags*
  (docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-flags.html):
  a pending row remap takes effect at the next GPU reset; to reset, "terminate
  all GPU processes, reset the GPU using nvidia-smi -r"; a fault that may have
  left the OS inconsistent needs a reboot.
* NVIDIA, *RMA Process* (docs.nvidia.com/deploy/rma-process/): run
  ``nvidia-bug-report.sh`` as soon as the issue is seen and send its log with
  the RMA request.
* NVIDIA, *GPU memory error management: User Visible Statistics*
  (docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/user-visible-statistics.html):
  Xid 48 is the uncorrectable ECC error, 63 the row-remapping entry recorded,
  94 a contained and 95 an uncontained error; what :data:`CHAIN_ROLES` says of
  a burst of them.
* scontrol(1): ``reboot nextstate=DOWN`` keeps the node out of service after
  the boot, where ``nextstate=RESUME`` would return it before any check (notes
  on facts, section 12); ``dcgmi diag -r 3`` is the long diagnostic (section 6).
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.cluster.hardware import GPU


@dataclass(frozen=True)
class Rung:
    """One rung: ``kind`` is "step", "ask" (a question whose answer picks the next rung) or "last" (replace)."""

    key: str
    kind: str
    title: str
    detail: str


#: The ladder, from the least to the most disruptive; a question's yes/no rungs are in :data:`ANSWERS`.
LADDER = (
    Rung("drain", "step", "Drain the node", 'scontrol update nodename=<node> state=drain reason="…"'),
    Rung("evidence", "step", "Keep the evidence", "nvidia-smi -q, dmesg -T (Xid), dcgmi health -c, nvidia-bug-report.sh"),
    Rung("resettable", "ask", "Reset Required or remap pending, the GPU still on the bus,", "and no process using it?"),
    Rung("reset", "step", "Reset the GPU", "nvidia-smi -r -i <gpu>"),
    Rung("reboot", "step", "Reboot the node, keep it out of service", "scontrol reboot nextstate=DOWN <node>"),
    Rung("passes", "ask", "dcgmi diag -r 3 passes, and the", "error does not come back?"),
    Rung("resume", "step", "Return to service", "scontrol update nodename=<node> state=resume"),
    Rung("replace", "last", "Replace the part", "RMA with the bug report and the diag log"),
)
#: question → (rung on yes, rung on no).
ANSWERS = {"resettable": ("reset", "reboot"), "passes": ("resume", "replace")}
#: After a reset or a reboot, the ladder goes on to this question.
AFTER_FIX = "passes"

RUNGS = {rung.key: rung for rung in LADDER}

#: What each Xid of an uncorrectable memory error's burst tells, for the learner who named its first.
CHAIN_ROLES = {
    48: "the uncorrectable (double-bit) ECC error itself",
    63: "the row remap that error recorded, to take effect at the next GPU reset",
    94: "the error contained: only the process using that memory was stopped",
    95: "the error not contained: every process on the GPU was stopped",
}


def next_rung(gpu: GPU) -> Rung | None:
    """The fix the GPU's state calls for once the node is drained and the evidence kept: a reset while the
    GPU is on the bus and asks for one (Reset Required, a row remap pending or failed), a reboot once it has
    fallen off the bus; None when it asks for neither (an error the GPU contained: restart the application)."""
    if not gpu.present:
        return RUNGS["reboot"]
    if gpu.reset_required or gpu.remap_pending or gpu.remap_failure:
        return RUNGS["reset"]
    return None


def chain(gpu: GPU) -> str:
    """How the Xids of one memory-error burst on ``gpu`` relate: the first is the primary error, the rest
    follow from it; "" when the GPU logged one Xid code only (or one outside :data:`CHAIN_ROLES`)."""
    codes = list(dict.fromkeys(gpu.xids))
    if len(codes) < 2 or not all(code in CHAIN_ROLES for code in codes):
        return ""
    primary, *rest = codes
    named = ", ".join(map(str, codes[:-1])) + f" and {codes[-1]}"
    follow = "; ".join(f"Xid {code} is {CHAIN_ROLES[code]}" for code in rest)
    return (f"GPU {gpu.index} logged Xid {named} in one burst, milliseconds apart: Xid {primary} is the primary "
            f"error, {CHAIN_ROLES[primary]}; {follow}.")


def advice(gpu: GPU, node: str) -> str:
    """What the learner reads once the GPU error is named right: how its Xids relate (:func:`chain`), then
    the rung ``gpu`` on ``node`` calls for, and the test before its return."""
    story = chain(gpu)
    return f"{story} {_rung_advice(gpu, node)}" if story else _rung_advice(gpu, node)


def _rung_advice(gpu: GPU, node: str) -> str:
    rung = next_rung(gpu)
    test = RUNGS[AFTER_FIX]
    contained = 94 in gpu.xids and gpu.remap_pending and not gpu.reset_required and gpu.present
    if rung is None:
        return (f"Next, by the remediation ladder: GPU {gpu.index} on {node} is on the bus and asks for no reset; "
                "the error was contained, so restart the application. If it comes back, drain the node and run "
                "dcgmi diag -r 3.")
    command = rung.detail.replace("<gpu>", str(gpu.index)).replace("<node>", node)
    action = rung.title[0].lower() + rung.title[1:]
    if contained:
        return (f"Next, by the remediation ladder: the error was contained, so the application can restart "
                f"(Xid 94), but the row remap pending on GPU {gpu.index} takes effect only at a GPU reset: drain "
                f"{node} and keep the evidence, then {action} ({command}). If {test.title} "
                f"{test.detail.removesuffix('?')}, return the node to service; if not, "
                f"{RUNGS['replace'].title.lower()}.")
    return (f"Next, by the remediation ladder: drain {node} and keep the evidence, then {action} ({command}). "
            f"If {test.title} {test.detail.removesuffix('?')}, return the node to service; if not, "
            f"{RUNGS['replace'].title.lower()}.")
