"""Named Cypher queries loaded from the cypher/ package (the store runs them by name).

A .cypher file holds one or more queries, each introduced by a header line

    // name: upsert_chunks

Lines starting with // before the first header are the file's description.
Audit and explore files hold a single query; its name is the file stem.
Query text never contains document text: everything goes in as parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

_HEADER = re.compile(r"^//\s*name:\s*([A-Za-z0-9_]+)\s*$")


@dataclass(frozen=True)
class NamedQuery:
    name: str
    text: str
    source: str  # file the query came from, relative to cypher/
    description: str = ""


def parse_cypher_file(source: str, content: str) -> list[NamedQuery]:
    """Split a file into named queries (the whole file is one query if it has no headers)."""
    queries: list[NamedQuery] = []
    preamble: list[str] = []
    name: str | None = None
    body: list[str] = []

    def flush() -> None:
        text = "\n".join(line for line in body if not line.strip().startswith("//")).strip()
        if name and text:
            queries.append(NamedQuery(name, text.rstrip(";"), source, " ".join(preamble)))

    for line in content.splitlines():
        m = _HEADER.match(line.strip())
        if m:
            flush()
            name, body = m.group(1), []
        elif name is None and line.strip().startswith("//"):
            preamble.append(line.strip().lstrip("/").strip())
        else:
            body.append(line)
    if name is None:  # single-query file: named after the file
        name = source.rsplit("/", 1)[-1].removesuffix(".cypher")
    flush()
    return queries


def _walk(folder, prefix: str = ""):
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and not entry.name.startswith("__"):
            yield from _walk(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".cypher"):
            yield f"{prefix}{entry.name}", entry.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def all_queries() -> dict[str, NamedQuery]:
    """Every shipped query keyed by name; audits are 'audits/<stem>', explore 'explore/<stem>'."""
    out: dict[str, NamedQuery] = {}
    for source, content in _walk(resources.files("cypher")):
        folder = source.rsplit("/", 1)[0] + "/" if "/" in source else ""
        for q in parse_cypher_file(source, content):
            key = folder + q.name
            if key in out:
                raise ValueError(f"duplicate query name {key} in {source} and {out[key].source}")
            out[key] = q
    return out


def get(name: str) -> NamedQuery:
    try:
        return all_queries()[name]
    except KeyError:
        raise KeyError(f"no Cypher query named {name!r} in cypher/") from None


def names(folder: str) -> list[str]:
    """Names of the queries in a sub-folder, e.g. names('audits')."""
    return sorted(k for k in all_queries() if k.startswith(folder + "/"))
