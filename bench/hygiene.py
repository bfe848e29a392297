"""Corpus hygiene at ingest: per document, the title and where it came from,
furniture lines dropped, and the share of words in each section role.

    python bench/hygiene.py [PATH ...]   (default: ../shared/corpus/pdf and text/docling_docs)
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus"
ROLE_ORDER = ("body", "appendix", "front_matter", "contents", "references", "acknowledgements", "boilerplate")


def main() -> None:
    from kg.ingest import SUPPORTED_EXTENSIONS, read_document

    args = [Path(a) for a in sys.argv[1:]] or [CORPUS / "pdf", CORPUS / "text" / "docling_docs"]
    files = [f for a in args for f in (sorted(a.iterdir()) if a.is_dir() else [a])
             if f.suffix.lower() in SUPPORTED_EXTENSIONS]
    total: Counter[str] = Counter()
    print(f"{'file':44} {'furn':>5} " + " ".join(f"{r[:6]:>6}" for r in ROLE_ORDER) + "  title (source)")
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            doc = read_document(path, Path(tmp))
            words: Counter[str] = Counter()
            for block in doc.blocks:
                words[block.role] += len(re.findall(r"\w+", block.text))
            total.update(words)
            share = [words[r] / max(sum(words.values()), 1) for r in ROLE_ORDER]
            if path.suffix.lower() == ".pdf" or len(files) <= 10:
                print(f"{path.name[:44]:44} {doc.furniture_removed:5d} " + " ".join(f"{s:6.1%}" for s in share)
                      + f"  {doc.title[:50]!r} ({doc.title_source})")
    share = [total[r] / max(sum(total.values()), 1) for r in ROLE_ORDER]
    print(f"{'all ' + str(len(files)) + ' files':44} {'':5} " + " ".join(f"{s:6.1%}" for s in share))


if __name__ == "__main__":
    main()
