"""Import the emulator straight from its wheel, without unpacking it first: the browser's first visit.

Unpacking the wheel's six hundred files into Pyodide's in-memory file system
took about a fifth of a second on the way to a first visit's first command.
Instead, the worker writes the wheel as one file and calls :func:`mount`.
Modules are then read from the archive as they are imported: from the
bytecode the wheel carries for this Python (``__pycache__/NAME.<tag>.pyc``,
compiled from these very sources when the wheel was built, so it is not
checked against them), or compiled from the source where there is none. The
package data (the lab files, the command index) is a few small files, which
:func:`mount` extracts at once so that ``importlib.resources`` reads them as
files, as it does in an unpacked install.

The worker loads this module itself through ``zipimport``, with the wheel on
``sys.path``. :func:`mount` then takes the wheel off ``sys.path`` and forgets
the modules ``zipimport`` loaded, so that every module of the package comes
through the one finder.
"""

from __future__ import annotations

import _imp
import importlib.abc
import importlib.readers
import importlib.util
import marshal
import sys
import zipfile
from importlib.machinery import ModuleSpec
from pathlib import PurePosixPath
from types import CodeType, ModuleType

PACKAGE = "emulator"
#: Bytes before the code object in a ``.pyc``: magic number, flags, and the source's stamp or hash.
PYC_HEADER = 16


class _WheelLoader(importlib.abc.Loader):
    """Runs one module of the wheel; ``path`` is where an unpacked install would have its source."""

    def __init__(self, archive: zipfile.ZipFile, entry: str, path: str) -> None:
        self.archive = archive
        self.entry = entry
        self.path = path

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(self.get_code(module.__name__), module.__dict__)  # noqa: S102 - the module's own code

    def get_code(self, fullname: str) -> CodeType:
        folder, _, name = self.entry.rpartition("/")
        cached = f"{folder}/__pycache__/{name.removesuffix('.py')}.{sys.implementation.cache_tag}.pyc"
        try:
            data = self.archive.read(cached)
        except KeyError:
            data = b""
        if data[:4] == importlib.util.MAGIC_NUMBER:
            code = marshal.loads(memoryview(data)[PYC_HEADER:])
        else:
            code = compile(self.archive.read(self.entry), self.path, "exec", dont_inherit=True)
        if not isinstance(code, CodeType):
            raise ImportError(f"{cached} holds no code object", name=fullname)
        _imp._fix_co_filename(code, self.path)  # type: ignore[attr-defined]  # as the source loader does
        return code

    def get_resource_reader(self, fullname: str) -> importlib.readers.FileReader:
        """The package's data, read from the files :func:`mount` extracted beside ``path``."""
        return importlib.readers.FileReader(self)  # type: ignore[arg-type]


class _WheelFinder(importlib.abc.MetaPathFinder):
    """Finds the package's modules in the wheel; a folder without ``__init__.py`` is left to the path finder."""

    def __init__(self, archive: zipfile.ZipFile, site_packages: str) -> None:
        self.archive = archive
        self.entries = frozenset(archive.namelist())
        self.site_packages = site_packages

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if fullname != PACKAGE and not fullname.startswith(PACKAGE + "."):
            return None
        base = fullname.replace(".", "/")
        for entry, package in ((f"{base}/__init__.py", True), (f"{base}.py", False)):
            if entry in self.entries:
                origin = f"{self.site_packages}/{entry}"
                loader = _WheelLoader(self.archive, entry, origin)
                locations = [str(PurePosixPath(origin).parent)] if package else None
                return importlib.util.spec_from_file_location(fullname, origin, loader=loader,
                                                              submodule_search_locations=locations)
        return None


def mount(wheel: str, site_packages: str) -> None:
    """Import the package from the wheel file ``wheel`` from now on; its data goes under ``site_packages``."""
    archive = zipfile.ZipFile(wheel)
    prefix = PACKAGE + "/"
    for entry in archive.namelist():
        if entry.startswith(prefix) and not entry.endswith((".py", ".pyc", "/")):
            archive.extract(entry, site_packages)
    if wheel in sys.path:
        sys.path.remove(wheel)
    sys.path_importer_cache.pop(wheel, None)
    for name in [name for name in sys.modules if name == PACKAGE or name.startswith(prefix.replace("/", "."))]:
        del sys.modules[name]
    sys.meta_path.insert(0, _WheelFinder(archive, site_packages))
    importlib.invalidate_caches()
