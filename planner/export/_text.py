"""Text pieces every export format shares: comments, quoting, names, file names.

A topic name, group id or sentence is data from outside: it goes into a comment with
its control and format characters escaped (a newline in a group id would otherwise end
the comment and start a line of YAML or HCL), and into a value through each language's
own quoting.
"""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
import unicodedata
from collections.abc import Iterable

from planner.changes import ChangeList, TopicChange
from planner.notes import Note
from planner.report.names import page_names

__all__ = [
    "WIDTH",
    "comment",
    "file_stems",
    "header",
    "k8s_name",
    "safe",
    "warning_lines",
    "yaml_str",
]

WIDTH = 100
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def safe(text: str) -> str:
    """`text` with control, format and separator characters (but space) escaped."""
    return "".join(
        ch
        if ch == " " or unicodedata.category(ch)[0] not in "CZ"
        else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def comment(text: str, *, mark: str = "#", first: str = "", rest: str = "  ") -> list[str]:
    """`text` as comment lines of at most `WIDTH` characters (longer words stay whole)."""
    lines = textwrap.wrap(
        safe(text),
        WIDTH - len(mark) - 1,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [f"{mark} {line}".rstrip() for line in lines or [first]]


def warning_lines(notes: Iterable[Note], *, mark: str = "#") -> list[str]:
    """Each note as `warning [code]: sentence` comment lines."""
    out: list[str] = []
    for n in notes:
        out += comment(f"{n.severity} [{n.code}]: {n.text}", mark=mark, rest="    ")
    return out


def header(fmt: str, changes: ChangeList, source: str, *, mark: str = "#") -> list[str]:
    """The first comment lines of a file: what wrote it, from which run."""
    run = changes.run or "(run not recorded)"
    return comment(
        f"partition-planner export --format {fmt}: the changes of run {run} ({source}). "
        "Only what changes; Kafka cannot shrink a topic, so no count here is below "
        "today's.",
        mark=mark,
    )


def topic_lines(change: TopicChange, *, mark: str = "#") -> list[str]:
    """A topic change's headline, cost and warnings, as comment lines."""
    out = comment(change.headline(), mark=mark)
    cost = change.cost_sentence()
    if cost:
        out += comment(f"cost: {cost}", mark=mark, rest="    ")
    return out + warning_lines(change.warnings, mark=mark)


def yaml_str(text: str) -> str:
    """A YAML double-quoted scalar: JSON's escapes, plus every character YAML 1.1
    readers take as a line break or cannot print (U+2028, U+0085, ...) escaped."""
    quoted = json.dumps(text, ensure_ascii=False)

    def escape(ch: str) -> str:
        if ch == " " or unicodedata.category(ch)[0] not in "CZ":
            return ch
        code = ord(ch)
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"

    return "".join(escape(ch) for ch in quoted)


def k8s_name(text: str, *, subdomain: bool = False) -> str:
    """A Kubernetes name for `text`: itself when it is a DNS-1123 label (63 characters;
    with `subdomain`, a DNS-1123 subdomain: dots allowed, 253 characters), else a
    lower-cased slug with 8 hex digits of the text's SHA-256, so two texts that slug
    alike (`Orders_v2`, `orders-v2`) keep apart."""
    max_len, pattern = (253, _DNS_SUBDOMAIN) if subdomain else (63, _DNS_LABEL)
    if len(text) <= max_len and pattern.fullmatch(text):
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    slug = _NOT_DNS.sub("-", text.lower()).strip("-")[: max_len - 9].strip("-")
    return f"{slug}-{digest}" if slug else f"x-{digest}"


def file_stems(names: Iterable[str]) -> dict[str, str]:
    """A file name stem for each topic or group name (`planner.report.names`: the name
    itself when it is a safe file name, else a slug with a hash)."""
    return {name: page.removesuffix(".html") for name, page in page_names(names).items()}
