"""Dataset statistics: what `hopgraph stats` prints and the dataset card quotes.

Everything comes from the graph (Chain and Hop nodes, the corpus labels) and,
for LLM cost, from run manifests (kg/runs.py): JSON files under
<data_dir>/runs/*.json whose key "llm" holds an Accounting.to_dict()
({"stages": {"stage/role": {calls, tokens_in, tokens_out, ...}}, ...}; a plain
{stage: {calls, tokens_in, tokens_out}} is read too). Every manifest is
summed, except dry runs (estimates, nothing spent): `generate` tops a dataset
up over several runs and the LLM cache makes a repeated run cost ~nothing, so
the sum is what the dataset cost. Zeros when no manifest exists.
The result is a plain JSON-serialisable dict.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from statistics import median
from typing import Any

from builders.coverage import coverage
from kg.runs import manifests_in
from kg.text import folded

CORPUS_LABELS = {"documents": "Document", "chunks": "Chunk", "images": "Image",
                 "entities": "Entity", "keypoints": "Keypoint", "topics": "Topic"}


def _default_runs_dir(store: Any) -> Path | None:
    server = getattr(store, "server", None)
    if server is not None and getattr(server, "data_dir", None) is not None:
        return Path(server.data_dir) / "runs"
    try:
        from kg.config import load_settings

        return Path(load_settings().store.data_dir) / "runs"
    except Exception:  # no readable config: no manifests
        return None


def _stage_numbers(llm: dict[str, Any]) -> dict[str, dict[str, int]]:
    stages = llm.get("stages") if isinstance(llm.get("stages"), dict) else {
        k: v for k, v in llm.items() if isinstance(v, dict) and k != "total"}
    out: dict[str, dict[str, int]] = {}
    for name, d in stages.items():
        out[name] = {f: int(d.get(f, 0) or 0) for f in ("calls", "tokens_in", "tokens_out")}
    return out


def llm_usage(runs_dir: Path | None, accepted: int) -> dict[str, Any]:
    """LLM calls and tokens summed over every (non dry-run) manifest, and per accepted chain."""
    stages: dict[str, dict[str, int]] = {}
    used = 0
    for manifest in manifests_in(runs_dir) if runs_dir is not None else []:
        llm = manifest.get("llm")
        if not isinstance(llm, dict) or llm.get("dry_run"):
            continue  # no LLM section, or estimates of a dry run: nothing was spent
        used += 1
        for name, nums in _stage_numbers(llm).items():
            slot = stages.setdefault(name, {"calls": 0, "tokens_in": 0, "tokens_out": 0})
            for f, v in nums.items():
                slot[f] += v
    calls = sum(s["calls"] for s in stages.values())
    tokens_in = sum(s["tokens_in"] for s in stages.values())
    tokens_out = sum(s["tokens_out"] for s in stages.values())
    return {
        "runs": used,
        "calls": calls,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "by_stage": dict(sorted(stages.items())),
        "calls_per_accepted_chain": round(calls / accepted, 4) if accepted else 0.0,
        "tokens_per_accepted_chain": round((tokens_in + tokens_out) / accepted, 4) if accepted else 0.0,
    }


def dataset_stats(store: Any, runs_dir: Path | str | None = None) -> dict[str, Any]:
    """Corpus counts, chain figures, coverage and LLM cost; {} when there are no chains.

    Keys: corpus {documents, chunks, images, entities, keypoints, topics};
    chains (total), accepted; by_status, by_type, accepted_by_type;
    hops_histogram (accepted chains, hop count as a string key);
    reject_reasons (rejected chains); duplicates (chains with status
    'duplicate') and duplicate_edges; hops (accepted chains' hops) and
    modality_share {modality: share}; js_divergence, doc_share,
    corpus_topics, dataset_topics, documents_covered, unmapped_evidence;
    llm {runs, calls, tokens_in, tokens_out, by_stage, calls_per_accepted_chain,
    tokens_per_accepted_chain}; quality (quality_figures).
    """
    chains = store.run("chains_for_stats")
    if not chains:
        return {}
    labels = store.counts()["nodes"]
    accepted = [c for c in chains if c.get("status") == "accepted"]
    rejected = [c for c in chains if c.get("status") == "rejected"]

    modalities = {str(r["modality"]): int(r["n"]) for r in store.run("accepted_hop_modalities")}
    hop_total = sum(modalities.values())
    cov = coverage(store, chains)
    dup_edges = store.run("count_duplicate_edges")
    runs = Path(runs_dir) if runs_dir is not None else _default_runs_dir(store)

    return {
        "corpus": {name: int(labels.get(label, 0)) for name, label in CORPUS_LABELS.items()},
        "chains": len(chains),
        "accepted": len(accepted),
        "by_status": _count(c.get("status") for c in chains),
        "by_type": _count(c.get("graph_type") for c in chains),
        "accepted_by_type": _count(c.get("graph_type") for c in accepted),
        "hops_histogram": {str(h): n for h, n in sorted(Counter(int(c.get("hops") or 0) for c in accepted).items())},
        "reject_reasons": _count(c.get("reject_reason") or "unspecified" for c in rejected),
        "duplicates": sum(1 for c in chains if c.get("status") == "duplicate"),
        "duplicate_edges": int(dup_edges[0]["n"]) if dup_edges else 0,
        "hops": hop_total,
        "modality_share": {m: round(n / hop_total, 6) for m, n in sorted(modalities.items())} if hop_total else {},
        "js_divergence": cov["js_divergence"],
        "doc_share": cov["doc_share"],
        "documents_covered": cov["documents_covered"],
        "corpus_topics": cov["corpus_topics"],
        "dataset_topics": cov["dataset_topics"],
        "unmapped_evidence": cov["unmapped_evidence"],
        "quality": quality_figures(store),
        "llm": llm_usage(runs, len(accepted)),
    }


NON_CONTENT_ROLES = frozenset({"front_matter", "contents", "references", "acknowledgements", "boilerplate"})


def quality_figures(store: Any) -> dict[str, Any]:
    """Issue 12's figures over accepted chains.

    non_content_evidence_share: hops whose evidence is furniture, contents,
    references or boilerplate (by the chunk's role, or by its look when
    ingest gave no role), target 0; answer_in_evidence_share: text hops whose
    answer occurs in their evidence, target 1.0; question_word_agreement: share
    of questions whose question word does not contradict the answer's type;
    median_bridge_df: median number of documents mentioning a bridge;
    average_hops and share_3plus_hops; table_hops: hops answered by one
    table cell (their answer counts as in the evidence when the cell's value
    is in the table's text: "$22,439" is "$ | 22,439" there); figure_hops: hops
    answered or identified by a value a figure prints (no table hops).
    """
    from builders.chains.bridges import looks_like_furniture
    from builders.chains.question_words import agrees

    hops = store.run("quality_hops")
    text_hops = [h for h in hops if h.get("modality") == "text" and h.get("text") is not None]
    non_content = [h for h in text_hops if (h.get("role") or "body") in NON_CONTENT_ROLES
                   or looks_like_furniture(h["text"])]
    in_evidence = [h for h in text_hops if _answer_in_evidence(h)]
    chains = store.run("quality_chains")
    agreeing = [c for c in chains if agrees(c.get("question") or "", c.get("answer_name") or c.get("answer") or "",
                                            c.get("answer_label") or "")]
    dfs = sorted(int(r["df"]) for r in store.run("quality_bridge_df"))
    n_hops = [int(c.get("hops") or 0) for c in chains]
    return {
        "non_content_evidence_share": _share(len(non_content), len(text_hops)),
        "answer_in_evidence_share": _share(len(in_evidence), len(text_hops)),
        "question_word_agreement": _share(len(agreeing), len(chains)),
        "median_bridge_df": float(median(dfs)) if dfs else 0.0,
        "average_hops": round(sum(n_hops) / len(n_hops), 4) if n_hops else 0.0,
        "share_3plus_hops": _share(sum(n >= 3 for n in n_hops), len(n_hops)),
        "table_hops": sum(1 for h in hops if h.get("table_cell")),
        "figure_hops": sum(1 for h in hops if h.get("figure_value")),
    }


def _answer_in_evidence(hop: dict[str, Any]) -> bool:
    """The hop's answer is in its evidence; for a table cell, its value is in the table as a reader sees it."""
    from builders.chains.tables import normal_text

    if hop.get("table_cell"):
        try:
            value = str(json.loads(hop["table_cell"]).get("value") or "")
        except (ValueError, AttributeError):
            value = ""  # not a cell as write-back stores it
        return bool(value) and normal_text(value) in normal_text(hop["text"])
    answer = folded(hop.get("answer") or "")
    return bool(answer) and answer in folded(hop["text"])


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _count(values) -> dict[str, int]:
    counts = Counter(str(v) for v in values)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
