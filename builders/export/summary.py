"""Deterministic counts of the exported records (stats.json, the card, the plots)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from kg.errors import StoreError

VERIFY_FLAGS = ("faithful", "standalone", "requires_content", "navigation", "no_shortcut")


def graph_stats(store: Any, warnings: list[str]) -> dict[str, Any]:
    """The graph's dataset statistics (builders.stats), for stats.json.

    A store that cannot answer costs the export its graph figures, with a
    warning, not the dataset; any other exception is a bug and propagates."""
    from builders.stats import dataset_stats

    try:
        return dataset_stats(store)
    except StoreError as exc:
        warnings.append(f"graph statistics left out of stats.json: {exc}")
        return {}


def _share(counter: Counter, total: int) -> dict[str, float]:
    return {k: round(v / total, 4) if total else 0.0 for k, v in sorted(counter.items())}


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Small, deterministic counts of the exported records (stats.json "export", the card, the plots)."""
    by_type = Counter(r["graph_type"] for r in records)
    hops_hist = Counter(r["hops"] for r in records)
    hops_by_type: dict[str, Counter] = defaultdict(Counter)
    modality = Counter()
    modality_by_type: dict[str, Counter] = defaultdict(Counter)
    evidence_kinds = Counter()
    verification = {flag: Counter() for flag in (*VERIFY_FLAGS, "hop_necessity")}
    generators = Counter()
    prompt_versions: dict[str, set[str]] = defaultdict(set)
    docs, images = set(), set()
    table_hops = figure_hops = 0
    for r in records:
        hops_by_type[r["graph_type"]][r["hops"]] += 1
        generators[r["generator"]["llm"] or "unknown"] += 1
        for task, version in r["generator"]["prompt_versions"].items():
            prompt_versions[task].add(version)
        for flag in VERIFY_FLAGS:
            verification[flag][_tri(r["verification"][flag])] += 1
        for s in r["subqa_chain"]:
            modality[s["modality"]] += 1
            modality_by_type[r["graph_type"]][s["modality"]] += 1
            evidence_kinds[s["evidence"].get("kind") or "unresolved"] += 1
            verification["hop_necessity"][_tri(s["necessary"])] += 1
            table_hops += s.get("table_cell") is not None
            figure_hops += s.get("figure_value") is not None
            if s["evidence"].get("doc_id"):
                docs.add(s["evidence"]["doc_id"])
            if s["evidence"].get("image_id"):
                images.add(s["evidence"]["image_id"])
    total_hops = sum(modality.values())
    return {
        "records": len(records),
        "hops_total": total_hops,
        "documents": len(docs),
        "images": len(images),
        "by_graph_type": dict(sorted(by_type.items())),
        "by_status": dict(sorted(Counter(r["status"] for r in records).items())),
        "hops_histogram": {str(k): v for k, v in sorted(hops_hist.items())},
        "hops_by_graph_type": {t: {str(k): v for k, v in sorted(c.items())} for t, c in sorted(hops_by_type.items())},
        "modality_counts": dict(sorted(modality.items())),
        "modality_share": _share(modality, total_hops),
        "modality_by_graph_type": {t: dict(sorted(c.items())) for t, c in sorted(modality_by_type.items())},
        "evidence_kinds": dict(sorted(evidence_kinds.items())),
        "table_hops": table_hops,
        "figure_hops": figure_hops,
        "verification_share": {flag: _share(c, sum(c.values())) for flag, c in verification.items()},
        "generators": dict(sorted(generators.items())),
        "prompt_versions": {t: sorted(v) for t, v in sorted(prompt_versions.items())},
    }


def _tri(value: Any) -> str:
    return "unchecked" if value is None else ("pass" if value else "fail")
