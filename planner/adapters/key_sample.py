"""Reading a key-frequency sample: a CSV of `key,count` or `key_hex,count` rows."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["KeySampleError", "read_key_sample"]


class KeySampleError(ValueError):
    """A key sample that cannot be used; the message names the file, row and field."""


def read_key_sample(path: str | Path) -> tuple[list[bytes], npt.NDArray[np.float64]]:
    """Read a key sample: one row per distinct key with how often it was seen.

    The header names the columns: `key` (UTF-8 text) or `key_hex` (binary keys, hex
    encoded), and `count` (records, or bytes: only the shares matter).

    Returns:
        The keys as bytes, and their counts.

    Raises:
        KeySampleError: a missing file or column, a bad hex key, a count that is not a
            finite number zero or above, a repeated key, or no rows; the message names
            the file, the row (1 = the header) and the field.
    """
    path = Path(path)
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        raise KeySampleError(f"{path}: cannot read the key sample: {exc.strerror}") from None
    keys: list[bytes] = []
    counts: list[float] = []
    seen: dict[bytes, int] = {}
    with handle:
        reader = csv.DictReader(handle)
        fields = reader.fieldnames or []
        key_field = "key_hex" if "key_hex" in fields else "key"
        for needed in (key_field, "count"):
            if needed not in fields:
                raise KeySampleError(
                    f"{path}: row 1: missing column {needed!r} (have {', '.join(fields) or 'none'})"
                )
        for row_number, row in enumerate(reader, start=2):
            raw = row[key_field]
            if raw is None:
                raise KeySampleError(f"{path}: row {row_number}: field {key_field!r} is missing")
            if key_field == "key_hex":
                try:
                    key = bytes.fromhex(raw)
                except ValueError:
                    raise KeySampleError(
                        f"{path}: row {row_number}: field 'key_hex' is not hex: {raw[:40]!r}"
                    ) from None
            else:
                key = raw.encode("utf-8")
            text = (row["count"] or "").strip()
            try:
                count = float(text)
            except ValueError:
                count = math.nan
            if not math.isfinite(count) or count < 0:
                raise KeySampleError(
                    f"{path}: row {row_number}: field 'count' must be a number, zero or "
                    f"above, got {text[:40]!r}"
                )
            if key in seen:
                raise KeySampleError(
                    f"{path}: row {row_number}: field {key_field!r}: key repeats row {seen[key]}"
                )
            seen[key] = row_number
            keys.append(key)
            counts.append(count)
    if not keys:
        raise KeySampleError(f"{path}: no keys in the sample")
    return keys, np.asarray(counts, dtype=np.float64)
