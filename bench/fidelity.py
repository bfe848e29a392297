"""Text fidelity on PDFs: numbers, titles, table cells, statements, references.

For each PDF (the shared corpus, then the public PDFs of other kinds listed in
bench/fidelity_sources.tsv, which are not committed): the title and where it
came from, table header tokens and cells with split tokens or markup,
sentences that are quotable statements or rejected (by reason), the number
tokens of the statements found in their evidence as written, and the share of
"Table N" / "Figure N" mentions that resolve where the document has that
caption. Missing files are skipped with a message.

    python bench/fidelity.py [--fetched DIR] [--markdown] [PDF ...]
    python bench/fidelity.py --dataset out/dataset.jsonl   (a built dataset only)

Fetching the listed PDFs: `fetch` the repository, then
    git --git-dir <mirror> show <commit>:<path> > DIR/<file>
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = next((p / "shared" / "corpus" / "pdf" for p in ROOT.parents if (p / "shared" / "corpus" / "pdf").exists()),
              ROOT.parent / "shared" / "corpus" / "pdf")
SOURCES = ROOT / "bench" / "fidelity_sources.tsv"
DEFAULT_FETCHED = Path("/work/fidelity_pdfs")

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# "Qwen1 .5 -7B", "1 .5": a token split by re-spacing; "<br>", "ColN", "**": markup in a cell.
SPLIT_TOKEN = re.compile(r"\w \.\d|\d \.\d|\w -\d+[A-Za-z]?\b")
MARKUP = re.compile(r"<\s*/?\s*\w+\s*/?>|\bCol\d+\b|\*\*\w[^*]*\*\*|&nbsp;")


@dataclass
class Fidelity:
    name: str
    kind: str = ""
    title: str = ""
    title_source: str = ""
    error: str = ""
    tables: int = 0
    header_tokens: int = 0
    bad_headers: int = 0  # header cells with a split token or markup
    cells: int = 0
    bad_cells: int = 0
    sentences: int = 0
    reasons: Counter = field(default_factory=Counter)  # "kept" or why a sentence is no statement
    numbers: int = 0
    numbers_kept: int = 0
    mentions: int = 0  # Table/Figure mentions whose caption exists in the document
    resolved: int = 0
    unresolved_why: Counter = field(default_factory=Counter)


def sources(fetched: Path) -> list[tuple[Path, str]]:
    """(file, kind) of the listed public PDFs, in the list's order."""
    out = []
    for line in SOURCES.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, kind = line.split("\t")[:2]
            out.append((fetched / name, kind))
    return out


def measure(path: Path, kind: str, assets: Path) -> Fidelity:
    from kg.ingest import read_document
    from kg.models import IngestError

    result = Fidelity(path.name, kind)
    try:
        doc = read_document(path, assets)
    except IngestError as exc:
        result.error = str(exc)
        return result
    result.title, result.title_source = doc.title, doc.title_source
    _tables(doc, result)
    _statements(doc, result)
    _references(doc, result)
    return result


def _tables(doc, result: Fidelity) -> None:
    from kg.ingest.tables import TableGrid

    for block in doc.blocks:
        if block.kind != "table" or not block.cells:
            continue
        grid = TableGrid.from_json(block.cells)
        result.tables += 1
        for header in grid.header:
            result.header_tokens += len(header.split())
            result.bad_headers += bool(SPLIT_TOKEN.search(header) or MARKUP.search(header))
        for cell in (c for row in grid.rows for c in row if c):
            result.cells += 1
            result.bad_cells += bool(SPLIT_TOKEN.search(cell) or MARKUP.search(cell))
        result.bad_cells += bool(MARKUP.search(block.text))  # the chunk text shows no markup either


def _statements(doc, result: Fidelity) -> None:
    from builders.chains.statements import node_sentences, quotable

    for block in doc.blocks:
        if block.kind == "table":
            continue
        evidence = set(NUMBER.findall(block.text))  # whole numbers as written: "84." is not "84.2"
        for sentence in node_sentences(block.text):
            result.sentences += 1
            statement, why = quotable(sentence, prose=block.kind != "caption")
            result.reasons[why or "kept"] += 1
            for number in NUMBER.findall(statement):
                result.numbers += 1
                result.numbers_kept += number in evidence


def _references(doc, result: Fidelity) -> None:
    from kg.enrich.chunking import chunk_document
    from kg.enrich.references import caption_label, find_mentions, resolve_references

    chunks = chunk_document(doc, "bench", method="fixed", size=300, overlap=0)
    # A caption exists where any block starts a line with its label, recognised as a caption or not.
    captions = {caption_label(line) for b in doc.blocks for line in b.text.splitlines()}
    captions |= {c.label for c in chunks if c.label} | {i.label for i in doc.images if i.label}
    resolved, unresolved = resolve_references(chunks, doc.images)
    wanted = {(c.id, label) for c in chunks for label in find_mentions(c.text)
              if label.split()[0] in ("Table", "Figure") and label in captions}
    found = {(r["source"], r["label"]) for r in resolved}
    missed = {(u["source"], u["label"]) for u in unresolved}
    result.mentions = len((found | missed) & wanted)
    result.resolved = len(found & wanted)
    result.unresolved_why.update(u["reason"] for u in unresolved)


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.1%})" if b else "-"


def report(results: list[Fidelity], markdown: bool) -> None:
    print(f"{'file':46} {'tables':>6} {'hdr tok':>7} {'bad hdr':>7} {'bad cell':>8} {'stmts':>11} "
          f"{'numbers kept':>16} {'refs resolved':>15}")
    for r in results:
        if r.error:
            print(f"{r.name[:46]:46} skipped: {r.error}")
            continue
        print(f"{r.name[:46]:46} {r.tables:6d} {r.header_tokens:7d} {r.bad_headers:7d} {r.bad_cells:8d} "
              f"{r.reasons['kept']:5d}/{r.sentences:<5d} {_ratio(r.numbers_kept, r.numbers):>16} "
              f"{_ratio(r.resolved, r.mentions):>15}")
    ok = [r for r in results if not r.error]
    total = lambda attr: sum(getattr(r, attr) for r in ok)  # noqa: E731
    reasons = sum((r.reasons for r in ok), Counter())
    why = sum((r.unresolved_why for r in ok), Counter())
    print(f"\n{len(ok)} PDFs read, {len(results) - len(ok)} refused")
    print(f"numbers preserved: {_ratio(total('numbers_kept'), total('numbers'))}")
    print(f"table header tokens: {total('header_tokens')} in {total('tables')} tables; header cells with split "
          f"tokens or markup: {total('bad_headers')}; data cells: {total('bad_cells')} of {total('cells')}")
    print("sentences: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    print(f"reference resolution (caption exists): {_ratio(total('resolved'), total('mentions'))}; "
          "unresolved by reason: " + (", ".join(f"{k} {v}" for k, v in why.most_common()) or "none"))
    print("\ntitles:")
    if markdown:
        print("| PDF | kind | title | source |\n|---|---|---|---|")
    for r in results:
        title = r.title if not r.error else f"(refused: {r.error})"
        if markdown:
            print(f"| {r.name} | {r.kind} | {title.replace('|', '/')} | {r.title_source or '-'} |")
        else:
            print(f"  {r.name[:46]:46} {r.title_source or '-':9} {title[:90]}")


_QUOTED = re.compile(r'"[^"]*"')  # a quoted title or caption ("Qwen2 Technical Report") is no claim
_STARTS_BADLY = re.compile(r"^(?:[\u2022\u25aa\u25cf\-*]|\(?[a-z\d]{1,3}\)|\d+(?:\.\d+)*\.?\s)")


def check_dataset(path: Path) -> None:
    """A built dataset (dataset.jsonl): numbers of every question, sub-question and answer in their
    evidence as written, markup and split tokens, statements that start badly, and the largest
    share of records one table or the table-cell template supplies."""
    import json

    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    numbers = kept = markup = bad_start = 0
    tables: Counter = Counter()
    templates = 0
    for record in records:
        hops = record.get("subqa_chain") or []
        evidence_all = set()
        for hop in hops:
            evidence = hop.get("evidence") or {}
            source = " ".join(evidence.get(k) or "" for k in ("text", "caption", "description"))  # image hops
            written = set(NUMBER.findall(source))
            evidence_all |= written
            for text in (_QUOTED.sub(" ", hop.get("subquestion") or ""), hop.get("answer") or ""):
                found = NUMBER.findall(text)
                numbers += len(found)
                kept += sum(n in written for n in found)
                markup += bool(MARKUP.search(text) or SPLIT_TOKEN.search(text))
            question = (hop.get("subquestion") or "").split(": ", 1)[-1]
            bad_start += bool(_STARTS_BADLY.match(question))
            if hop.get("table_cell"):
                tables[evidence.get("chunk_id")] += 1
        templates += any(h.get("table_cell") for h in hops)
        for text in (_QUOTED.sub(" ", record.get("question") or ""), record.get("answer") or ""):
            found = NUMBER.findall(text)
            numbers += len(found)
            kept += sum(n in evidence_all for n in found)
            markup += bool(MARKUP.search(text) or SPLIT_TOKEN.search(text))
    n = max(len(records), 1)
    print(f"dataset {path}: {len(records)} records; numbers in their evidence as written: {_ratio(kept, numbers)}; "
          f"texts with markup or split tokens: {markup}; sub-questions starting with a bullet, enumerator or "
          f"section number: {bad_start}; largest share from one table: {max(tables.values(), default=0) / n:.0%}; "
          f"table-cell template: {templates / n:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdfs", nargs="*", type=Path, help="PDFs to measure (default: shared corpus + listed)")
    parser.add_argument("--fetched", type=Path, default=DEFAULT_FETCHED,
                        help="folder holding the PDFs listed in bench/fidelity_sources.tsv")
    parser.add_argument("--markdown", action="store_true", help="print the titles as a markdown table")
    parser.add_argument("--dataset", type=Path, help="also check a built dataset.jsonl (numbers, markup, variety)")
    args = parser.parse_args()
    if args.dataset:
        check_dataset(args.dataset)
        if not args.pdfs:
            return
    if args.pdfs:
        todo = [(p, "") for p in args.pdfs]
    else:
        todo = [(p, "shared corpus") for p in sorted(SHARED.glob("*.pdf"))] + sources(args.fetched)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for path, kind in todo:
            if not path.exists():
                print(f"skipping {path}: missing (see {SOURCES.name} for where to fetch it)", file=sys.stderr)
                continue
            results.append(measure(path, kind, Path(tmp)))
    report(results, args.markdown)


if __name__ == "__main__":
    main()
