"""An Apache Kafka installation: where its jars are, which version it is, how to run it.

Three places can hold one, looked up in this order by :func:`find`:

1. a folder the user names (``--kafka-home``): an Apache Kafka tarball's root, or any
   folder with Kafka's jars in ``libs/``;
2. the Kafka whose ``kafka-producer-perf-test.sh`` (or Confluent's
   ``kafka-producer-perf-test``) is on ``PATH``: its ``bin/``'s parent;
3. the Kafka ``make test`` and ``make demo`` install from Maven Central
   (``var/kafka/<version>``, the version pinned in ``scripts/kafka/pom.xml``).

Every tool is run as ``java -cp '<home>/libs/*' <main class>``, the way Kafka's own
``bin/kafka-run-class.sh`` runs it, so a tarball and the Maven install behave the same
and no shell script is needed.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PRODUCER_PERF_SCRIPTS",
    "PROJECT_ROOT",
    "KafkaDistribution",
    "KafkaNotFound",
    "find",
    "from_home",
    "project_install",
]

PRODUCER_PERF_SCRIPTS = ("kafka-producer-perf-test.sh", "kafka-producer-perf-test")

#: The checkout this package runs from (where `var/` and `deploy/` are).
PROJECT_ROOT = Path(__file__).resolve().parents[2]
_POM = Path("scripts/kafka/pom.xml")
_CLIENTS_JAR = re.compile(r"kafka-clients-(?P<version>\d+\.\d+\.\d+[^/]*?)\.jar")


class KafkaNotFound(Exception):
    """No usable Apache Kafka installation where one was looked for."""


@dataclass(frozen=True)
class KafkaDistribution:
    """One Apache Kafka installation.

    Attributes:
        home: The folder holding ``libs/`` (and, for a tarball, ``bin/`` and ``config/``).
        version: The Kafka version, read from the ``kafka-clients`` jar's name.
    """

    home: Path
    version: str

    @property
    def libs(self) -> Path:
        return self.home / "libs"

    @property
    def classpath(self) -> str:
        """The class path of every jar in ``libs/`` (Java expands the ``*``)."""
        return str(self.libs / "*")

    def agent(self, artifact: str) -> Path | None:
        """A Java agent jar installed beside the libs (``agents/<artifact>-<v>.jar``)."""
        folder = self.home / "agents"
        matches = sorted(folder.glob(f"{artifact}-*.jar")) if folder.is_dir() else []
        return matches[-1] if matches else None

    def java_command(
        self,
        main_class: str,
        args: Sequence[str] = (),
        *,
        heap_mb: int | None = None,
        jvm_options: Sequence[str] = (),
        system_properties: Mapping[str, str] | None = None,
        extra_classpath: Sequence[Path] = (),
    ) -> list[str]:
        """The command line that runs one of Kafka's main classes.

        Args:
            main_class: A fully qualified class with a ``main`` (``kafka.Kafka``,
                ``org.apache.kafka.tools.ProducerPerformance``, ...).
            args: The program's arguments.
            heap_mb: Maximum heap in MiB (``-Xmx``); None leaves the JVM's default.
            jvm_options: More JVM options, before the main class.
            system_properties: ``-Dkey=value`` pairs.
            extra_classpath: Folders or jars put before Kafka's own on the class path.

        Returns:
            The argument list for :mod:`subprocess`.
        """
        command = [java_binary()]
        if heap_mb is not None:
            command += [f"-Xmx{heap_mb}m", f"-Xms{min(heap_mb, 256)}m"]
        command += list(jvm_options)
        for key, value in (system_properties or {}).items():
            command.append(f"-D{key}={value}")
        classpath = [str(p) for p in extra_classpath] + [self.classpath]
        command += ["-cp", os.pathsep.join(classpath), main_class, *args]
        return command


def java_binary() -> str:
    """``$JAVA_HOME/bin/java`` when set, else ``java`` on ``PATH``."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise KafkaNotFound("no `java` on PATH and no JAVA_HOME: Kafka 4 needs Java 17 or later")
    return found


def from_home(home: Path) -> KafkaDistribution:
    """The Kafka installed in ``home`` (a folder with ``libs/kafka-clients-<v>.jar``).

    Raises:
        KafkaNotFound: ``home`` holds no Kafka jars; the message names the folder.
    """
    libs = home / "libs"
    jars = sorted(libs.glob("kafka-clients-*.jar")) if libs.is_dir() else []
    versions = [m["version"] for j in jars if (m := _CLIENTS_JAR.fullmatch(j.name))]
    if not versions:
        raise KafkaNotFound(
            f"{home} is not an Apache Kafka installation: no libs/kafka-clients-*.jar"
        )
    return KafkaDistribution(home=home.resolve(), version=versions[-1])


def pinned_version(root: Path = PROJECT_ROOT) -> str | None:
    """The Kafka version ``scripts/kafka/pom.xml`` pins, or None outside a checkout."""
    try:
        text = (root / _POM).read_text()
    except OSError:
        return None
    match = re.search(r"<kafka\.version>([^<]+)</kafka\.version>", text)
    return match.group(1).strip() if match else None


def project_install(root: Path = PROJECT_ROOT) -> KafkaDistribution | None:
    """The Kafka that ``scripts/setup.sh`` installed in this checkout, if it did."""
    version = pinned_version(root)
    if version is None:
        return None
    home = root / "var" / "kafka" / version
    if not (home / ".installed").is_file():
        return None
    try:
        return from_home(home)
    except KafkaNotFound:
        return None


def find(kafka_home: Path | None = None, *, path: str | None = None) -> KafkaDistribution:
    """The Kafka to run: ``kafka_home`` if given, else one on ``PATH``, else the project's.

    Args:
        kafka_home: A folder the user named; when given, nothing else is tried.
        path: The search path for the perf-tool scripts; ``$PATH`` when None.

    Raises:
        KafkaNotFound: Nothing usable; the message says where it looked.
    """
    if kafka_home is not None:
        return from_home(kafka_home)
    search = os.environ.get("PATH", "") if path is None else path
    for script in PRODUCER_PERF_SCRIPTS:
        found = shutil.which(script, path=search)
        if found is not None:
            try:
                return from_home(Path(found).resolve().parent.parent)
            except KafkaNotFound:
                continue  # a wrapper script without libs/ beside it (e.g. a package's)
    installed = project_install()
    if installed is not None:
        return installed
    raise KafkaNotFound(
        "no Apache Kafka found: give --kafka-home (a Kafka folder with libs/), put "
        "kafka-producer-perf-test.sh on PATH, or run `make test`/`make demo` in the "
        "planner's checkout to install the pinned one"
    )
