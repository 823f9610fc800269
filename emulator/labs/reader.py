"""Typed reading of one table of a lab file, with errors that name the file and the field."""

from __future__ import annotations

from typing import Any

from emulator.errors import LabError


class TableReader:
    """Typed access to one table of a lab file; errors name the file and field."""

    def __init__(self, source: str, data: dict[str, Any], path: str = "") -> None:
        self.source, self.data, self.path = source, data, path

    def where(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str | int, problem: str) -> LabError:
        return LabError(f"{self.source}: {self.where(key)}: {problem}")

    def unknown(self, allowed: set[str]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.fail(key, "unknown field")

    def get(self, key: str, kind: type | tuple[type, ...], name: str, default: Any = ..., ) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.fail(key, "missing")
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.fail(key, f"expected {name}")
        return value

    def text(self, key: str, default: Any = ...) -> str:
        value = self.get(key, str, "a string", default)
        if isinstance(value, str) and not value.strip() and default is ...:
            raise self.fail(key, "must not be empty")
        return value

    def strings(self, key: str, default: Any = ..., nonempty: bool = True) -> list[str]:
        items = self.get(key, list, "a list of strings", default)
        if nonempty and not items and default is ...:
            raise self.fail(key, "must not be empty")
        sub = TableReader(self.source, {}, self.where(key))
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise sub.fail(i, "expected a string")
            if not item.strip():
                raise sub.fail(i, "must not be empty")
        return list(items)

    def table(self, key: str, default: Any = ...) -> TableReader:
        return TableReader(self.source, self.get(key, dict, "a table", default), self.where(key))

    def items(self, key: str) -> list[TableReader]:
        """A list whose items are strings or tables (each wrapped; strings as ``data``)."""
        items = self.get(key, list, "a list", [])
        readers = []
        for i, item in enumerate(items):
            if not isinstance(item, (str, dict)):
                raise TableReader(self.source, {}, self.where(key)).fail(i, "expected a string or a table")
            readers.append(TableReader(self.source, item, f"{self.where(key)}[{i}]"))  # type: ignore[arg-type]
        return readers

    def tables(self, key: str) -> list[TableReader]:
        items = self.get(key, list, "an array of tables", [])
        readers = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise TableReader(self.source, {}, self.where(key)).fail(i, "expected a table")
            readers.append(TableReader(self.source, item, f"{self.where(key)}[{i}]"))
        return readers
