"""File names for topic pages: readable for real topic names, safe for any text.

A legal Kafka topic name (`[a-zA-Z0-9._-]`, at most 249 characters, not `.` or `..`)
is already a safe file name and URL path segment, so its page is `<name>.html`. Any
other name (the report renders whatever it is given), a name starting with a dot (a
hidden file that some web servers refuse), and names that differ only in case (which
collide on case-insensitive file systems) get `<slug>~<hash>.html` instead: the slug
keeps the readable characters, and 16 hex digits of the name's SHA-256 keep it unique.
`~` never occurs in a Kafka name, so the two forms cannot collide.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from urllib.parse import quote

__all__ = ["page_names", "topic_href"]

_KAFKA_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SLUG_CHARS = 80


def _hashed(topic: str) -> str:
    slug = _UNSAFE.sub("_", topic).strip("._-")[:_SLUG_CHARS] or "topic"
    # surrogatepass: a str decoded from bad bytes may hold lone surrogates.
    digest = hashlib.sha256(topic.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{slug}~{digest}.html"


def page_names(topics: Iterable[str]) -> dict[str, str]:
    """The page file name (inside `topics/`) of every topic.

    Args:
        topics: Topic names, distinct.

    Returns:
        Topic -> file name; names are distinct even ignoring case, contain only
        `[A-Za-z0-9._~-]`, never start with a dot and are at most 254 characters.
    """
    names = list(topics)
    plain = {t: f"{t}.html" for t in names if _KAFKA_NAME.fullmatch(t) and not t.startswith(".")}
    folded = Counter(name.casefold() for name in plain.values())
    return {
        t: name if (name := plain.get(t)) and folded[name.casefold()] == 1 else _hashed(t)
        for t in names
    }


def topic_href(file_name: str, *, from_topics_dir: bool = False) -> str:
    """The relative link to a topic page from the site root (or from `topics/`)."""
    return ("" if from_topics_dir else "topics/") + quote(file_name)
