"""Write-back of generated chains: Chain and Hop nodes and their edges, rejected ones too.

A hop answered by a table cell keeps that cell on its Hop node as
`table_cell`, a JSON string {row_label, column_label, value, unit}, so the
answer can be checked against the table without re-reading the grid, and
its row label as `table_row`, which the broken-bridge audit reads. A figure
hop (a value a figure prints at a label, figure_walk.py) is no table: it keeps
`figure_value`, JSON {label, value, figure}, and `table_row` (its label) for
the same audit. A strict fork keeps its computed comparison on the Chain as
`fork` (fork_walk.py: the operation, both parts, the answer).
"""

from __future__ import annotations

import json
import re

from builders.chains.rounds import Outcome
from builders.chains.verbalize import HopText
from queries.corpus_view import CorpusView

_FIGURE_LABEL = re.compile(r"^\s*(?:Figure|Fig\.)\s*[A-Za-z]?\d+", re.IGNORECASE)  # "Figure 3", "Fig. 4"


def chain_rows(view: CorpusView, outcome: Outcome, seq: int) -> dict[str, list[dict]]:
    draft, v, cand = outcome.draft, outcome.verdict, outcome.draft.candidate
    chain_id = outcome.root_id or cand.id
    necessary = v.necessary if v else [False] * len(cand.hops)
    # dict.fromkeys: a fork's branches bridge the same entity; list it once.
    bridges = list(dict.fromkeys(h.bridge for h in cand.hops if h.bridge_kind == "entity" and h.bridge))
    own = view.doc_personas.get(view.nodes[cand.hops[-1].node_id].doc_id) or {}  # the voice it was written in
    chain = {
        "id": chain_id, "seq": seq, "graph_type": cand.graph_type,
        "question": draft.question, "answer": draft.answer,
        "status": outcome.status, "reject_reason": outcome.reason,
        "generator": draft.generator, "prompt_versions": json.dumps(draft.prompt_versions, sort_keys=True),
        "hops": len(cand.hops), "evidence_ids": cand.node_ids,
        "doc_ids": sorted({view.nodes[n].doc_id for n in cand.node_ids}),
        "topic_ids": sorted({view.nodes[n].topic for n in cand.node_ids if view.nodes[n].topic}),
        "bridge_entities": bridges,
        "bridge_names": [view.entity_name.get(b, b) for b in bridges],
        "answer_entities": [cand.answer_entity] if cand.answer_entity else [],
        "domain": own.get("domain") or view.domain, "persona": own.get("persona") or view.persona,
        "structure": json.dumps([list(e) for e in cand.structure]),
        "navigation": bool(v and v.navigation), "no_shortcut": bool(v and v.no_shortcut),
        "faithful": bool(v and v.faithful), "standalone": bool(v and v.standalone),
        "requires_content": bool(v and v.requires_content),
        "score": v.score if v else 0.0, "verifier": v.method if v else "",
        "shrunk_from": outcome.shrunk_from,
        "repaired": outcome.repaired,
        # construction.py's figures (siblings, rivals, BM25 ranks, context cosines): why it was drawn.
        "construction": json.dumps(cand.meta.get("construction", {}), sort_keys=True),
    }
    emp = outcome.empirical
    if emp is not None:
        chain["answer_with_all_evidence"] = emp.answer_with_all
        chain["right_with_all_evidence"] = emp.right_with_all
    hops, has_hop, uses, bridges_rows = [], [], {"Chunk": [], "Image": [], "Keypoint": []}, []
    cell = cand.table_cell
    figure_facts = _figure_facts(view, cand)
    chain["table_hops"] = 1 if cell and cand.hops[-1].label != "Image" else 0
    chain["figure_hops"] = len(figure_facts)
    chain["fork"] = json.dumps(cand.meta["fork"], ensure_ascii=False) if cand.meta.get("fork") else ""
    fork_subjects = {p["hop"]: p["subject"] for p in (cand.meta.get("fork") or {}).get("parts", [])}
    for i, hop in enumerate(cand.hops):
        text = draft.hops[i] if i < len(draft.hops) else HopText("", "")
        hop_id = f"{chain_id}:{i}"
        hops.append({
            "id": hop_id, "chain_id": chain_id, "index": i,
            "sub_question": text.sub_question, "answer": text.answer,
            "modality": "image" if hop.label == "Image" else "text",
            "evidence_id": hop.node_id, "evidence_label": hop.label,
            "bridge_id": hop.bridge if hop.bridge_kind == "entity" else "",
            "bridge_kind": hop.bridge_kind,
            "necessary": bool(necessary[i]) if i < len(necessary) else False,
            "necessity_checked": v is not None,
            "necessity_method": "empirical" if emp else ("judge" if v and v.method.startswith("llm")
                                                           else (v.method if v else "")),
            "answer_without": emp.answers_without[i] if emp and i < len(emp.answers_without) else "",
            "right_without": bool(emp.right_without[i]) if emp and i < len(emp.right_without) else False,
        })
        if i in figure_facts:
            hops[-1]["table_row"] = figure_facts[i]["label"]  # plain, for cypher/audits/broken_bridge.cypher
            hops[-1]["figure_value"] = json.dumps(figure_facts[i], ensure_ascii=False)
        elif cell and i == len(cand.hops) - 1:
            hops[-1]["table_row"] = cell.row_label  # plain, for cypher/audits/broken_bridge.cypher
            # A cell read across (tables.TableIndex `across`) is stored as printed: its row is the benchmark.
            row, column = (cell.column_label, cell.row_label) if cell.across else (cell.row_label, cell.column_label)
            hops[-1]["table_cell"] = json.dumps({"row_label": row, "column_label": column, "value": cell.value,
                                                 "unit": cell.unit}, ensure_ascii=False)
        elif hop.label == "Image" and i in fork_subjects:
            # A strict fork's figure branch: the subject is the label the figure prints its value at,
            # which the Image need not MENTION (plain, for cypher/audits/broken_bridge.cypher).
            hops[-1]["table_row"] = fork_subjects[i]
        has_hop.append({"s": chain_id, "d": hop_id, "index": i})
        uses[hop.label].append({"s": hop_id, "d": hop.node_id})
        for kp in view.keypoints.get(hop.node_id, []):
            if text.statement and kp.text == text.statement:
                uses["Keypoint"].append({"s": hop_id, "d": kp.id})
        if hop.bridge_kind == "entity" and hop.bridge:
            bridges_rows.append({"s": hop_id, "d": hop.bridge})
    return {"chain": [chain], "hops": hops, "has_hop": has_hop, "uses_chunk": uses["Chunk"],
            "uses_image": uses["Image"], "uses_keypoint": uses["Keypoint"], "bridges": bridges_rows}


def _figure_facts(view: CorpusView, cand) -> dict[int, dict]:
    """Hop index -> {label, value, figure} for each hop answered or identified by a value a figure
    prints: a figure walk's last hop (its "cell"), an image_initiated chain's first hop."""
    out = {}
    cell = cand.table_cell
    last = len(cand.hops) - 1
    if cell and cand.hops[last].label == "Image":
        out[last] = {"label": cell.row_label, "value": cell.value}
    fact = cand.meta.get("figure_fact")
    if fact and cand.hops[fact["hop"]].label == "Image":
        out[fact["hop"]] = {"label": fact["label"], "value": fact["value"]}
    for i, facts in out.items():
        node = view.nodes[cand.hops[i].node_id]
        label = _FIGURE_LABEL.match(node.caption or "")
        facts["figure"] = label.group().strip() if label else ""
    return out


def write_back(store, view: CorpusView, outcomes: list[Outcome], seq_start: int) -> None:
    batch: dict[str, list[dict]] = {}
    for i, outcome in enumerate(outcomes):
        for key, rows in chain_rows(view, outcome, seq_start + i).items():
            batch.setdefault(key, []).extend(rows)
    if not batch:
        return
    store.write("upsert_chains", batch["chain"])
    store.write("upsert_hops", batch["hops"])
    store.write("chain_has_hop", batch["has_hop"], key=None)
    store.write("hop_uses_chunk", batch["uses_chunk"], key=None)
    store.write("hop_uses_image", batch["uses_image"], key=None)
    store.write("hop_uses_keypoint", batch["uses_keypoint"], key=None)
    store.write("hop_bridges", batch["bridges"], key=None)
