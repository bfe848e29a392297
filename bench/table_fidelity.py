"""Table fidelity on PDFs: do hopgraph's table cells hold the words the page prints?

For every table the PDF reader extracts (pass 1, kg.ingest.pdf.layout.collect_page, so the same
cue gating and detection as ingest), the page's words inside the table's box (pymupdf words) are
compared with the cleaned grid (kg.ingest.tables.table_grid) plus the caption:

- words: printed words inside the box / those that reach some cell or the caption;
- squashed (tables given as cells): data rows with a cell holding two bare numbers ("70.6 72.4"), i.e. two printed rows
  in one cell;
- empty columns: grid columns with a header but no value in any data row, or no header and no value;
- header: the grid has a non-empty header row;
- glyphs: cells with a ligature (U+FB00-FB06), an unmapped glyph (U+FFFD) or "!" before a digit;
- text: tables the reader kept as text (metadata says why), not as a grid.

    python bench/table_fidelity.py [--tables] PDF|DIR ...

Prints one line per table (with --tables, its grid too), per PDF and the totals.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402

from kg.ingest.pdf.layout import collect_page  # noqa: E402
from kg.ingest.tables import table_grid  # noqa: E402

BARE_NUMBER = re.compile(r"^[-−–+]?\d[\d,]*(?:\.\d+)?%?$")
GLYPH = re.compile(r"[\ufb00-\ufb06\ufffd]|!(?=\d)")


def _norm(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", word) if ch.isalnum()).lower()


def _squashed(cell: str) -> bool:
    tokens = cell.split()
    return len(tokens) >= 2 and all(BARE_NUMBER.match(t) for t in tokens)


def table_figures(page: pymupdf.Page, table, words: list[tuple]) -> Counter:
    grid = table_grid(table.markdown)
    caption = table.caption.text if table.caption else ""
    text_cells = [*grid.header, *(c for r in grid.rows for c in r), caption]
    tokens = {_norm(t) for cell in text_cells for t in cell.split()}
    joined = "".join(_norm(c) for c in text_cells)
    box = table.bbox
    inside = [w for w in words if box.x0 <= (w[0] + w[2]) / 2 <= box.x1 and box.y0 <= (w[1] + w[3]) / 2 <= box.y1]
    printed = [_norm(w[4]) for w in inside if _norm(w[4])]
    reached = sum(1 for w in printed if w in tokens or (len(w) >= 3 and w in joined))
    width = len(grid.header)
    empty = sum(1 for j in range(width) if not any(j < len(r) and r[j] for r in grid.rows))
    as_text = bool(getattr(table, "doubt", "")) or not grid.rows
    figures = Counter(
        tables=1, words=len(printed), reached=reached, rows=len(grid.rows), columns=width,
        squashed=0 if as_text else sum(1 for r in grid.rows if any(_squashed(c) for c in r)),
        empty_columns=empty, header=int(any(grid.header)),
        glyphs=sum(1 for c in text_cells if GLYPH.search(c)),
        as_text=int(as_text),
    )
    return figures


def pdf_figures(path: Path, show: bool) -> Counter:
    total: Counter = Counter()
    with pymupdf.open(path) as doc:
        for page in doc:
            raw = collect_page(page)
            words = page.get_text("words") if raw.tables else []
            for i, table in enumerate(raw.tables):
                f = table_figures(page, table, words)
                total.update(f)
                print(f"  p{page.number + 1} t{i + 1}: {f['rows']}x{f['columns']} words {f['reached']}/{f['words']}"
                      f" squashed {f['squashed']} empty cols {f['empty_columns']} header {f['header']}"
                      f" glyphs {f['glyphs']}{' TEXT' if f['as_text'] else ''}")
                if show:
                    print("    " + table_grid(table.markdown).to_json()[:1500])
                    if f["as_text"]:
                        print(f"    kept as text: {getattr(table, 'doubt', '')}")
                        print("    " + table.markdown[:600].replace("\n", "\n    "))
    return total


def line(name: str, f: Counter) -> str:
    share = f["reached"] / f["words"] if f["words"] else 1.0
    return (f"{name}: tables {f['tables']} (as text {f['as_text']}), words {f['reached']}/{f['words']}"
            f" ({share:.1%}), squashed rows {f['squashed']}/{f['rows']}, empty columns"
            f" {f['empty_columns']}/{f['columns']}, header rows {f['header']}, glyph cells {f['glyphs']}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="PDF files or folders of PDFs")
    parser.add_argument("--tables", action="store_true", help="print each table's grid (JSON) too")
    args = parser.parse_args(argv)
    pdfs = [p for path in args.paths for p in (sorted(path.glob("*.pdf")) if path.is_dir() else [path])]
    totals: Counter = Counter()
    for pdf in pdfs:
        print(pdf.name)
        try:
            f = pdf_figures(pdf, args.tables)
        except Exception as exc:  # one broken file must not stop the run
            print(f"  error: {pdf}: {exc}")
            continue
        totals.update(f)
        print(line("  total", f))
    print(line(f"ALL ({len(pdfs)} PDFs)", totals))


if __name__ == "__main__":
    main()
