"""Collecting records from the graph: damaged or odd graph data becomes a warning, not a crash or a
silently wrong record (real embedded FalkorDB)."""

from __future__ import annotations

import json

import pymupdf
import pytest

from builders.export.collect import build_records
from testing_support import make_settings


def hop(chain_id, index, evidence_id, label="Chunk", **extra):
    return {"id": f"{chain_id}:{index}", "chain_id": chain_id, "index": index, "sub_question": f"q{index}?",
            "answer": f"a{index}", "modality": "image" if label == "Image" else "text", "evidence_id": evidence_id,
            "evidence_label": label, "necessary": True, "necessity_checked": True, **extra}


def chain(cid, status="accepted", **extra):
    return {"id": cid, "graph_type": "text_chain", "question": f"Question {cid}?", "answer": "x", "status": status,
            "generator": "offline", "faithful": True, "standalone": True, "requires_content": True,
            "navigation": True, "no_shortcut": True, "score": 0.5, **extra}


def plant(store, chains: list[dict], hops: list[dict]) -> None:
    store.write("upsert_documents", [{"id": "d1", "path": "docs/a.md", "title": "A", "pages": 2, "sha256": "d1"}])
    store.write("upsert_chunks", [{"id": c, "doc_id": "d1", "index": i, "text": f"text {c}", "kind": "text",
                                   "page_start": i + 1, "page_end": i + 1} for i, c in enumerate(("c1", "c2", "lone"))])
    store.write("chunk_part_of", [{"s": "c1", "d": "d1"}, {"s": "c2", "d": "d1"}], key=None)  # "lone": no document
    store.write("upsert_chains", chains)
    store.write("upsert_hops", hops)
    store.write("chain_has_hop", [{"s": h["chain_id"], "d": h["id"], "index": h["index"]} for h in hops], key=None)
    store.write("hop_uses_chunk", [{"s": h["id"], "d": h["evidence_id"]} for h in hops
                                   if h["evidence_label"] == "Chunk"], key=None)
    store.write("hop_uses_image", [{"s": h["id"], "d": h["evidence_id"]} for h in hops
                                   if h["evidence_label"] == "Image"], key=None)


def collect(store, tmp_path, **export):
    settings = make_settings(tmp_path / ".hopgraph", export=export)
    warnings: list[str] = []
    records, skipped = build_records(store, settings, tmp_path / "out", warnings)
    return {r["id"]: r for r in records}, [r["id"] for r in records], skipped, warnings


def test_records_come_in_generation_order_and_only_accepted_by_default(falkor_store, tmp_path):
    plant(falkor_store, [chain("z", seq=1), chain("a", seq=2), chain("noseq"), chain("r", "rejected", seq=0),
                         chain("s", "stale", seq=3), chain("w", "weird", seq=4)],
          [hop(c, 0, "c1") for c in ("z", "a", "noseq", "r", "s", "w")])
    _, order, skipped, warnings = collect(falkor_store, tmp_path)
    assert order == ["z", "a", "noseq"]  # by seq, a chain without one last
    assert skipped == {"rejected": 1, "duplicate": 0, "other": 1, "stale": 1}
    assert warnings == ["chain w: unknown status 'weird', not exported"]
    _, order, _, _ = collect(falkor_store, tmp_path, include_rejected=True)
    assert order == ["r", "z", "a", "noseq"]


def test_damaged_json_properties_are_left_out_with_a_warning(falkor_store, tmp_path):
    plant(falkor_store, [chain("bad", seq=1, structure="[[0, 1", prompt_versions="not json"),
                         chain("odd", seq=2, structure=json.dumps([[0, 5]]), prompt_versions=json.dumps(["v1"]))],
          [hop("bad", 0, "c1", table_cell="{broken"), hop("bad", 1, "c2"),
           hop("odd", 0, "c1", table_cell=json.dumps({"row_label": "r", "value": "1"})), hop("odd", 1, "c2")])
    records, _, _, warnings = collect(falkor_store, tmp_path)
    assert records["bad"]["structure"] == [[0, 1]]  # rebuilt from the hop order
    assert records["bad"]["generator"]["prompt_versions"] == {}
    assert records["bad"]["subqa_chain"][0]["table_cell"] is None
    assert records["odd"]["subqa_chain"][0]["table_cell"] is None
    assert records["odd"]["structure"] == [[0, 5]]
    for text in ("chain bad: structure is not valid JSON", "chain bad: prompt_versions is not valid JSON",
                 "hop bad:0: table_cell is not valid JSON", "chain odd: structure names hops [5]",
                 "chain odd: prompt_versions is not an object", "hop odd:0: table_cell is not a row_label"):
        assert any(w.startswith(text) for w in warnings), (text, warnings)


def test_evidence_gone_from_the_graph_is_named_and_the_record_kept(falkor_store, tmp_path):
    plant(falkor_store, [chain("gone", seq=1), chain("lonely", seq=2), chain("empty", seq=3)],
          [hop("gone", 0, "c1"), hop("gone", 1, "deleted-chunk"), hop("lonely", 0, "lone")])
    records, _, _, warnings = collect(falkor_store, tmp_path)
    missing = records["gone"]["subqa_chain"][1]["evidence"]
    assert missing["chunk_id"] == "deleted-chunk" and missing["text"] is None
    assert records["gone"]["subqa_chain"][0]["evidence"]["page"] == 1
    assert "hop gone:1: evidence 'deleted-chunk' not found in the graph" in warnings
    assert "hop lonely:0: evidence lone is not PART_OF a document" in warnings
    assert records["empty"]["subqa_chain"] == [] and "chain empty: no hops in the graph" in warnings


def test_an_image_is_copied_into_the_dataset_once(falkor_store, tmp_path):
    data_dir = tmp_path / ".hopgraph"
    (data_dir / "assets").mkdir(parents=True)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 3, 3), False)
    pix.save(str(data_dir / "assets" / "fig.PNG"))
    falkor_store.write("upsert_documents", [{"id": "d1", "path": "docs/a.md", "title": "A", "pages": 2}])
    falkor_store.write("upsert_images", [{"id": "img1", "doc_id": "d1", "page": 2, "caption": "Figure 1",
                                          "path": ".hopgraph/assets/fig.PNG"}])  # relative to the data dir's parent
    falkor_store.write("image_part_of", [{"s": "img1", "d": "d1"}], key=None)
    plant(falkor_store, [chain("i1", seq=1), chain("i2", seq=2)],
          [hop("i1", 0, "img1", "Image"), hop("i2", 0, "img1", "Image")])
    records, _, _, warnings = collect(falkor_store, tmp_path)
    paths = [records[c]["subqa_chain"][0]["evidence"]["image_path"] for c in ("i1", "i2")]
    assert paths == ["images/img1.png", "images/img1.png"] and warnings == []
    assert (tmp_path / "out" / "images" / "img1.png").read_bytes() == (data_dir / "assets" / "fig.PNG").read_bytes()
    assert records["i1"]["subqa_chain"][0]["evidence"]["page"] == 2


@pytest.mark.parametrize("include", [False, True])
def test_a_duplicate_points_at_the_chain_kept(falkor_store, tmp_path, include):
    plant(falkor_store, [chain("kept", seq=1), chain("dup", "duplicate", seq=2)],
          [hop("kept", 0, "c1"), hop("dup", 0, "c2")])
    falkor_store.write("chain_duplicate_of", [{"s": "dup", "d": "kept", "score": 0.9, "method": "test"}], key=None)
    records, order, skipped, _ = collect(falkor_store, tmp_path, include_duplicates=include)
    assert records["kept"]["duplicates_merged"] == ["dup"]
    if include:
        assert order == ["kept", "dup"] and records["dup"]["duplicate_of"] == "kept"
    else:
        assert order == ["kept"] and skipped["duplicate"] == 1


def test_a_strict_forks_comparison_is_exported_under_verification(falkor_store, tmp_path):
    """The comparison a strict fork asks, computed from its printed values, leaves in the record."""
    from builders.export.records import DatasetRecord

    fork = {"operation": "difference", "answer": "4.6",
            "parts": [{"hop": 0, "subject": "A", "value": "71.4"}, {"hop": 1, "subject": "A", "value": "66.8"}]}
    plant(falkor_store, [chain("f", seq=1, graph_type="parallel_visual_textual_fork", fork=json.dumps(fork)),
                         chain("t", seq=2)],
          [hop("f", 0, "c1"), hop("f", 1, "c2"), hop("t", 0, "c1")])
    records, _, _, warnings = collect(falkor_store, tmp_path)
    assert warnings == []
    assert json.loads(records["f"]["verification"]["fork"]) == fork and records["t"]["verification"]["fork"] is None
    assert DatasetRecord.model_validate(records["f"]).verification.fork
