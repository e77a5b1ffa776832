"""A publisher to kill: `python -m tests.store.publisher URL ROWS_JSON DAY BATCH HOLD_AFTER`.

Publishes the rows in ROWS_JSON as the run of UTC day DAY, BATCH rows per INSERT,
printing `sent N of TOTAL` after each batch. Once HOLD_AFTER rows are sent it stops
inside the open transaction and waits on stdin, so the test can SIGKILL it at a known
point; if stdin closes instead, it exits without committing.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from planner.figures import DataInterval
from planner.store import RecommendationStore, Run


def main(argv: list[str]) -> int:
    url, rows_path, day, batch_rows, hold_after = argv
    rows = json.loads(Path(rows_path).read_text())

    def on_batch(sent: int, total: int) -> None:
        print(f"sent {sent} of {total}", flush=True)
        if sent >= int(hold_after):
            sys.stdin.read()
            raise SystemExit(3)

    run = Run(DataInterval.parse(day), dt.datetime.now(dt.UTC))
    with RecommendationStore(url, batch_rows=int(batch_rows)) as store:
        store.publish_run(run, rows, on_batch=on_batch)
    print("committed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
