"""Dataset statistics on a small planted dataset: every figure is exact."""

from __future__ import annotations

import json
import math

import pytest

from builders.stats import dataset_stats, llm_usage

MODALITIES = {  # chain -> modality of each hop (evidence in the same order)
    "A": ["text", "text"], "B": ["image", "text", "text"], "C": ["text", "text"],
    "G": ["text", "text"], "D": ["text", "text"],
}


# Quality figures (issue 12 item 7): c2 is a bibliography chunk; B's last hop
# answers something its evidence does not say; A asks "who" of an
# organisation and C "where" of an answer of unknown type.
TEXTS = {"c1": "Boeing builds the 737 MAX.", "c2": "[1] FAA report 2019.",
         "c3": "The FAA certifies Boeing airplanes.", "c4": "The FAA is in Washington."}
ROLES = {"c2": "references"}
QUESTIONS = {"A": ("Who builds the 737 MAX?", "Boeing", ["boeing"]),
             "C": ("Where is the FAA?", "Washington", [])}
HOP_ANSWERS = {"A:0": "Boeing", "A:1": "FAA", "B:1": "FAA", "B:2": "Airbus", "C:0": "report", "C:1": "Washington"}


def plant(store) -> None:
    store.write("upsert_documents", [{"id": "d1"}, {"id": "d2"}])
    chunks = {"c1": "d1", "c2": "d1", "c3": "d2", "c4": "d2"}
    store.write("upsert_chunks", [{"id": c, "doc_id": d, "text": TEXTS[c], "role": ROLES.get(c, "body")}
                                  for c, d in chunks.items()])
    store.write("chunk_part_of", [{"s": c, "d": d} for c, d in chunks.items()], key=None)
    store.write("upsert_images", [{"id": "i1", "doc_id": "d2"}])
    store.write("image_captioned_by", [{"s": "i1", "d": "c3"}], key=None)
    store.write("upsert_entities", [{"id": "faa", "name": "FAA", "label": "ORG", "aliases": []},
                                    {"id": "boeing", "name": "Boeing", "label": "ORG", "aliases": []}])
    store.write("upsert_topics", [{"id": "t1", "size": 2}, {"id": "t2", "size": 2}])
    store.write("chunk_in_topic", [{"s": c, "d": "t1" if c in ("c1", "c2") else "t2"} for c in chunks], key=None)

    store.write("chunk_mentions", [{"s": "c1", "d": "boeing", "count": 1}, {"s": "c3", "d": "boeing", "count": 1},
                                   {"s": "c3", "d": "faa", "count": 1}, {"s": "c4", "d": "faa", "count": 1}], key=None)

    def ch(cid, seq, gtype, status, hops, evidence, docs, reason=None):
        question, answer, entities = QUESTIONS.get(cid, (f"q {cid}?", f"a {cid}", []))
        return dict(id=cid, seq=seq, graph_type=gtype, status=status, hops=hops, evidence_ids=evidence,
                    doc_ids=docs, reject_reason=reason, question=question, answer=answer, score=0.5,
                    answer_entities=entities)

    chains = [
        ch("A", 0, "text_chain", "accepted", 2, ["c1", "c2"], ["d1"]),
        ch("B", 1, "image_initiated_chain", "accepted", 3, ["i1", "c3", "c1"], ["d1", "d2"]),
        ch("C", 2, "text_chain", "accepted", 2, ["c2", "c4"], ["d1", "d2"]),
        ch("D", 3, "text_chain", "rejected", 2, ["c1", "c3"], ["d1", "d2"], "shortcut"),
        ch("E", 4, "multi_image_fork", "rejected", 2, [], [], "shortcut"),
        ch("F", 5, "text_chain", "rejected", 2, [], [], "unfaithful"),
        ch("H", 6, "text_chain", "rejected", 2, [], [], None),
        ch("G", 7, "text_chain", "duplicate", 2, ["c1", "c2"], ["d1"]),
    ]
    store.write("upsert_chains", chains)
    hops, has_hop, uses_chunk, uses_image = [], [], [], []
    for c in chains:
        for i, (ev, mod) in enumerate(zip(c["evidence_ids"], MODALITIES.get(c["id"], []))):
            hid = f"{c['id']}:{i}"
            hops.append(dict(id=hid, chain_id=c["id"], index=i, modality=mod, evidence_id=ev,
                             answer=HOP_ANSWERS.get(hid, "")))
            has_hop.append({"s": c["id"], "d": hid, "index": i})
            (uses_image if ev.startswith("i") else uses_chunk).append({"s": hid, "d": ev})
    store.write("upsert_hops", hops)
    store.write("chain_has_hop", has_hop, key=None)
    store.write("hop_uses_chunk", uses_chunk, key=None)
    store.write("hop_uses_image", uses_image, key=None)
    store.write("hop_bridges", [{"s": "A:0", "d": "boeing"}, {"s": "B:1", "d": "faa"}], key=None)
    store.write("chain_duplicate_of", [{"s": "G", "d": "A", "score": 0.93, "method": "leiden"}], key=None)


def write_manifests(runs) -> None:
    runs.mkdir(parents=True)
    old = {"command": "generate", "llm": {"stages": {"generate/generator": {"calls": 4, "tokens_in": 40, "tokens_out": 8}}}}
    dry = {"command": "generate", "llm": {"dry_run": True,
                                          "stages": {"generate/generator": {"calls": 999, "tokens_in": 9, "tokens_out": 9}}}}
    new = {"command": "generate", "llm": {"dry_run": False,
                                          "stages": {"generate/generator": {"calls": 10, "tokens_in": 1000, "tokens_out": 200},
                                                     "verify/verifier": {"calls": 8, "tokens_in": 800, "tokens_out": 40}},
                                          "total": {"calls": 18, "tokens_in": 1800, "tokens_out": 240}}}
    ingest = {"command": "ingest", "llm": {"keypoints": {"calls": 3, "tokens_in": 300, "tokens_out": 90}}}
    for name, data in [("20250101T100000Z-ingest.json", ingest), ("20250101T110000Z-generate.json", old),
                       ("20250101T120000Z-generate.json", new), ("20250101T130000Z-generate.json", dry)]:
        (runs / name).write_text(json.dumps(data))
    (runs / "20250101T140000Z-dedup.json").write_text(json.dumps({"command": "dedup"}))  # no LLM section
    (runs / "broken.json").write_text("{not json")


def test_stats_on_a_planted_dataset(falkor_store, tmp_path):
    plant(falkor_store)
    runs = tmp_path / "runs"
    write_manifests(runs)
    stats = dataset_stats(falkor_store, runs_dir=runs)

    # dataset topics: A c1 c2 -> t1 t1; B i1 (caption c3) c3 c1 -> t2 t2 t1; C c2 c4 -> t1 t2
    p, q = (1 / 2, 1 / 2), (4 / 7, 3 / 7)
    m = tuple((a + b) / 2 for a, b in zip(p, q))
    js = 0.5 * sum(p[i] * math.log2(p[i] / m[i]) + q[i] * math.log2(q[i] / m[i]) for i in range(2))
    # every manifest but the dry run: ingest (3 calls), two generate runs (4, then 10 + 8)
    calls, tokens = 3 + 4 + 10 + 8, 300 + 90 + 40 + 8 + 1000 + 200 + 800 + 40
    assert stats == {
        "corpus": {"documents": 2, "chunks": 4, "images": 1, "entities": 2, "keypoints": 0, "topics": 2},
        "chains": 8,
        "accepted": 3,
        "by_status": {"rejected": 4, "accepted": 3, "duplicate": 1},
        "by_type": {"text_chain": 6, "image_initiated_chain": 1, "multi_image_fork": 1},
        "accepted_by_type": {"text_chain": 2, "image_initiated_chain": 1},
        "hops_histogram": {"2": 2, "3": 1},
        "reject_reasons": {"shortcut": 2, "unfaithful": 1, "unspecified": 1},
        "duplicates": 1,
        "duplicate_edges": 1,
        "hops": 7,
        "modality_share": {"image": pytest.approx(1 / 7, abs=1e-6), "text": pytest.approx(6 / 7, abs=1e-6)},
        "js_divergence": pytest.approx(js, abs=1e-6),
        "doc_share": 1.0,
        "documents_covered": 2,
        "corpus_topics": {"t1": 2, "t2": 2},
        "dataset_topics": {"t1": 4, "t2": 3},
        "unmapped_evidence": 0,
        "quality": {
            "non_content_evidence_share": pytest.approx(2 / 6, abs=1e-4),  # A:1 and C:0 use the bibliography
            "answer_in_evidence_share": pytest.approx(5 / 6, abs=1e-4),  # B:2's "Airbus" is not in c1
            "question_word_agreement": pytest.approx(1 / 3, abs=1e-4),  # only B's "what" fits
            "median_bridge_df": 1.5,  # boeing in d1 and d2, faa in d2 only
            "average_hops": pytest.approx(7 / 3, abs=1e-4),
            "share_3plus_hops": pytest.approx(1 / 3, abs=1e-4),
            "table_hops": 0,  # no planted hop is answered by a table cell
            "figure_hops": 0,  # nor by a value a figure prints
        },
        "llm": {
            "runs": 3,
            "calls": calls,
            "tokens_in": 300 + 40 + 1000 + 800,
            "tokens_out": 90 + 8 + 200 + 40,
            "by_stage": {"generate/generator": {"calls": 14, "tokens_in": 1040, "tokens_out": 208},
                         "keypoints": {"calls": 3, "tokens_in": 300, "tokens_out": 90},
                         "verify/verifier": {"calls": 8, "tokens_in": 800, "tokens_out": 40}},
            "calls_per_accepted_chain": pytest.approx(calls / 3, abs=1e-4),
            "tokens_per_accepted_chain": pytest.approx(tokens / 3, abs=1e-4),
        },
    }
    json.dumps(stats)  # plain JSON for `hopgraph stats --json`


def test_no_chains_gives_an_empty_dict(falkor_store, tmp_path):
    assert dataset_stats(falkor_store, runs_dir=tmp_path / "none") == {}


def test_no_manifests_gives_zero_llm_cost(falkor_store, tmp_path):
    plant(falkor_store)
    stats = dataset_stats(falkor_store, runs_dir=tmp_path / "missing")
    assert stats["llm"] == {"runs": 0, "calls": 0, "tokens_in": 0, "tokens_out": 0, "by_stage": {},
                            "calls_per_accepted_chain": 0.0, "tokens_per_accepted_chain": 0.0}


def test_llm_usage_without_accepted_chains(tmp_path):
    runs = tmp_path / "runs"
    write_manifests(runs)
    usage = llm_usage(runs, accepted=0)
    assert usage["calls"] == 25 and usage["calls_per_accepted_chain"] == 0.0


def test_reads_manifests_written_by_run_manifest(falkor_store, tmp_path):
    from kg.llm.accounting import Accounting
    from kg.runs import RunManifest

    plant(falkor_store)
    acc = Accounting()
    acc.record_call("generate", "generator", 100, 20)
    acc.record_call("verify", "verifier", 50, 5)
    RunManifest(tmp_path, "generate").add_llm(acc.to_dict()).write()
    llm = dataset_stats(falkor_store, runs_dir=tmp_path / "runs")["llm"]
    assert (llm["runs"], llm["calls"], llm["tokens_in"], llm["tokens_out"]) == (1, 2, 150, 25)
    assert llm["tokens_per_accepted_chain"] == pytest.approx(175 / 3, abs=1e-4)
