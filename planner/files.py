"""Small state files written whole: a reader sees the old file or the new, never a part.

The pipeline's state files (a stage's validation result, the topics set aside) are read
by the next task, possibly after the writer was killed half-way: each is written to a
temporary file beside it, synced, and renamed over the target. A killed writer's
temporary file is removed by the next write.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["write_json_whole"]


def write_json_whole(target: Path, document: Any, **dump_options: Any) -> Path:
    """Write `document` as JSON to `target`, replacing it in one rename.

    Args:
        target: The file; its folder is created if missing.
        document: What `json.dump` takes (NaN and infinity refused).
        **dump_options: More `json.dump` options (`sort_keys`, `default`).

    Returns:
        `target`.
    """
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(f".{target.name}.*"):  # a killed writer's
        stale.unlink(missing_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1, allow_nan=False, **dump_options)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
