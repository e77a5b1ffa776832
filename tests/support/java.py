"""Java programs of the tests, compiled against the reference Kafka's jars and cached.

A program's sources live beside its tests (``tests/**/java/*.java``). They are compiled
with the machine's ``javac`` into ``var/cache/javac/<name>-<hash>/``, the hash covering
the sources, the Kafka version and the ``javac`` version, so a second run reuses the
classes and an edited source compiles afresh. Compilation goes to a temporary folder
that is renamed into place, so a run killed half-way leaves no half-compiled cache.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from planner.adapters.kafka_dist import KafkaDistribution

_CACHE = Path(__file__).resolve().parents[2] / "var" / "cache" / "javac"


def javac_version() -> str:
    done = subprocess.run(["javac", "-version"], capture_output=True, text=True, check=True)
    return (done.stdout + done.stderr).strip()


def compiled(name: str, sources: Sequence[Path], kafka: KafkaDistribution) -> Path:
    """The folder of ``sources``' classes, compiled against ``kafka``'s jars (cached).

    Args:
        name: A short name for the cache folder.
        sources: The ``.java`` files.
        kafka: The Kafka whose jars are on the class path.

    Returns:
        The folder to put on a JVM's class path.

    Raises:
        RuntimeError: javac failed; the message holds its output.
    """
    return compiled_against(name, sources, kafka.classpath, version=kafka.version)


def compiled_against(name: str, sources: Sequence[Path], classpath: str, *, version: str) -> Path:
    """``compiled`` against any class path (``version`` names what it holds, for the
    cache key: e.g. Strimzi's model classes, ``var/strimzi/<version>/libs/*``)."""
    digest = hashlib.sha256()
    digest.update(version.encode())
    digest.update(javac_version().encode())
    for source in sorted(sources):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    target = _CACHE / f"{name}-{digest.hexdigest()[:16]}"
    if (target / ".complete").is_file():
        return target
    _CACHE.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=_CACHE))
    try:
        done = subprocess.run(
            [
                "javac",
                "-encoding",
                "UTF-8",
                "-nowarn",
                "-cp",
                classpath,
                "-d",
                str(staging),
                *map(str, sources),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"javac failed for {name}:\n{done.stdout}\n{done.stderr}")
        (staging / ".complete").write_text("")
        try:
            os.rename(staging, target)
        except OSError:  # another process finished the same compilation first
            if not (target / ".complete").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
