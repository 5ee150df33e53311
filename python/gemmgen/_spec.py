"""A spec given as a path, YAML text or a dict, as the compiler reads it."""
from __future__ import annotations

import json
import os
import re
from typing import Any, Mapping, Union

from . import _core

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")

SpecLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        if _PLAIN.fullmatch(v) and v.lower() not in ("true", "false", "null", "yes", "no", "on", "off"):
            return v
        return json.dumps(v)  # a double-quoted YAML scalar
    raise TypeError(f"spec values must be str, int, float, bool, lists or dicts; got {type(v).__name__}")


def _yaml_lines(node: Any, indent: int, out: list) -> None:
    pad = "  " * indent
    if isinstance(node, Mapping):
        for key, value in node.items():
            if not isinstance(key, str):
                raise TypeError(f"spec keys must be strings; got {key!r}")
            if isinstance(value, Mapping) and value:
                out.append(f"{pad}{key}:")
                _yaml_lines(value, indent + 1, out)
            elif isinstance(value, (list, tuple)) and any(isinstance(x, (Mapping, list, tuple)) for x in value):
                out.append(f"{pad}{key}:")
                _yaml_lines(list(value), indent + 1, out)
            elif isinstance(value, (list, tuple)):
                out.append(f"{pad}{key}: [{', '.join(_scalar(x) for x in value)}]")
            elif isinstance(value, Mapping):
                out.append(f"{pad}{key}: {{}}")
            else:
                out.append(f"{pad}{key}: {_scalar(value)}")
    else:
        for item in node:
            if isinstance(item, Mapping):
                sub: list = []
                _yaml_lines(item, indent + 1, sub)
                if not sub:
                    out.append(f"{pad}- {{}}")
                    continue
                out.append(f"{pad}- {sub[0].lstrip()}")
                out.extend(sub[1:])
            elif isinstance(item, (list, tuple)):
                out.append(f"{pad}- [{', '.join(_scalar(x) for x in item)}]")
            else:
                out.append(f"{pad}- {_scalar(item)}")


def to_yaml(spec: Mapping[str, Any]) -> str:
    """Block-style YAML for a spec dict (one key a line, so that diagnostics
    point at a line of their own)."""
    lines: list = []
    _yaml_lines(spec, 0, lines)
    return "\n".join(lines) + "\n"


def source(spec: SpecLike) -> "_core.SpecSource":
    """A path (str or os.PathLike naming a file, or ending in .yaml/.yml),
    YAML text (a str with a newline or that names no file), or a dict."""
    if isinstance(spec, Mapping):
        return _core.SpecSource(to_yaml(spec), "<dict>", False)
    if isinstance(spec, os.PathLike):
        return _core.SpecSource(os.fspath(spec), os.fspath(spec), True)
    if not isinstance(spec, str):
        raise TypeError(f"a spec is a path, YAML text or a dict; got {type(spec).__name__}")
    if "\n" not in spec and (spec.endswith((".yaml", ".yml")) or os.path.isfile(spec)):
        return _core.SpecSource(spec, spec, True)
    return _core.SpecSource(spec, "<string>", False)
