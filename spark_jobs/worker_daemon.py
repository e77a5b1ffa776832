"""The daemon that starts the jobs' Python workers: PySpark's, run from the installed pyspark.

Spark forks its Python workers from a daemon process (`spark.python.daemon.module`,
`pyspark.daemon` by default) whose path starts with `$SPARK_HOME/python/lib/pyspark.zip`.
With pyspark installed from PyPI, SPARK_HOME is the installed package and the zip a
copy of the same release; but a zip holds no bytecode cache, so the daemon and its
workers compile PySpark's modules from source again in every application: 0.42 s here
to import the daemon and worker modules from the zip against 0.07 s from the installed
package, paid before the first Python task of an application can start (a two-task
`mapInArrow` job's first run took 1.93 s with this module, 2.48 s without).

Run as the daemon module (`session.build_session` asks for it where the workers are
the driver's own interpreter: local masters), this drops that zip from the path when,
and only when, it is the one inside the pyspark package the path would otherwise find
(the same release, by construction), then runs PySpark's daemon unchanged. A Spark
distribution's zip, or a zip of another release, stays where it is. py4j's zip is left
alone: it is small, and its release is the one Spark was built with.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.machinery import PathFinder

__all__ = ["DAEMON_MODULE", "without_bundled_pyspark"]

#: The value of `spark.python.daemon.module` that selects this module.
DAEMON_MODULE = "spark_jobs.worker_daemon"


def without_bundled_pyspark(path: Sequence[str]) -> list[str]:
    """`path` without the pyspark.zip that the installed pyspark package carries.

    Args:
        path: A module search path (`sys.path`).

    Returns:
        The same entries, less any `pyspark.zip` that is the installed package's own
        `python/lib/pyspark.zip` (the package found on the rest of the path); `path`
        unchanged when there is no such package or zip.
    """
    bundled = [entry for entry in path if os.path.basename(entry) == "pyspark.zip"]
    if not bundled:
        return list(path)
    spec = PathFinder.find_spec("pyspark", [entry for entry in path if entry not in bundled])
    if spec is None or spec.origin is None:
        return list(path)
    own_zip = os.path.join(os.path.dirname(spec.origin), "python", "lib", "pyspark.zip")
    same = {entry for entry in bundled if _same_file(entry, own_zip)}
    return [entry for entry in path if entry not in same]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


if __name__ == "__main__":
    sys.path[:] = without_bundled_pyspark(sys.path)
    from pyspark.daemon import manager

    manager()
