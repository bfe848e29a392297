"""A small, fully verified chain graph (one chain of each type) shared by the
audit, sync and graph-export tests."""

from __future__ import annotations

import json


def _edges(pairs, **extra):
    return [{"s": s, "d": d, **extra} for s, d in pairs]


def _chain(store, chain_id, graph_type, hops, bridges, answer_entities, status="accepted", seq=0):
    """hops: [(evidence_label, evidence_id, bridge_entity_id or '')]."""
    store.write("upsert_chains", [{
        "id": chain_id, "seq": seq, "graph_type": graph_type, "question": f"question of {chain_id}?",
        "answer": f"answer of {chain_id}", "status": status, "reject_reason": "", "generator": "test",
        "hops": len(hops), "evidence_ids": [h[1] for h in hops], "doc_ids": ["d1", "d2"],
        "bridge_entities": bridges, "answer_entities": answer_entities, "score": 0.9,
        "faithful": True, "standalone": True, "requires_content": True, "navigation": True,
        "no_shortcut": True, "structure": json.dumps({"hops": len(hops)}),
    }])
    hop_rows, has_hop, bridge_rows = [], [], []
    uses: dict[str, list[dict]] = {"Chunk": [], "Image": [], "Keypoint": []}
    for i, (label, evidence, bridge) in enumerate(hops):
        hop_id = f"{chain_id}:{i}"
        hop_rows.append({"id": hop_id, "chain_id": chain_id, "index": i, "sub_question": f"sub-question {i}?",
                         "answer": f"sub-answer {i}", "modality": "image" if label == "Image" else "text",
                         "evidence_id": evidence, "evidence_label": label, "bridge_id": bridge,
                         "necessary": True, "necessity_checked": True})
        has_hop.append({"s": chain_id, "d": hop_id, "index": i})
        uses[label].append({"s": hop_id, "d": evidence})
        if bridge:
            bridge_rows.append({"s": hop_id, "d": bridge})
    store.write("upsert_hops", hop_rows)
    store.write("chain_has_hop", has_hop, key=None)
    store.write("hop_uses_chunk", uses["Chunk"], key=None)
    store.write("hop_uses_image", uses["Image"], key=None)
    store.write("hop_uses_keypoint", uses["Keypoint"], key=None)
    store.write("hop_bridges", bridge_rows, key=None)


def build_clean_graph(store) -> None:
    """Two documents, chunks, two figures (one known only through its caption),
    six entities, a keypoint, a topic, and seven chains (five accepted, one
    rejected, one duplicate) that pass every audit."""
    store.write("upsert_documents", [
        {"id": "d1", "path": "docs/engines.md", "title": "Engines", "pages": 2, "sha256": "aa"},
        {"id": "d2", "path": "docs/museum.pdf", "title": "Museum", "pages": 3, "sha256": "bb"},
    ])
    chunks = [
        ("c1", "d1", 0, "Ada Lovelace worked with Charles Babbage."),
        ("c2", "d1", 1, "Charles Babbage designed the Analytical Engine."),
        ("c5", "d1", 2, "Ada Lovelace published her notes in 1843."),
        ("c3", "d2", 0, "The Analytical Engine was never completed."),
        ("cap1", "d2", 1, "Figure 1: the Difference Engine by Babbage at the Science Museum."),
        ("c4", "d2", 2, "The Science Museum is in London."),
    ]
    store.write("upsert_chunks", [
        {"id": cid, "doc_id": doc, "index": idx, "text": text, "kind": "caption" if cid.startswith("cap") else "text",
         "page_start": 1, "page_end": 1, "tokens": len(text.split())} for cid, doc, idx, text in chunks])
    store.set_vectors("Chunk", "embedding", [{"id": cid, "vector": [0.1 * (n + 1), 0.2, 0.3]}
                                             for n, (cid, *_rest) in enumerate(chunks)])
    store.write("upsert_images", [
        {"id": "i1", "doc_id": "d2", "page": 2, "path": "assets/i1.png", "caption": "Figure 1: the Difference Engine",
         "description": "a large brass machine", "description_source": "caption", "bbox": [0.0, 0.0, 1.0, 1.0]},
        {"id": "i2", "doc_id": "d1", "page": 1, "path": "assets/i2.png", "caption": "Portrait of Charles Babbage",
         "description": "an engraved portrait", "description_source": "vlm", "bbox": [0.1, 0.1, 0.5, 0.5]},
    ])
    store.write("upsert_entities", [
        {"id": eid, "name": name, "label": label, "aliases": [name.lower()]} for eid, name, label in [
            ("ada", "Ada Lovelace", "PERSON"), ("babbage", "Charles Babbage", "PERSON"),
            ("engine", "Analytical Engine", "PRODUCT"), ("diffeng", "Difference Engine", "PRODUCT"),
            ("museum", "Science Museum", "ORG"), ("london", "London", "GPE")]])
    store.write("upsert_keypoints", [{"id": "kp1", "text": "Ada Lovelace published notes in 1843.",
                                      "modality": "text", "source_id": "c5"}])
    store.write("upsert_topics", [{"id": "t1", "level": 0, "keywords": ["engine", "babbage"], "size": 3}])
    store.write("chunk_part_of", _edges([(c[0], c[1]) for c in chunks]), key=None)
    store.write("image_part_of", _edges([("i1", "d2"), ("i2", "d1")]), key=None)
    store.write("chunk_next", _edges([("c1", "c2"), ("c2", "c5"), ("c3", "cap1"), ("cap1", "c4")]), key=None)
    store.write("chunk_references_image", _edges([("c3", "i1")], label="Figure 1"), key=None)
    store.write("image_captioned_by", _edges([("i1", "cap1")]), key=None)
    store.write("chunk_similar_chunk", _edges([("c1", "c2"), ("c3", "c4")], score=0.5, cross_document=False), key=None)
    store.write("chunk_mentions", _edges([
        ("c1", "ada"), ("c1", "babbage"), ("c2", "babbage"), ("c2", "engine"), ("c5", "ada"),
        ("c3", "engine"), ("cap1", "diffeng"), ("cap1", "babbage"), ("cap1", "museum"),
        ("c4", "museum"), ("c4", "london")], count=1), key=None)
    store.write("image_mentions", _edges([("i2", "babbage")], count=1), key=None)
    store.write("keypoint_mentions", _edges([("kp1", "ada")], count=1), key=None)
    store.write("chunk_has_keypoint", _edges([("c5", "kp1")]), key=None)
    store.write("chunk_in_topic", _edges([("c1", "t1"), ("c2", "t1"), ("c3", "t1")]), key=None)
    store.write("upsert_corpus_meta", [{"id": "corpus", "documents": 2}])

    _chain(store, "ch_text", "text_chain", [("Chunk", "c1", "babbage"), ("Chunk", "c2", "")],
           ["babbage"], ["engine"], seq=1)
    # the image is tied to the museum only through its caption chunk
    _chain(store, "ch_img", "image_initiated_chain", [("Image", "i1", "museum"), ("Chunk", "c4", "")],
           ["museum"], ["london"], seq=2)
    _chain(store, "ch_tinit", "text_initiated_chain", [("Chunk", "c2", "babbage"), ("Image", "i2", "")],
           ["babbage"], [], seq=3)
    _chain(store, "ch_multi", "multi_image_fork",
           [("Image", "i2", "babbage"), ("Image", "i1", "museum"), ("Chunk", "c4", "")],
           ["babbage", "museum"], ["london"], seq=4)
    # as the generator writes forks: both branches bridge the shared entity into the join
    _chain(store, "ch_fork", "parallel_visual_textual_fork", [("Image", "i2", "babbage"), ("Chunk", "c1", "babbage")],
           ["babbage", "babbage"], ["ada"], seq=5)
    _chain(store, "ch_kp", "text_chain", [("Keypoint", "kp1", "ada"), ("Chunk", "c1", "")],
           ["ada"], ["babbage"], seq=6)
    # rejected for an unnecessary hop: failed_necessity only judges accepted chains
    _chain(store, "ch_rej", "text_chain", [("Chunk", "c5", "ada"), ("Chunk", "c1", "")],
           ["ada"], ["babbage"], status="rejected", seq=7)
    store.run_text("MATCH (h:Hop {id: 'ch_rej:1'}) SET h.necessary = false")
    _chain(store, "ch_dup", "text_chain", [("Chunk", "c1", "babbage"), ("Chunk", "c2", "")],
           ["babbage"], ["engine"], status="duplicate", seq=8)
    store.write("chain_duplicate_of", [{"s": "ch_dup", "d": "ch_text", "score": 0.97, "method": "leiden"}], key=None)
