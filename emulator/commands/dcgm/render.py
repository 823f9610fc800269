"""How dcgmi draws: table cells hard-wrapped mid-word, and JSON as JsonCpp styles it."""

from __future__ import annotations

import json


def wrap_cells(text: str, width: int) -> list[str]:
    """DCGM's table cells: hard-wrapped every ``width`` characters, mid-word."""
    return [text[i:i + width] for i in range(0, len(text), width)] or [""]


def styled_json(value: object) -> str:
    """``Json::Value::toStyledString()``: keys sorted, three-space indent, ``"key" : value``, short scalar
    arrays on one line."""
    out: list[str] = []
    _styled(value, 0, out)
    return "".join(out) + "\n"


def _styled(value: object, depth: int, out: list[str]) -> None:
    pad = "   " * depth
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        out.append("{\n")
        items = sorted(value.items())
        for n, (key, child) in enumerate(items):
            out.append(f"{pad}   {json.dumps(key)} : ")
            _styled(child, depth + 1, out)
            out.append(",\n" if n + 1 < len(items) else "\n")
        out.append(pad + "}")
    elif isinstance(value, list):
        scalars = [json.dumps(v) for v in value if not isinstance(v, dict | list)]
        if not value:
            out.append("[]")
        elif len(scalars) == len(value) and 4 + 2 * (len(value) - 1) + sum(map(len, scalars)) < 74:
            out.append("[ " + ", ".join(scalars) + " ]")
        else:
            out.append("[\n")
            for n, child in enumerate(value):
                out.append(pad + "   ")
                _styled(child, depth + 1, out)
                out.append(",\n" if n + 1 < len(value) else "\n")
            out.append(pad + "]")
    else:
        out.append(json.dumps(value))
