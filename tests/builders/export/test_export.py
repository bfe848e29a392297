"""`hopgraph export` on a small planted graph in the real embedded FalkorDB."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest

from builders.export import read_parquet_records, run_export
from builders.export.records import DatasetRecord, record_json_schema
from kg.config import Settings
from kg.context import RunContext

TEXT_ID = "z-text"  # seq 1: first in the file although its id sorts last
IMAGE_ID = "b-image"  # seq 2
REJECTED_ID = "c-rejected"
DUPLICATE_ID = "d-duplicate"


def tiny_png(path: Path) -> Path:
    """A real 2x2 RGB PNG."""
    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    path.write_bytes(png)
    return path


def _hop(chain_id, index, question, answer, evidence_id, label, bridge=None, modality="text"):
    row = {"id": f"{chain_id}:{index}", "chain_id": chain_id, "index": index, "sub_question": question,
           "answer": answer, "modality": modality, "evidence_id": evidence_id, "evidence_label": label,
           "necessary": True, "necessity_checked": True, "necessity_method": "have"}
    if bridge:
        row["bridge_id"] = bridge
    return row


def _chain(cid, seq, graph_type, status, hops, **extra):
    row = {"id": cid, "seq": seq, "graph_type": graph_type, "question": f"Question of {cid}?",
           "answer": f"answer of {cid}", "status": status, "generator": "offline",
           "prompt_versions": json.dumps({"verbalize_chain": "3", "verify_chain": "2"}),
           "hops": len(hops), "evidence_ids": [h["evidence_id"] for h in hops],
           "domain": "physics", "persona": "a science student",
           "structure": json.dumps([[i, i + 1] for i in range(len(hops) - 1)]),
           "faithful": True, "standalone": True, "requires_content": True, "navigation": True,
           "no_shortcut": True, "score": 0.9}
    row.update(extra)
    return row


def plant_graph(store, image_path: Path) -> None:
    docs = [{"id": "doc1", "path": "/corpus/curie.pdf", "title": "Curie", "pages": 3},
            {"id": "doc2", "path": "/corpus/radium.md", "title": "Radium", "pages": 3}]
    chunks = [
        {"id": "c1", "doc_id": "doc1", "index": 0, "text": "Marie Curie discovered radium in 1898.",
         "kind": "text", "page_start": 1, "page_end": 1},
        {"id": "c2", "doc_id": "doc1", "index": 1, "text": "Radium glows faintly blue in the dark.",
         "kind": "text", "page_start": 2, "page_end": 3},
        {"id": "c3", "doc_id": "doc2", "index": 0, "text": "The Sorbonne awarded Curie a doctorate.",
         "kind": "text", "page_start": 3, "page_end": 3},
        {"id": "c4", "doc_id": "doc2", "index": 1, "text": "Radium was used in luminous paint.",
         "kind": "text", "page_start": 1, "page_end": 1},
    ]
    images = [{"id": "img1", "doc_id": "doc1", "page": 2, "path": str(image_path),
               "caption": "Figure 1: radium sample", "description": "A glowing vial of radium."}]
    entities = [{"id": "marie curie", "name": "Marie Curie", "label": "PERSON", "aliases": []},
                {"id": "radium", "name": "Radium", "label": "PRODUCT", "aliases": []},
                {"id": "sorbonne", "name": "Sorbonne", "label": "ORG", "aliases": []}]
    store.write("upsert_documents", docs)
    store.write("upsert_chunks", chunks)
    store.write("upsert_images", images)
    store.write("upsert_entities", entities)
    store.write("upsert_keypoints", [{"id": "kp1", "text": "The Sorbonne awarded Marie Curie a doctorate.",
                                      "modality": "text", "source_id": "c3"},
                                     {"id": "kp2", "text": "Marie Curie discovered radium.", "modality": "text",
                                      "source_id": "c1"},
                                     {"id": "kp3", "text": "Radium was discovered in 1898.", "modality": "text",
                                      "source_id": "c1"}])
    store.write("upsert_topics", [{"id": "t1", "level": 0, "keywords": ["radium"], "size": 2}])
    store.write("chunk_part_of", [{"s": c["id"], "d": c["doc_id"]} for c in chunks], key=None)
    store.write("image_part_of", [{"s": "img1", "d": "doc1"}], key=None)
    store.write("chunk_has_keypoint", [{"s": "c3", "d": "kp1"}, {"s": "c1", "d": "kp2"}, {"s": "c1", "d": "kp3"}],
                key=None)
    store.write("chunk_in_topic", [{"s": "c1", "d": "t1"}, {"s": "c2", "d": "t1"}], key=None)

    hops = {
        TEXT_ID: [_hop(TEXT_ID, 0, "Who discovered radium?", "Marie Curie", "c1", "Chunk", "marie curie"),
                  _hop(TEXT_ID, 1, "How does radium look in the dark?", "blue glow", "c2", "Chunk", "radium"),
                  _hop(TEXT_ID, 2, "Which university awarded Marie Curie a doctorate?", "the Sorbonne",
                       "kp1", "Keypoint")],
        IMAGE_ID: [_hop(IMAGE_ID, 0, "What substance is shown glowing?", "radium", "img1", "Image", "radium",
                        modality="image"),
                   _hop(IMAGE_ID, 1, "What was radium used for?", "luminous paint", "c4", "Chunk")],
        REJECTED_ID: [_hop(REJECTED_ID, 0, "Who?", "Curie", "c1", "Chunk"),
                      _hop(REJECTED_ID, 1, "What?", "paint", "c4", "Chunk")],
        DUPLICATE_ID: [_hop(DUPLICATE_ID, 0, "Who found radium?", "Marie Curie", "c1", "Chunk", "marie curie"),
                       _hop(DUPLICATE_ID, 1, "What colour is radium's glow?", "blue", "c2", "Chunk")],
    }
    chains = [
        _chain(TEXT_ID, 1, "text_chain", "accepted", hops[TEXT_ID], bridge_entities=["marie curie", "radium"],
               bridge_names=["Marie Curie", "Radium"], doc_ids=["doc1", "doc2"]),
        _chain(IMAGE_ID, 2, "image_initiated_chain", "accepted", hops[IMAGE_ID], topic_ids=["t9"],
               bridge_entities=["radium"], bridge_names=["Radium"]),
        _chain(REJECTED_ID, 3, "text_chain", "rejected", hops[REJECTED_ID], reject_reason="shortcut",
               no_shortcut=False),
        _chain(DUPLICATE_ID, 4, "text_chain", "duplicate", hops[DUPLICATE_ID]),
    ]
    all_hops = [h for hs in hops.values() for h in hs]
    store.write("upsert_chains", chains)
    store.write("upsert_hops", all_hops)
    store.write("chain_has_hop", [{"s": h["chain_id"], "d": h["id"], "index": h["index"]} for h in all_hops],
                key=None)
    for label, query in (("Chunk", "hop_uses_chunk"), ("Image", "hop_uses_image"), ("Keypoint", "hop_uses_keypoint")):
        store.write(query, [{"s": h["id"], "d": h["evidence_id"]} for h in all_hops if h["evidence_label"] == label],
                    key=None)
    store.write("hop_bridges", [{"s": h["id"], "d": h["bridge_id"]} for h in all_hops if h.get("bridge_id")],
                key=None)
    store.write("chain_duplicate_of", [{"s": DUPLICATE_ID, "d": TEXT_ID, "score": 0.95, "method": "leiden"}],
                key=None)


@pytest.fixture
def planted(falkor_store, tmp_path):
    image = tiny_png(tmp_path / "fig.png")
    plant_graph(falkor_store, image)
    return falkor_store, image


def _settings(tmp_path, formats=("jsonl",), **export) -> Settings:
    s = Settings()
    s.store.data_dir = tmp_path / ".hopgraph"
    s.export.formats = list(formats)  # type: ignore[assignment]
    for k, v in export.items():
        setattr(s.export, k, v)
    return s


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _validate(records: list[dict]) -> None:
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    schema = record_json_schema()
    for r in records:
        if jsonschema is not None:
            jsonschema.validate(r, schema)
        # extra="forbid": an unknown key or a wrong type fails here
        assert DatasetRecord.model_validate(r).model_dump(mode="json") == r


def test_export_all_formats(planted, tmp_path):
    store, image = planted
    out = tmp_path / "out"
    report = run_export(RunContext(_settings(tmp_path, ("jsonl", "parquet", "hf")), store), out)

    assert report.records == 2
    assert report.path == str(out / "dataset.jsonl")
    assert report.skipped == {"rejected": 1, "duplicate": 1, "other": 0}
    assert report.warnings == []
    records = _lines(out / "dataset.jsonl")
    assert [r["id"] for r in records] == [TEXT_ID, IMAGE_ID]  # generation order (seq), not id order

    text, img = records
    assert text["graph_type"] == "text_chain" and text["hops"] == 3 and len(text["subqa_chain"]) == 3
    assert img["graph_type"] == "image_initiated_chain" and img["hops"] == 2
    assert text["duplicates_merged"] == [DUPLICATE_ID]
    assert img["duplicates_merged"] == []
    assert text["structure"] == [[0, 1], [1, 2]] and img["structure"] == [[0, 1]]
    assert text["bridge_entities"] == ["Marie Curie", "Radium"]
    assert text["bridge_entity_ids"] == ["marie curie", "radium"]
    assert text["verification"]["hop_necessity"] == [True, True, True]
    assert text["verification"]["faithful"] is True and text["verification"]["score"] == 0.9
    assert text["generator"] == {"llm": "offline", "prompt_versions": {"verbalize_chain": "3", "verify_chain": "2"}}
    assert text["topics"] == ["t1"]  # from the evidence chunks' topics
    assert img["topics"] == ["t9"]  # the chain's own topic_ids win
    assert text["doc_ids"] == ["doc1", "doc2"] and img["doc_ids"] == ["doc1", "doc2"]
    assert text["status"] == img["status"] == "accepted"

    # every hop's evidence resolves to a document, a page and its content
    for r in records:
        for hop in r["subqa_chain"]:
            ev = hop["evidence"]
            assert ev["doc_id"] and ev["path"].startswith("/corpus/") and isinstance(ev["page"], int), hop
            assert ev["text"] or ev["image_path"], hop
            assert hop["supporting_fact_id"]
    h0, h1, h2 = text["subqa_chain"]
    assert h0["subquestion"] == "Who discovered radium?" and h0["bridge_entity"] == "Marie Curie"
    expected = {"kind": "chunk", "chunk_id": "c1", "doc_id": "doc1", "title": "Curie",
                "path": "/corpus/curie.pdf", "page": 1, "text": "Marie Curie discovered radium in 1898."}
    assert {k: h0["evidence"][k] for k in expected} == expected
    assert h1["evidence"]["page"] == 2 and h1["evidence"]["page_end"] == 3
    # a keypoint hop: the fact as text, document and page from its source chunk
    assert h2["supporting_fact_id"] == "kp1"
    assert h2["evidence"]["kind"] == "keypoint" and h2["evidence"]["keypoint_id"] == "kp1"
    assert h2["evidence"]["chunk_id"] == "c3" and h2["evidence"]["doc_id"] == "doc2"
    assert h2["evidence"]["page"] == 3 and "Sorbonne" in h2["evidence"]["text"]
    # CHARGE keypoints: a keypoint hop carries its keypoint; a chunk hop the keypoints stating its answer
    assert h2["keypoints"] == [{"id": "kp1", "text": "The Sorbonne awarded Marie Curie a doctorate."}]
    assert h0["keypoints"] == [{"id": "kp2", "text": "Marie Curie discovered radium."}]
    assert h1["keypoints"] == []  # c2 has no keypoints

    ih0 = img["subqa_chain"][0]
    assert ih0["modality"] == "image" and ih0["evidence"]["image_id"] == "img1"
    assert ih0["evidence"]["image_path"] == "images/img1.png"
    assert ih0["evidence"]["caption"] == "Figure 1: radium sample"
    assert ih0["evidence"]["page"] == 2 and ih0["evidence"]["text"] is None
    copied = out / ih0["evidence"]["image_path"]
    assert copied.is_file() and copied.read_bytes() == image.read_bytes()

    # schema published beside the data, and every record conforms
    schema = json.loads((out / "record.schema.json").read_text())
    assert schema == record_json_schema()
    assert "subqa_chain" in schema["properties"]
    _validate(records)

    # parquet: same records back, through pyarrow and pandas
    rows = read_parquet_records(out / "dataset.parquet")
    assert rows == records
    import pandas as pd

    df = pd.read_parquet(out / "dataset.parquet")
    assert list(df["id"]) == [TEXT_ID, IMAGE_ID] and list(df["question"]) == [r["question"] for r in records]
    assert json.loads(df["subqa_chain"][0])[2]["evidence"]["keypoint_id"] == "kp1"

    # HF datasets: saved to disk, loads back with nested fields
    import datasets

    ds = datasets.load_from_disk(str(out / "hf"))
    assert ds["id"] == [TEXT_ID, IMAGE_ID]
    assert ds[0]["subqa_chain"][0]["subquestion"] == "Who discovered radium?"
    assert ds[1]["subqa_chain"][0]["evidence"]["image_path"] == "images/img1.png"
    # and the JSONL loads the way the card says
    js = datasets.load_dataset("json", data_files=str(out / "dataset.jsonl"), split="train",
                               cache_dir=str(tmp_path / "hf_cache"))
    assert js["id"] == [TEXT_ID, IMAGE_ID]

    # card, plots, stats
    card = (out / "README.md").read_text()
    assert "plots/hops_by_graph_type.png" in card and "plots/modality_share.png" in card
    assert 'load_dataset("json", data_files="dataset.jsonl"' in card
    assert "| `text_chain` | 1 |" in card and "| `image_initiated_chain` | 1 |" in card
    for png in ("plots/hops_by_graph_type.png", "plots/modality_share.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    stats = json.loads((out / "stats.json").read_text())["export"]
    assert stats["by_graph_type"] == {"image_initiated_chain": 1, "text_chain": 1}
    assert stats["hops_histogram"] == {"2": 1, "3": 1}
    assert stats["modality_counts"] == {"image": 1, "text": 4} and stats["modality_share"]["image"] == 0.2
    for f in report.files:
        assert Path(f).exists(), f
    assert not [p for p in out.rglob("*") if p.name.startswith(".")], "temporary files left behind"


def test_export_is_byte_identical_when_repeated(planted, tmp_path):
    store, _ = planted
    out = tmp_path / "out"
    settings = _settings(tmp_path, ("jsonl", "parquet", "hf"))
    run_export(RunContext(settings, store), out)
    names = ("dataset.jsonl", "record.schema.json", "stats.json", "README.md", "dataset.parquet",
             "plots/hops_by_graph_type.png", "plots/modality_share.png", "images/img1.png")
    first = {n: (out / n).read_bytes() for n in names}
    report = run_export(RunContext(settings, store), out)
    assert {n: (out / n).read_bytes() for n in names} == first
    assert report.records == 2 and (out / "hf").is_dir()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_include_duplicates_and_rejected(planted, tmp_path):
    store, _ = planted
    report = run_export(RunContext(_settings(tmp_path, include_duplicates=True), store), tmp_path / "dup")
    records = _lines(tmp_path / "dup" / "dataset.jsonl")
    assert [r["id"] for r in records] == [TEXT_ID, IMAGE_ID, DUPLICATE_ID]
    dup = records[-1]
    assert dup["status"] == "duplicate" and dup["duplicate_of"] == TEXT_ID
    assert report.skipped == {"rejected": 1, "duplicate": 0, "other": 0}
    _validate(records)

    report = run_export(RunContext(_settings(tmp_path, include_rejected=True), store), tmp_path / "rej")
    records = _lines(tmp_path / "rej" / "dataset.jsonl")
    assert [r["id"] for r in records] == [TEXT_ID, IMAGE_ID, REJECTED_ID]
    assert records[-1]["reject_reason"] == "shortcut" and records[-1]["verification"]["no_shortcut"] is False
    assert report.skipped == {"rejected": 0, "duplicate": 1, "other": 0}
    _validate(records)


def test_missing_image_keeps_its_path_and_warns(planted, tmp_path):
    store, _ = planted
    store.write("upsert_images", [{"id": "img1", "path": "/nowhere/fig.png"}])
    report = run_export(RunContext(_settings(tmp_path), store), tmp_path / "out")
    img = _lines(tmp_path / "out" / "dataset.jsonl")[1]
    assert img["subqa_chain"][0]["evidence"]["image_path"] == "/nowhere/fig.png"
    assert any("/nowhere/fig.png" in w for w in report.warnings)
    assert not (tmp_path / "out" / "images").exists()


def test_empty_graph_exports_an_empty_dataset(falkor_store, tmp_path):
    report = run_export(RunContext(_settings(tmp_path, ("jsonl", "parquet", "hf")), falkor_store), tmp_path / "out")
    assert report.records == 0
    assert (tmp_path / "out" / "dataset.jsonl").read_bytes() == b""
    assert read_parquet_records(tmp_path / "out" / "dataset.parquet") == []
    assert (tmp_path / "out" / "README.md").is_file()
    assert (tmp_path / "out" / "plots" / "modality_share.png").is_file()
