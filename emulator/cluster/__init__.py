"""The cluster model: its state, its builder, its queries, its physics and its faults.

Owns everything that is true of the simulated cluster whatever tool looks at
it: hardware and jobs (``model``, ``hardware``, ``scheduler``, ``training``),
the rates that bound traffic (``links``, ``collectives``, ``gpu_rates``), the
load a step puts on them (``steps``) and where the steps fall on the clock
(``timeline``), the readings that grow with that load (``counters``,
``telemetry``, ``processes``, ``nccl_debug``, ``activity``), the training
job's files (``jobscript``, ``trainlog``, ``slurmout``, ``checkpoints``,
joined by path in ``jobfiles``), host facts (``boots``, ``services``,
``pci``, ``health``, ``accounts``), what happens over time (``lifecycle``)
and the faults labs inject (``faults``); ``memo`` keeps costly answers for
the length of one command that changes nothing.

It imports only ``emulator.vfs`` and ``emulator.errors`` from outside itself;
nothing here knows of the tools, the shell or the files rendered from the model.
Import its modules directly (``from emulator.cluster import steps``).
"""

__all__: list[str] = []
