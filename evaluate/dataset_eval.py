"""`hopgraph eval dataset`: the quality of the dataset itself (after MiRAGE's evaluation).

Structural figures, no LLM: hops per question, modality mix, near-duplicate
rate (a record whose pair score 0.6 x cos(question + answer embeddings) +
0.4 x Jaccard(gold evidence) with another record reaches `tau`), and topic
JSD (Jensen-Shannon divergence, base 2, in [0, 1], between the corpus's chunk
topics and the topics of the dataset's evidence chunks; scipy).

Judged figures, with an LLM (role reader): faithfulness and relevance of the
gold answer (0-1), answerable from the evidence alone, answerable with no
evidence, difficulty (0-1), judged hop count beside the structural one, and,
with a vision model, the share of image hops whose answer is on the image.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from evaluate.corpus import EvidenceCorpus
from evaluate.records import EvalRecord
from evaluate.services import JUDGE_ROLE, image_data_url, llm_request
from evaluate.textmatch import numbered

ALPHA = 0.6  # MiRAGE's weight of the embedding cosine in the pair score
PASSAGE_CHARS = 2000


def near_duplicate_rate(records: list[EvalRecord], embedder: Any, tau: float) -> dict[str, float]:
    """Share of records with a near-duplicate partner, and the number of such pairs."""
    if len(records) < 2:
        return {"near_duplicate_rate": 0.0, "near_duplicate_pairs": 0}
    vectors = embedder.encode([f"{r.question} {r.answer}" for r in records])
    cosine = vectors @ vectors.T
    evidence = [set(r.gold_ids) for r in records]
    pairs, flagged = 0, set()
    for i in range(len(records)):
        for j in range(i + 1, len(records)):
            union = evidence[i] | evidence[j]
            jaccard = len(evidence[i] & evidence[j]) / len(union) if union else 0.0
            if ALPHA * float(cosine[i, j]) + (1 - ALPHA) * jaccard >= tau:
                pairs += 1
                flagged.update((i, j))
    return {"near_duplicate_rate": round(len(flagged) / len(records), 4), "near_duplicate_pairs": pairs}


def topic_jsd(records: list[EvalRecord], corpus: EvidenceCorpus) -> float | None:
    """JSD (base 2) of evidence-chunk topics against corpus-chunk topics; None if the graph has no topics."""
    from scipy.spatial.distance import jensenshannon

    if not corpus.chunk_topic:
        return None
    topics = sorted(set(corpus.chunk_topic.values()))
    corpus_counts = Counter(corpus.chunk_topic.values())
    dataset_counts = Counter(corpus.chunk_topic[u] for r in records for u in r.gold_ids if u in corpus.chunk_topic)
    if not dataset_counts:
        return None
    p = np.array([corpus_counts[t] for t in topics], dtype=float)
    q = np.array([dataset_counts[t] for t in topics], dtype=float)
    return round(float(jensenshannon(p, q, base=2) ** 2), 4)  # scipy returns the distance, its square root


def structural(records: list[EvalRecord], corpus: EvidenceCorpus, embedder: Any, tau: float) -> dict[str, Any]:
    hops = [len(r.hops) for r in records]
    modalities = Counter(h.modality for r in records for h in r.hops)
    figures: dict[str, Any] = {"records": len(records), "hops_mean": round(float(np.mean(hops)), 3),
                               "hops_distribution": dict(sorted(Counter(hops).items())),
                               "by_graph_type": dict(Counter(r.graph_type for r in records).most_common())}
    total = sum(modalities.values())
    figures["modality_mix"] = {m: round(c / total, 4) for m, c in modalities.most_common()}
    figures.update(near_duplicate_rate(records, embedder, tau))
    figures["topic_jsd"] = topic_jsd(records, corpus)
    return figures


def _evidence_text(record: EvalRecord, corpus: EvidenceCorpus) -> str:
    items = [" ".join(corpus.texts[corpus.position[u]] for u in h.gold_ids)[:PASSAGE_CHARS] for h in record.hops]
    return numbered(items)


def judged(records: list[EvalRecord], corpus: EvidenceCorpus, client: Any, app_settings: Any,
           on_done: Any = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """LLM-judged figures (means and shares over the records the judge answered) and per-record rows."""
    requests = [llm_request("eval_judge_record", JUDGE_ROLE, "eval_dataset", app_settings, question=r.question,
                            answer=r.answer, evidence=_evidence_text(r, corpus), n_hops=len(r.hops)) for r in records]
    results = client.run_many(requests, (lambda i, res: on_done()) if on_done else None)
    rows = [{"record_id": r.id, "hops": len(r.hops), **res.value.model_dump()}
            for r, res in zip(records, results) if res.ok]
    if not rows:
        return {"judged_failed": len(records)}, []

    def mean(key: str) -> float:
        return round(float(np.mean([float(row[key]) for row in rows])), 4)

    figures = {"faithfulness": mean("faithfulness"), "relevance": mean("relevance"),
               "answerability": mean("answerable_from_evidence"),
               "answerable_without_evidence": mean("answerable_without_evidence"),
               "difficulty": mean("difficulty"), "judged_hops_mean": mean("hops_needed"),
               "judged": len(rows), "judged_failed": len(records) - len(rows)}
    return figures, rows


def visual_grounding(records: list[EvalRecord], dataset_dir: Path, client: Any, app_settings: Any) -> dict[str, Any]:
    """Share of image hops whose answer the vision model finds on the image (files next to the dataset)."""
    requests = []
    for record in records:
        for hop in record.hops:
            path = next((dataset_dir / e.image_path for e in hop.evidence if e.image_path), None)
            if hop.modality == "image" and path is not None and path.is_file():
                requests.append(llm_request("eval_visual_grounding", "vision", "eval_dataset", app_settings,
                                            images=[image_data_url(path)], subquestion=hop.subquestion,
                                            answer=hop.answer))
    if not requests:
        return {}
    results = [r for r in client.run_many(requests) if r.ok]
    if not results:
        return {"visual_grounding_failed": len(requests)}
    return {"visual_grounding": round(sum(r.value.grounded for r in results) / len(results), 4),
            "image_hops_judged": len(results)}
