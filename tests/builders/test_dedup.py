"""Leiden dedup: planted paraphrases on the real store with the real embedding model."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

from builders.dedup import DedupResult, find_duplicates, jaccard, run_dedup
from kg.config import Settings
from kg.context import RunContext


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    from kg.enrich.embeddings import Embedder

    emb = Embedder(cache_path=tmp_path_factory.mktemp("emb") / "embeddings.sqlite", progress=False)
    yield emb
    emb.close()


def settings(tmp_path, **dedup) -> Settings:
    s = Settings()
    s.store.data_dir = tmp_path / ".hopgraph"
    for key, value in dedup.items():
        setattr(s.dedup, key, value)
    return s


def plant_corpus(store) -> None:
    store.write("upsert_documents", [{"id": "d1", "path": "faa.pdf"}, {"id": "d2", "path": "cfm.pdf"}])
    store.write("upsert_chunks", [{"id": f"c{i}", "doc_id": "d1" if i <= 3 else "d2", "text": f"chunk {i}"}
                                  for i in range(1, 7)])
    store.write("chunk_part_of", [{"s": f"c{i}", "d": "d1" if i <= 3 else "d2"} for i in range(1, 7)], key=None)


def chain(cid, seq, question, answer, evidence, docs, score, hops=2, status="accepted", **extra):
    row = dict(id=cid, seq=seq, graph_type="text_chain", question=question, answer=answer, status=status,
               reject_reason=None if status != "rejected" else "no_shortcut", generator="offline",
               hops=hops, evidence_ids=evidence, doc_ids=docs, topic_ids=[], bridge_entities=[],
               score=score, faithful=True, standalone=True, requires_content=True, navigation=True,
               no_shortcut=True, domain="aviation", persona="engineer", structure="{}")
    row.update(extra)
    return row


def write_chains(store, rows) -> None:
    """Chains, their hops (one per evidence item) and the HAS_HOP / USES edges."""
    store.write("upsert_chains", rows)
    hops, has_hop, uses = [], [], []
    for r in rows:
        for i, ev in enumerate(r["evidence_ids"]):
            hid = f"{r['id']}:{i}"
            hops.append(dict(id=hid, chain_id=r["id"], index=i, sub_question=f"step {i}", answer="x",
                             modality="text", evidence_id=ev, evidence_label="Chunk", necessary=True))
            has_hop.append({"s": r["id"], "d": hid, "index": i})
            uses.append({"s": hid, "d": ev})
    store.write("upsert_hops", hops)
    store.write("chain_has_hop", has_hop, key=None)
    store.write("hop_uses_chunk", uses, key=None)


PLANTED = [
    # A and B: the same question reworded, same answer and evidence. B is better verified.
    chain("A", 0, "Which agency issued the directive for the 737 MAX?", "The FAA", ["c1", "c2"], ["d1"], 0.80),
    chain("B", 1, "What agency issued the 737 MAX directive?", "The FAA", ["c1", "c2"], ["d1"], 0.95),
    # C and D share document d1 (and one chunk) with A/B but ask different things.
    chain("C", 2, "When was the 737 MAX grounded worldwide?", "March 2019", ["c1", "c3"], ["d1"], 0.90),
    chain("D", 3, "Which engine powers the 737 MAX?", "The CFM LEAP-1B", ["c2", "c4"], ["d1", "d2"], 0.85),
    chain("E", 4, "How much thrust does the LEAP-1B engine produce?", "About 130 kN", ["c5", "c6"], ["d2"], 0.70),
    # A rejected paraphrase: dedup never touches rejected chains.
    chain("R", 5, "Which agency issued the 737 MAX's directive?", "The FAA", ["c1", "c2"], ["d1"], 0.99,
          status="rejected"),
]


def statuses(store) -> dict[str, str]:
    return {r["id"]: r["status"] for r in store.run("chain_ids")}


def duplicate_edges(store) -> list[tuple]:
    rows = store.run_text("MATCH (a:Chain)-[e:DUPLICATE_OF]->(b:Chain) "
                          "RETURN a.id AS a, b.id AS b, e.score AS score, e.method AS method ORDER BY a")
    return [(r["a"], r["b"], round(r["score"], 4), r["method"]) for r in rows]


def test_paraphrases_are_duplicates_and_distinct_chains_sharing_a_document_are_not(falkor_store, embedder, tmp_path):
    plant_corpus(falkor_store)
    write_chains(falkor_store, PLANTED)

    report = run_dedup(RunContext.open(settings(tmp_path), falkor_store), embedder=embedder)

    assert report == DedupResult(chains=5, groups=report.groups, duplicates=1, merged=1, llm_merged=0)
    assert report.groups >= 1
    assert statuses(falkor_store) == {"A": "duplicate", "B": "accepted", "C": "accepted", "D": "accepted",
                                      "E": "accepted", "R": "rejected"}
    # The better-verified B is kept; same answer and evidence: score ~ 0.6 * 1 + 0.4 * 1.
    assert duplicate_edges(falkor_store) == [("A", "B", pytest.approx(1.0, abs=1e-3), "leiden")]
    assert falkor_store.run("duplicates_of") == [{"duplicate": "A", "kept": "B", "score": pytest.approx(1.0, abs=1e-3)}]


def test_dedup_is_idempotent_and_recomputes_from_scratch(falkor_store, embedder, tmp_path):
    plant_corpus(falkor_store)
    write_chains(falkor_store, PLANTED)
    s = settings(tmp_path)

    first = run_dedup(RunContext.open(s, falkor_store), embedder=embedder)
    state1 = (statuses(falkor_store), duplicate_edges(falkor_store))
    second = run_dedup(RunContext.open(s, falkor_store), embedder=embedder)
    assert second == first
    assert (statuses(falkor_store), duplicate_edges(falkor_store)) == state1
    assert falkor_store.counts()["relationships"]["DUPLICATE_OF"] == 1

    # A's verification improves: the next run flips who is kept, leaving no stale edge behind.
    falkor_store.write("upsert_chains", [{"id": "A", "score": 0.99}])
    run_dedup(RunContext.open(s, falkor_store), embedder=embedder)
    assert statuses(falkor_store)["A"] == "accepted"
    assert statuses(falkor_store)["B"] == "duplicate"
    assert [e[:2] for e in duplicate_edges(falkor_store)] == [("B", "A")]


def test_a_stale_duplicate_status_without_an_edge_is_reset(falkor_store, embedder, tmp_path):
    plant_corpus(falkor_store)
    write_chains(falkor_store, PLANTED)
    falkor_store.write("set_chain_status", [{"id": "E", "status": "duplicate", "reject_reason": None}])
    run_dedup(RunContext.open(settings(tmp_path), falkor_store), embedder=embedder)
    assert statuses(falkor_store)["E"] == "accepted"


def test_raising_tau_above_the_pair_score_keeps_everything(falkor_store, embedder, tmp_path):
    plant_corpus(falkor_store)
    write_chains(falkor_store, PLANTED)
    # Reworded answer: cos("The FAA", "the US Federal Aviation Administration") < 1, so the pair score < 1.
    falkor_store.write("upsert_chains", [{"id": "A", "answer": "The US Federal Aviation Administration"}])
    report = run_dedup(RunContext.open(settings(tmp_path, tau=0.999), falkor_store), embedder=embedder)
    assert report.duplicates == 0
    assert "duplicate" not in statuses(falkor_store).values()


def test_empty_store_and_single_chain(falkor_store, embedder, tmp_path):
    assert run_dedup(RunContext.open(settings(tmp_path), falkor_store), embedder=embedder) == DedupResult()
    write_chains(falkor_store, PLANTED[:1])
    assert run_dedup(RunContext.open(settings(tmp_path), falkor_store), embedder=embedder).duplicates == 0


def test_merging_is_a_hook_not_a_default(falkor_store, embedder, tmp_path):
    plant_corpus(falkor_store)
    write_chains(falkor_store, PLANTED)
    report = run_dedup(RunContext.open(settings(tmp_path), falkor_store), embedder=embedder)
    assert report.llm_merged == 0

    seen = []

    def hook(kept, dups):
        seen.append((kept["id"], [d["id"] for d in dups]))
        return {"question": "Which US agency issued the 737 MAX airworthiness directive?", "answer": "The FAA"}

    report = run_dedup(RunContext.open(settings(tmp_path), falkor_store), embedder=embedder, merge_hook=hook)
    assert seen == [("B", ["A"])]
    assert report.llm_merged == 1
    row = falkor_store.run_text("MATCH (c:Chain {id: 'B'}) RETURN c.question AS q, c.merged_from AS m")[0]
    assert row == {"q": "Which US agency issued the 737 MAX airworthiness directive?", "m": ["A"]}


# ---------------------------------------------------------------- pure core
def unit(rows) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_kept_chain_tie_breaks_score_then_hops_then_documents_then_seq():
    def pick(chains):
        n = len(chains)
        same = unit(np.ones((n, 4)))  # identical questions and answers
        _, dups = find_duplicates(chains, same, same)
        kept = {k for _, k, _ in dups}
        assert len(kept) == 1 and len(dups) == n - 1
        return kept.pop()

    base = dict(evidence_ids=["c1"], doc_ids=["d1"], hops=2, score=0.8)
    assert pick([{**base, "id": "x", "seq": 0}, {**base, "id": "y", "seq": 1, "score": 0.9}]) == "y"
    assert pick([{**base, "id": "x", "seq": 0}, {**base, "id": "y", "seq": 1, "hops": 3}]) == "y"
    assert pick([{**base, "id": "x", "seq": 0}, {**base, "id": "y", "seq": 1, "doc_ids": ["d1", "d2"]}]) == "y"
    assert pick([{**base, "id": "x", "seq": 5}, {**base, "id": "y", "seq": 1}]) == "y"
    assert pick([{**base, "id": "x", "seq": 0, "score": None}, {**base, "id": "y", "seq": 1, "score": 0.1}]) == "y"


def test_pair_score_is_alpha_cos_plus_jaccard():
    chains = [dict(id="a", evidence_ids=["c1", "c2"]), dict(id="b", evidence_ids=["c2", "c3"])]
    q = unit([[1, 0], [1, 0]])
    a = unit([[1, 0], [0.6, 0.8]])  # cos = 0.6
    # 0.6 * 0.6 + 0.4 * (1/3) = 0.49333: below tau 0.7, above tau 0.4
    assert jaccard(["c1", "c2"], ["c2", "c3"]) == pytest.approx(1 / 3)
    assert find_duplicates(chains, q, a, tau=0.7)[1] == []
    assert find_duplicates(chains, q, a, tau=0.4)[1] == [("b", "a", pytest.approx(0.493333, abs=1e-5))]
    assert find_duplicates(chains, q, a, alpha=1.0, tau=0.6)[1] == [("b", "a", pytest.approx(0.6, abs=1e-5))]


def test_duplicates_point_at_kept_chains_only():
    # Pair scores (same evidence): x~y 0.975, y~z 0.981, x~z 0.914; tau 0.95 links x-y and y-z only.
    vecs = unit([[1, 0, 0], [1, 0.3, 0], [1, 0.6, 0]])

    def run(scores):
        chains = [dict(id=i, evidence_ids=["c"], score=s, seq=n) for n, (i, s) in enumerate(zip("xyz", scores))]
        return sorted((d, k) for d, k, _ in find_duplicates(chains, vecs, vecs, tau=0.95, k=2)[1])

    assert run([0.5, 0.9, 0.5]) == [("x", "y"), ("z", "y")]  # y is best and absorbs both
    # x is best: it absorbs y; z resembles only y (a duplicate), so z is kept, not chained to y.
    assert run([0.9, 0.5, 0.5]) == [("y", "x")]


def synthetic(n_clusters=40, per=25, dim=32, seed=0):
    rng = np.random.default_rng(seed)
    centres = unit(rng.standard_normal((n_clusters, dim)))
    q = unit(np.repeat(centres, per, axis=0) + 0.15 * rng.standard_normal((n_clusters * per, dim)))
    a = unit(np.repeat(centres, per, axis=0) + 0.3 * rng.standard_normal((n_clusters * per, dim)))
    chains = [dict(id=f"ch{i:04d}", seq=i, evidence_ids=[f"e{i // per}", f"e{i}"], score=float(rng.random()),
                   hops=2, doc_ids=[]) for i in range(n_clusters * per)]
    return chains, q, a


def test_same_seed_gives_the_same_communities_whatever_the_input_order():
    chains, q, a = synthetic()
    first = find_duplicates(chains, q, a, seed=42)
    assert len(first[0]) >= 10  # clusters are found
    again = find_duplicates(chains, q, a, seed=42)
    assert again == first
    perm = list(range(len(chains)))
    random.Random(1).shuffle(perm)
    shuffled = find_duplicates([chains[i] for i in perm], q[perm], a[perm], seed=42)
    assert shuffled == first


def test_input_checks():
    with pytest.raises(ValueError):
        find_duplicates([dict(id="a"), dict(id="b")], unit([[1, 0]]), unit([[1, 0], [0, 1]]))
    with pytest.raises(ValueError, match="unique"):
        find_duplicates([dict(id="a"), dict(id="a")], unit([[1, 0], [1, 0]]), unit([[1, 0], [1, 0]]))
    assert find_duplicates([dict(id="a")], unit([[1, 0]]), unit([[1, 0]])) == ([], [])


def test_settings_shape_is_what_run_dedup_reads():
    cfg = Settings().dedup
    assert SimpleNamespace(alpha=cfg.alpha, tau=cfg.tau, k=cfg.k, resolution=cfg.resolution, seed=cfg.seed) == SimpleNamespace(
        alpha=0.6, tau=0.7, k=10, resolution=1.0, seed=42)


def test_llm_merge_setting_rewrites_the_kept_chain_once(falkor_store, embedder, tmp_path, monkeypatch):
    """`[dedup] llm_merge`: the merge_duplicates prompt rewrites B from A (MiRAGE Eq. 11); a rerun spends nothing."""
    from tests.llm_server import ScriptedLLMServer

    plant_corpus(falkor_store)
    write_chains(falkor_store, PLANTED)
    merged = {"question": "Which US agency issued the 737 MAX airworthiness directive?", "answer": "The FAA"}
    with ScriptedLLMServer(responder=lambda body: merged) as server:
        s = settings(tmp_path, llm_merge=True)
        s.llm.base_url = server.base_url
        s.llm.verifier_model = f"merge-{tmp_path.name}"
        report = run_dedup(RunContext.open(s, falkor_store), embedder=embedder)
        assert report.llm_merged == 1 and len(server.chat_requests) == 1
        assert "merge two questions" in server.chat_requests[0].messages[0]["content"]
        row = falkor_store.run_text("MATCH (c:Chain {id: 'B'}) RETURN c.question AS q, c.merged_from AS m")[0]
        assert row == {"q": merged["question"], "m": ["A"]}
        assert run_dedup(RunContext.open(s, falkor_store), embedder=embedder).duplicates == 1
        assert len(server.chat_requests) == 1  # merged from A already: no second call
