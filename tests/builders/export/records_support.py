"""Valid dataset records for the export tests, built through the record model itself."""

from __future__ import annotations

from builders.export.records import DatasetRecord


def make_record(cid: str, graph_type: str = "text_chain", modalities: tuple[str, ...] = ("text", "text"),
                status: str = "accepted", **extra) -> dict:
    hops = []
    for i, modality in enumerate(modalities):
        kind = "image" if modality == "image" else "chunk"
        evidence = {"kind": kind, "doc_id": f"doc-{cid}", "title": "Curie", "page": i + 1,
                    f"{kind}_id": f"{cid}-ev{i}", "text": "Marie Curie étudia à la Sorbonne." if kind == "chunk"
                    else None}
        hops.append({"index": i, "subquestion": f"sub-question {i} of {cid}?", "answer": f"answer {i}",
                     "modality": modality, "supporting_fact_id": f"{cid}-ev{i}", "bridge_entity": "Radium",
                     "bridge_entity_id": "radium", "necessary": i % 2 == 0, "necessity_method": "have",
                     "evidence": evidence})
    record = {"id": cid, "graph_type": graph_type, "question": f"Question of {cid} — où?", "answer": "Paris",
              "subqa_chain": hops, "hops": len(hops), "bridge_entities": ["Radium"], "bridge_entity_ids": ["radium"],
              "structure": [[i, i + 1] for i in range(len(hops))], "domain": None, "persona": "a student",
              "verification": {"faithful": True, "standalone": True, "requires_content": True, "navigation": True,
                               "no_shortcut": status == "accepted", "hop_necessity": [h["necessary"] for h in hops],
                               "score": 0.75},
              "generator": {"llm": "offline", "prompt_versions": {"verbalize_chain": "3"}},
              "doc_ids": [f"doc-{cid}"], "status": status, **extra}
    return DatasetRecord.model_validate(record).model_dump(mode="json")
