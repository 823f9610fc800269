"""Answers of costly model queries, kept for the length of one command that changes nothing.

One ``nvidia-smi`` samples eight GPUs, and each sample asks for the run's
step profile (:func:`emulator.cluster.steps.profile`) to know how busy its
rank was over the last second; ``dcgmi dmon`` and the job's files ask again.
The answer depends only on the cluster's state (the run, faults, links,
storage, the processes beside the run), never on the clock, so while that
state cannot change it can be computed once.

The rule that keeps a kept answer true:

* The shell opens a :func:`scope` around each piece of a command it runs (its
  start, and each stretch between two pauses) and says whether the command
  changes nothing in the model (``Command.leaves_model`` for its words: every
  pure run, the promise a session restore relies on to skip a line, and
  commands read to change nothing though they pause: ``nvidia-smi``, whose
  setters are refused, and ``dcgmi dmon``; not the nccl-tests sweeps,
  which slow a training job they run beside). Answers are kept only while the
  innermost scope is such a command; every scope's opening and closing forgets
  them all. So a command that may change the model (``kill``, ``scancel``,
  ``scontrol``, ``srun``, ``sudo``, ``nvidia-smi -r``, ``lab start``) never
  reads a kept answer, not even one a command it runs kept; the next command
  starts afresh; and nothing is kept across a pause, where the clock advances
  and its timers (a node finishing its boot, a job ending) may change the model.
* A command that changes the model may open an unchanging scope of its own
  around a stretch of it that only reads (an nccl-tests sweep weighing what
  the jobs on its GPUs leave it before it starts sharing them).
* Outside any scope (a lab being built, a test calling the model directly,
  the lab's objectives read after a line) nothing is kept.
* An answer is filed under the identity of the objects it was computed from
  (the cluster, and the training run :func:`~emulator.cluster.steps.profile_of`
  swaps in) plus plain values; the entry holds those objects, so no other
  object can take their ``id`` while it is kept.

The clock is no key: it advances with every output line, and the step
profile and NCCL's options never read it. A query that reads an instant (a
GPU's sample) has that instant among its values, and the scope rules above
keep it no longer than the model stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

#: One flag per open scope, innermost last: whether its command changes nothing.
_scopes: list[bool] = []
#: Kept answers: (query, ids of its objects, its values) -> (the objects, the answer).
_kept: dict[Hashable, tuple[tuple[object, ...], Any]] = {}


@contextmanager
def scope(unchanging: bool) -> Iterator[None]:
    """Run a piece of one command; answers are kept within it only if ``unchanging``."""
    _kept.clear()
    _scopes.append(unchanging)
    try:
        yield
    finally:
        _scopes.pop()
        _kept.clear()


def kept(query: str, objects: tuple[object, ...], values: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or the answer kept for the same query on the same objects and values in this scope."""
    if not (_scopes and _scopes[-1]):
        return compute()
    key = (query, tuple(id(o) for o in objects), values)
    entry = _kept.get(key)
    if entry is None:
        entry = _kept[key] = (objects, compute())
    answer: T = entry[1]
    return answer
