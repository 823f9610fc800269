"""The emulated tools: one package per tool family, the shared kit, and the registry that lists the families.

A family (``nvsmi``, ``slurm``, ``fabric``, ...) imports the model, the files
rendered from it (``emulator.hostfs``), ``emulator.vfs`` and the kit
(``emulator.commands.kit``), never another family, the registry or the shell.
``registry`` imports every family; only the shell imports ``registry``.
"""

__all__: list[str] = []
