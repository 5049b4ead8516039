"""Map pydantic validation errors back to `file:line: key: message`."""

from __future__ import annotations

import difflib
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from bipub.diagnostics import Diagnostic
from bipub.load.yaml_strict import YamlDoc


def dotted(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


def _known_fields(model: type[BaseModel] | None, loc: tuple[str | int, ...]) -> list[str]:
    """Field names of the model that holds `loc[-1]` (for 'did you mean' hints)."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or current is None:
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return []
        current = _inner_model(field.annotation)
    return list(getattr(current, "model_fields", {}).keys()) if current else []


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _clean_loc(loc: tuple[Any, ...], data: Any) -> tuple[str | int, ...]:
    """Keep the parts of a pydantic error location that index into the data.

    pydantic adds union-member and validator tags (`str`, `function-after[...]`) to locations;
    walking the real data tells them apart from field names (a field may well be called `date`).
    """
    out: list[str | int] = []
    current: Any = data  # walked through dicts and lists
    for i, part in enumerate(loc):
        index = part if isinstance(part, int) and not isinstance(part, bool) else -1
        if isinstance(current, dict) and isinstance(part, str) and part in current:
            out.append(part)
            current = current[part]
        elif isinstance(current, list) and 0 <= index < len(current):
            out.append(index)
            current = current[index]
        elif isinstance(current, dict) and isinstance(part, str) and i == len(loc) - 1:
            out.append(part)  # a missing or unknown key: the last part names it
        elif isinstance(current, dict) and isinstance(part, str) and not _is_tag(part):
            out.append(part)
            current = None
    return tuple(out)


def _is_tag(part: str) -> bool:
    return "[" in part or part in ("str", "int", "float", "bool", "none", "list", "dict")


def validation_diagnostics(
    exc: ValidationError,
    doc: YamlDoc,
    rel: str,
    *,
    code: str = "schema",
    path_prefix: tuple[str | int, ...] = (),
    model: type[BaseModel] | None = None,
) -> list[Diagnostic]:
    """One diagnostic per distinct error location, with the YAML line of the offending key.

    `model` (the validated model) lets an unknown key get a 'did you mean' hint."""
    seen: dict[tuple[str | int, ...], Diagnostic] = {}
    for err in exc.errors(include_url=False):
        loc = _clean_loc(err["loc"], _data_at(doc.data, path_prefix))
        key = dotted(loc) or "(document)"
        line = doc.line_for((*path_prefix, *loc))
        kind = err["type"]
        value = err.get("input")
        if kind == "extra_forbidden":
            hint = ""
            known = _known_fields(model, loc)
            close = difflib.get_close_matches(str(loc[-1]), known, n=1)
            if close:
                hint = f" (did you mean '{close[0]}'?)"
            message = f"{key}: unknown field{hint}"
        elif kind == "missing":
            message = f"{key}: required field is missing"
        elif kind in ("value_error", "assertion_error"):
            text = str(err.get("ctx", {}).get("error", err["msg"]))
            message = f"{key}: {text}"
        elif kind in ("string_type", "bool_type", "int_type", "float_type"):
            expected = {
                "string_type": "text",
                "bool_type": "true or false",
                "int_type": "a whole number",
                "float_type": "a number",
            }[kind]
            hint = ""
            if kind == "string_type" and isinstance(value, int | float | bool):
                hint = " (quote the value to keep it as text)"
            if kind == "bool_type" and isinstance(value, str):
                hint = " (YAML 1.1 words such as yes/no/on/off are not booleans here)"
                if value.strip().lower() in ("true", "false"):
                    hint = " (a quoted word is text: write true or false without quotes)"
            message = f"{key}: expected {expected}, got {value!r}{hint}"
        elif kind in ("list_type", "model_type", "dict_type", "model_attributes_type"):
            shape = "a list" if kind == "list_type" else "a mapping"
            message = f"{key}: expected {shape}, got {type(value).__name__}"
        else:
            message = f"{key}: {err['msg']}"
        existing = seen.get(loc)
        if existing is None or (kind != "missing" and "union" not in kind):
            seen[loc] = Diagnostic(rel, line, code, message, key=key)
    return list(seen.values())


def _data_at(data: Any, prefix: tuple[str | int, ...]) -> Any:
    for part in prefix:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data
