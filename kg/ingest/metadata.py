"""Document metadata that is not in the text: a PDF's Title and Author fields.

The FAA handbook page, for one, never says "FAA" in its text; its Author
field does. Authors become Entity nodes the Document MENTIONS, so documents
by the same author or agency meet in the graph.
"""

from __future__ import annotations

import re
from pathlib import Path

_SPLIT = re.compile(r"\s*(?:;|,|&|\band\b)\s*")


def document_metadata(path: Path) -> dict[str, str]:
    if Path(path).suffix.lower() != ".pdf":
        return {}
    import pymupdf

    try:
        with pymupdf.open(path) as doc:
            meta = doc.metadata or {}
    except Exception:  # the reader reports unreadable files; metadata is optional
        return {}
    return {k: (meta.get(k) or "").strip() for k in ("title", "author", "subject", "keywords")}


def author_names(author_field: str) -> list[str]:
    names = [n.strip() for n in _SPLIT.split(author_field or "") if n.strip()]
    return [n for n in names if 2 <= len(n) <= 80 and not n.lower().startswith(("http", "www", "microsoft"))]
