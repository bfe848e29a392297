"""HotpotQA gold chains as a yardstick for bridges and walks (issue 12, item 6).

Ingest the HotpotQA paragraphs of ../shared/corpus (one file per Wikipedia
title) offline, then for the bridge questions of the 100-question sample:

(a) bridge linkage recall: the share of gold bridge questions whose two gold
    paragraphs share an Entity node that matches the gold bridge. The gold
    bridge is the title of the gold paragraph that the other one names
    (HotpotQA bridge questions are built that way); an entity matches when
    its normalised name equals the title's (parenthetical dropped) or is
    contained in it as whole words. Reported for any shared Entity node and
    for those the bridge rules accept (builders/chains/bridges.py).
(b) walk recall: the share of the linked gold pairs that the walkers sample
    as consecutive hops in N seeded samples, and the share they could
    step between at all (a walk step from one paragraph to the other exists).

    python bench/hotpotqa_linkage.py [--data-dir DIR] [--samples N]

The ingest is kept in DIR (default /tmp/hopgraph-hotpotqa) so a re-run skips it.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.context import RunContext  # noqa: E402
from kg.enrich.entities import normalize_entity  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus"
WIKI = SHARED / "text" / "wiki_hotpotqa_train100"
QA = SHARED / "qa" / "hotpotqa" / "hotpotqa_train100_hipporag.json"


class Quiet:
    def print(self, *args, **kwargs):
        pass


def title_key(title: str) -> str:
    return normalize_entity(re.sub(r"\s*\(.*?\)\s*", " ", title).strip())


def gold_pairs() -> list[dict]:
    """Bridge questions with two gold titles and which of them is the bridge."""
    out = []
    for q in json.loads(QA.read_text(encoding="utf-8")):
        if q["type"] != "bridge":
            continue
        titles = list(dict.fromkeys(t for t, _ in q["supporting_facts"]))
        if len(titles) != 2:
            continue
        text = {t: " ".join(s) for t, s in q["context"]}
        bridge = ""
        for first, second in (titles, titles[::-1]):
            name = re.sub(r"\s*\(.*?\)\s*", " ", second).strip()
            if re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text.get(first, ""), re.IGNORECASE):
                bridge = second
                break
        out.append({"id": q["_id"], "titles": titles, "bridge": bridge or titles[1]})
    return out


def ingest(data_dir: Path, files: list[Path]):
    from kg.config import Settings
    from kg.pipeline import run_ingest
    from kg.store.falkor import FalkorStore

    settings = Settings()
    settings.store.data_dir = data_dir
    store = FalkorStore(data_dir)
    store.ensure_schema()
    started = time.perf_counter()
    summary = run_ingest(RunContext.open(settings, store, console=Quiet()), files)
    print(f"ingest: {summary.ingested} new, {summary.unchanged} unchanged "
          f"({time.perf_counter() - started:.0f} s)")
    return settings, store


def matches(entity_id: str, name: str, bridge_title: str) -> bool:
    key = title_key(bridge_title)
    ent = normalize_entity(name) or entity_id
    return ent == key or bool(re.search(r"(?<!\w)" + re.escape(ent) + r"(?!\w)", key)) and len(ent) >= 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/hopgraph-hotpotqa"))
    parser.add_argument("--samples", type=int, default=20000)
    args = parser.parse_args()
    from builders.chains.generate import make_walker
    from queries.corpus_view import load_corpus_view

    index = {e["title"]: WIKI / e["file"] for e in json.loads((WIKI / "_index.json").read_text(encoding="utf-8"))}
    pairs = [p for p in gold_pairs() if all(t in index for t in p["titles"])]
    settings, store = ingest(args.data_dir, sorted(set(index.values())))
    view = load_corpus_view(store)
    doc_of_path = {}
    for r in store.run("walk_documents"):
        doc_of_path[Path(r["path"] or "").name] = r["id"]
    walker = make_walker(view, settings, random.Random(7))
    entities_of_doc: dict[str, set[str]] = defaultdict(set)
    for node_id, ents in view.mentions.items():
        if node_id in view.nodes:
            entities_of_doc[view.nodes[node_id].doc_id] |= ents
    linked, linked_rule, reachable = [], [], []
    for p in pairs:
        a, b = (doc_of_path.get(index[t].name) for t in p["titles"])
        if not a or not b:
            continue
        shared = entities_of_doc[a] & entities_of_doc[b]
        good = [e for e in shared if matches(e, view.entity_name.get(e, e), p["bridge"])]
        if good:
            linked.append(p)
        if any(walker.rules.can_bridge(e) for e in good):
            linked_rule.append(p)
            p["docs"] = (a, b)
            if can_step(walker, view, a, b) or can_step(walker, view, b, a):
                reachable.append(p)
    sampled = sample_pairs(walker, args.samples)
    walked = [p for p in linked_rule if p["docs"] in sampled or p["docs"][::-1] in sampled]
    n = len(pairs)
    print(f"gold bridge questions: {n}")
    print(f"(a) bridge linkage recall, any shared Entity node:  {len(linked) / n:.3f} ({len(linked)}/{n})")
    print(f"    bridge linkage recall, bridge rules applied:   {len(linked_rule) / n:.3f} ({len(linked_rule)}/{n})")
    print(f"(b) walk recall, a walk step exists:               {_ratio(reachable, linked_rule)}")
    print(f"    walk recall, sampled in {args.samples} walks:       {_ratio(walked, linked_rule)}")
    store.close()


def _ratio(part: list, whole: list) -> str:
    return f"{len(part) / len(whole):.3f} ({len(part)}/{len(whole)})" if whole else "n/a"


def can_step(walker, view, doc_a: str, doc_b: str) -> bool:
    """Whether the walker could go from a chunk of doc_a to a chunk of doc_b in one step."""
    chunks_a = [c for c in walker.chunks if view.nodes[c].doc_id == doc_a]
    for chunk in chunks_a:
        for ent in walker.outgoing(chunk, ""):
            if not walker.bridgeable(ent):
                continue
            for node in walker._by_label.get((ent, "Chunk"), []):
                if view.nodes[node].doc_id == doc_b and walker._enterable(node, ent, doc_a, [chunk]):
                    return True
    return False


def sample_pairs(walker, samples: int) -> set[tuple[str, str]]:
    """Consecutive-hop document pairs over `samples` text-chain samples."""
    seen = set()
    started = time.perf_counter()
    walker.min_hops = 2
    for _ in range(samples):
        cand = walker.sample("text_chain")
        if cand is None:
            continue
        docs = [walker.view.nodes[h.node_id].doc_id for h in cand.hops]
        seen.update(zip(docs, docs[1:]))
    print(f"walks: {samples} samples in {time.perf_counter() - started:.0f} s, {len(seen)} document pairs")
    return seen


if __name__ == "__main__":
    main()
