"""The report model's codec: values checked against their annotations, and JSON.

Every model class derives from `Model`, a frozen dataclass whose fields are checked and
normalised against their annotations on construction (lists become tuples, ints become
floats where a float is expected, ISO strings become datetimes when read from JSON), and
which goes to plain JSON values and back (`to_json_dict`, `from_json_dict`) without
loss. A bad value raises ValueError naming the field path and the value.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar, get_args, get_origin

__all__ = ["Model", "at_least"]

_T = TypeVar("_T", bound="Model")


class Model:
    """Checks and normalises every field against its annotation on construction."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            checked = _coerce(_hints(type(self))[f.name], value, f.name, from_json=False)
            if checked is not value:
                object.__setattr__(self, f.name, checked)
        self._check()

    def _check(self) -> None:
        """Rules beyond the annotations (overridden where there are any)."""

    @classmethod
    def from_json_dict(cls: type[_T], data: Mapping[str, Any]) -> _T:
        """Build from `to_json_dict` output (or `json.load` of it).

        Raises:
            ValueError: a missing or unknown field, or a value of the wrong type; the
                message names the field path.
        """
        built: _T = _coerce(cls, data, cls.__name__, from_json=True)
        return built

    def to_json_dict(self) -> dict[str, Any]:
        """Plain JSON values: dicts, lists, strings, numbers, booleans, None."""
        plain: dict[str, Any] = _to_plain(self)
        return plain


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _to_plain(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _coerce(tp: Any, value: Any, path: str, *, from_json: bool) -> Any:
    """`value` as type `tp`, or ValueError naming `path`."""
    origin = get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _coerce(arg, value, path, from_json=from_json)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError(errors[0] if len(errors) == 1 else f"{path}: {value!r} fits no type")
    if origin is Literal:
        if value not in get_args(tp) or isinstance(value, bool):
            choices = ", ".join(repr(a) for a in get_args(tp))
            raise ValueError(f"{path}: must be one of {choices}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, tuple | list):
            raise ValueError(f"{path}: must be a list, got {type(value).__name__}")
        (item,) = (a for a in get_args(tp) if a is not Ellipsis)
        items = [_coerce(item, v, f"{path}[{i}]", from_json=from_json) for i, v in enumerate(value)]
        return value if isinstance(value, tuple) and all(map(_same, items, value)) else tuple(items)
    if origin is Mapping or origin is dict:
        if not isinstance(value, Mapping):
            raise ValueError(f"{path}: must be a mapping, got {type(value).__name__}")
        key_tp, value_tp = get_args(tp)
        return {
            _coerce(key_tp, k, f"{path} key", from_json=from_json): _coerce(
                value_tp, v, f"{path}[{k!r}]", from_json=from_json
            )
            for k, v in value.items()
        }
    if isinstance(tp, type) and issubclass(tp, Model):
        if isinstance(value, tp):
            return value
        if not from_json or not isinstance(value, Mapping):
            raise ValueError(f"{path}: must be a {tp.__name__}, got {type(value).__name__}")
        names = {f.name for f in dataclasses.fields(tp)}  # type: ignore[arg-type]
        unknown = sorted(set(value) - names)
        if unknown:
            raise ValueError(f"{path}: unknown field(s) {', '.join(map(str, unknown))}")
        kwargs = {
            name: _coerce(_hints(tp)[name], value[name], f"{path}.{name}", from_json=True)
            for name in names
            if name in value
        }
        try:
            return tp(**kwargs)
        except TypeError as exc:  # a required field is missing
            raise ValueError(f"{path}: {exc}") from None
    return _scalar(tp, value, path, from_json=from_json)


def _same(a: Any, b: Any) -> bool:
    return a is b


def _scalar(tp: Any, value: Any, path: str, *, from_json: bool) -> Any:
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{path}: must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{path}: must be a whole number, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{path}: must be a number, got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"{path}: must be a finite number, got {value!r}")
        return value if type(value) is float else float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ValueError(f"{path}: must be text, got {value!r}")
        return value
    if tp is datetime:
        if from_json and isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{path}: not an ISO 8601 time: {value!r}") from None
        if not isinstance(value, datetime):
            raise ValueError(f"{path}: must be a datetime, got {value!r}")
        if value.utcoffset() != timedelta(0):
            raise ValueError(f"{path}: must be an aware UTC datetime, got {value!r}")
        return value
    raise TypeError(f"{path}: unsupported annotation {tp!r}")  # a bug in this module


def at_least(path: str, value: int | float | None, low: float) -> None:
    if value is not None and value < low:
        raise ValueError(f"{path}: must be {low:g} or above, got {value!r}")
