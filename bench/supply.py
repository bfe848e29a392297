"""What a strict run would verbalize, without any LLM: candidate supply per type, offline.

Draws one generation round as `generate` does when an LLM is configured (the
construction pre-check enforced, construction.py; the walk memory, supply.py)
from a data dir that `hopgraph ingest` filled, and prints how many distinct
candidates pass, by chain type and hop count, with the pre-check's drops by
reason and where the walks that found nothing died (the walker's `deaths`: which
step rule, lookahead or end rule stopped them, by chain type). With --dump, each candidate's write request (the verbalize prompt's
user message, as the model would read it) goes to a JSON file, to be read as a
strict reader would: does the last hop alone answer? can the bridge be picked
by elimination? Nothing is written to the graph.

    python bench/supply.py .hopgraph --n 10 --dump /tmp/requests
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data_dir", type=Path, help="hopgraph data dir, already ingested")
    p.add_argument("--n", type=int, default=10, help="chains the run would be asked for (default 10)")
    p.add_argument("--seed", type=int, default=0, help="added to [generate] seed (default 0)")
    p.add_argument("--dump", type=Path, default=None, help="folder for one write request per candidate (JSON)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    opts = parse(argv)
    sys.path.insert(0, str(ROOT))
    from builders.chains.generate import GenerateReport, make_walker
    from builders.chains.requests import verbalize_request
    from builders.chains.sampling import RoundDraw
    from builders.chains.walkers import infeasible_reason
    from kg.config import load_settings
    from kg.store.falkor import FalkorStore
    from queries.corpus_view import load_corpus_view

    settings = load_settings()
    settings.store.data_dir = opts.data_dir
    store = FalkorStore(opts.data_dir)
    try:
        view = load_corpus_view(store)
        walker = make_walker(view, settings, random.Random(settings.generate.seed + opts.seed), store, strict=True)
        types = [t for t in settings.generate.types if infeasible_reason(view, walker, t) is None]
        report = GenerateReport()
        draw = RoundDraw(view, walker, types, opts.n, set(), report, Counter(), Counter(),
                         settings.generate.variety_share)
        size = max(16, round(opts.n / 0.8 * 1.1))  # generate's first round with an LLM
        cands = list(draw.round({t: -(-opts.n // len(types)) for t in types}, size)) if types else []
        if opts.dump:
            opts.dump.mkdir(parents=True, exist_ok=True)
            for i, cand in enumerate(cands):
                user = verbalize_request(view, cand, settings).messages[-1]["content"]
                (opts.dump / f"{i:02d}-{cand.graph_type}.json").write_text(json.dumps(
                    {"type": cand.graph_type, "construction": cand.meta.get("construction"), "request": user},
                    ensure_ascii=False, indent=1), encoding="utf-8")
    finally:
        store.close()
        store.server.stop()
    figures = {"feasible_types": types, "sampled": report.candidates, "distinct_passing": len(cands),
               "by_type": dict(Counter(c.graph_type for c in cands)),
               "by_hops": {str(k): v for k, v in sorted(Counter(len(c.hops) for c in cands).items())},
               "documents": len({view.nodes[c.hops[-1].node_id].doc_id for c in cands}),
               "precheck_dropped": dict(report.prechecked.most_common()),
               "walk_deaths": deaths_by_type(walker.deaths)}
    print(json.dumps(figures, indent=1))
    return figures


def deaths_by_type(deaths: Counter) -> dict[str, dict[str, int]]:
    """{chain type: {reason: count}}, most frequent first."""
    out: dict[str, dict[str, int]] = {}
    for (gtype, reason), count in deaths.most_common():
        out.setdefault(gtype, {})[reason] = count
    return out


if __name__ == "__main__":
    main()
