"""Blank the comments and docstrings of the Python sources the wheel ships.

The wheel carries each module's source (CPython compiles it; Pyodide's
bytecode beside it is checked against it by nothing but its hash). Nothing
reads a comment or a docstring at run time, except a module that names
``__doc__`` itself, whose module docstring stays; a decorated class keeps its
docstring too, since ``dataclass`` would otherwise write one, at import,
from the class's signature. Each is replaced by
nothing (a docstring by ``""``, so that a body never becomes empty) with its
newlines kept, so every line keeps its number: a traceback from the wheel
points at the same line as one from the checkout.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path


def _names_doc(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.Name) and node.id == "__doc__" for node in ast.walk(tree))


def _docstrings(tree: ast.Module) -> list[ast.Constant]:
    """The docstring constants of the module, its classes and its functions."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                if node is tree and _names_doc(tree):
                    continue
                if isinstance(node, ast.ClassDef) and node.decorator_list:
                    continue  # a dataclass without a docstring gets one made from its signature, at import
                found.append(first.value)
    return found


def _lines(text: str) -> list[str]:
    """The lines as Python counts them (ended by \\n, \\r\\n or \\r), each with its ending."""
    return io.StringIO(text, newline="").readlines()


def blank(source: str) -> str:
    """``source`` without comments and docstrings, each line at its old number."""
    lines = _lines(source)
    # (row, start column, end row, end column, replacement), rows from 1, applied last first
    edits: list[tuple[int, int, int, int, str]] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            (row, col), (end_row, end_col) = token.start, token.end
            edits.append((row, col, end_row, end_col, ""))
    for constant in _docstrings(ast.parse(source)):
        assert constant.end_lineno is not None and constant.end_col_offset is not None
        newlines = constant.end_lineno - constant.lineno
        edits.append((constant.lineno, constant.col_offset, constant.end_lineno, constant.end_col_offset,
                      '""' + "\n" * newlines))
    for row, col, end_row, end_col, text in sorted(edits, reverse=True):
        if text == "":  # a comment, to the end of its line; tokenize's columns are characters
            line = lines[row - 1]
            lines[row - 1] = line[:col].rstrip() + line[len(line.rstrip("\r\n")):]
            continue
        first, last = lines[row - 1].encode(), lines[end_row - 1].encode()
        # ast's columns count UTF-8 bytes
        joined = first[:col].decode() + text + last[end_col:].decode()
        lines[row - 1:end_row] = _lines(joined)
    out = "".join(lines)
    if out.count("\n") != source.count("\n"):
        raise ValueError("blanking changed the number of lines")
    return out


def blank_tree(folder: Path) -> int:
    """Blank every ``.py`` file under ``folder`` in place; the bytes saved."""
    saved = 0
    for path in sorted(folder.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        blanked = blank(source)
        path.write_text(blanked, encoding="utf-8")
        saved += len(source.encode()) - len(blanked.encode())
    return saved
