"""`hopgraph generate`, offline path, on real PDFs in the embedded FalkorDB store.

The corpus (FAA handbook page, Ki67 review, NIST SP 800-223, and the S2ORC paper,
whose figures carry the only honest offline image chains of these: the Ki67
ones were built on the ligature word "Speciﬁcally") is ingested once
for the module (slow: about a minute or more), then every test reads or tops up
the same graph, in file order.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from testing_support import PDF_DIR, needs_corpus
from kg.context import RunContext

pytestmark = [needs_corpus, pytest.mark.timeout(900)]

PDFS = ["manual_faa_amt_handbook_sample.pdf", "med_ki67_breast_cancer_curroncol2023.pdf",
        "report_nist_sp800-223_hpc_security.pdf", "ai2_s2orc_acl2020.pdf"]
IMAGE_TYPES = {"image_initiated_chain", "text_initiated_chain", "parallel_visual_textual_fork", "multi_image_fork"}
N = 20


class Quiet:
    def print(self, *args, **kwargs):
        pass


def make_settings(data_dir: Path, n: int = N):
    from kg.config import Settings

    s = Settings()
    s.store.data_dir = data_dir
    s.generate.n = n
    assert not s.llm_configured, "offline tests must not see an LLM endpoint"
    return s


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """(settings, store) with the three PDFs ingested, offline."""
    from kg.pipeline import run_ingest
    from kg.store.falkor import FalkorStore

    data_dir = tmp_path_factory.mktemp("gen_offline") / ".hopgraph"
    settings = make_settings(data_dir)
    store = FalkorStore(data_dir)
    store.ensure_schema()
    summary = run_ingest(RunContext.open(settings, store, console=Quiet()), [PDF_DIR / p for p in PDFS])
    assert summary.ingested == len(PDFS), summary
    yield settings, store
    store.close()
    store.server.stop()


@pytest.fixture(scope="module")
def generated(corpus):
    from builders.chains.generate import run_generate

    settings, store = corpus
    report = run_generate(RunContext.open(settings, store, console=Quiet()))
    return report


def chains(store) -> list[dict]:
    return [r["chain"] for r in store.run("chains_for_export")]


HOPS = """
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)
OPTIONAL MATCH (h)-[:USES]->(n) WHERE n:Chunk OR n:Image
OPTIONAL MATCH (h)-[:BRIDGES]->(b:Entity)
RETURN c.id AS chain_id, h {.*} AS hop, n.id AS evidence_id, labels(n)[0] AS evidence_label, b.id AS bridge_id, b.name AS bridge_name
"""


def hops_by_chain(store) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in store.run_text(HOPS):
        out[r["chain_id"]].append(r)
    for rows in out.values():
        rows.sort(key=lambda r: r["hop"]["index"])
    return out


def accepted(store) -> list[dict]:
    return [c for c in chains(store) if c["status"] == "accepted"]


def mentions_index(store) -> dict[str, set[str]]:
    """Node id -> entity ids it MENTIONS; an image also gets its caption chunk's."""
    out: dict[str, set[str]] = defaultdict(set)
    for r in store.run_text("MATCH (n)-[:MENTIONS]->(e:Entity) RETURN n.id AS n, e.id AS e"):
        out[r["n"]].add(r["e"])
    for r in store.run_text("MATCH (i:Image)-[:CAPTIONED_BY]->(c:Chunk) RETURN i.id AS i, c.id AS c"):
        out[r["i"]] |= out.get(r["c"], set())
    return out


def without_quotes(text: str) -> str:
    return re.sub(r'"[^"]*"', '""', text)


# ---------------------------------------------------------------- the main run
def test_generate_accepts_text_and_image_chains(corpus, generated):
    settings, store = corpus
    got = accepted(store)
    assert len(got) == N, generated
    by_type = Counter(c["graph_type"] for c in got)
    assert by_type["text_chain"] >= 1, by_type
    assert any(by_type[t] for t in IMAGE_TYPES), by_type
    assert sum(generated.accepted.values()) == N
    for c in got:
        assert c["generator"] == "offline"
        assert json.loads(c["prompt_versions"]) == {"verbalize": "offline-2"}
        assert c["verifier"] == "offline"
        assert c["hops"] >= settings.generate.min_hops


def test_every_hop_evidence_exists(corpus, generated):
    _, store = corpus
    nodes = {r["id"] for r in store.run_text("MATCH (n) WHERE n:Chunk OR n:Image RETURN n.id AS id")}
    hops = hops_by_chain(store)
    for c in chains(store):
        rows = hops[c["id"]]
        assert [r["hop"]["index"] for r in rows] == list(range(c["hops"])), c["id"]
        for r, evidence_id in zip(rows, c["evidence_ids"]):
            assert r["evidence_id"] == evidence_id == r["hop"]["evidence_id"]
            assert evidence_id in nodes
            assert r["evidence_label"] == r["hop"]["evidence_label"]


def test_consecutive_hops_share_their_bridge(corpus, generated):
    _, store = corpus
    mentions = mentions_index(store)
    links = defaultdict(set)
    for r in store.run_text("MATCH (a)-[:REFERENCES|CAPTIONED_BY]-(b) RETURN a.id AS a, b.id AS b"):
        links[r["a"]].add(r["b"])
    hops = hops_by_chain(store)
    checked = 0
    for c in accepted(store):
        rows = hops[c["id"]]
        for i, r in enumerate(rows):
            hop = r["hop"]
            if hop["bridge_kind"] == "entity":
                ent = hop["bridge_id"]
                assert r["bridge_id"] == ent, "the Hop has a BRIDGES edge to its entity"
                assert ent in mentions[hop["evidence_id"]], (c["id"], i, ent)
                if i + 1 < len(rows):
                    nxt = rows[i + 1]["hop"]
                    if nxt.get("table_row"):  # a table hop is entered through the row its bridge names
                        name = r.get("bridge_name") or ent
                        assert name.lower() in nxt["table_row"].lower() or ent in nxt["table_row"].lower(), (
                            c["id"], i, ent, nxt["table_row"])
                    else:
                        assert ent in mentions[nxt["evidence_id"]], (c["id"], i, ent)
                checked += 1
            elif hop["bridge_kind"] == "link":
                assert rows[i + 1]["hop"]["evidence_id"] in links[hop["evidence_id"]]
        if not c["graph_type"].endswith("fork"):
            assert all(r["hop"]["bridge_kind"] in ("entity", "link") for r in rows[:-1]), c["id"]
    assert checked


def test_questions_are_questions_and_structures_validate(corpus, generated):
    from builders.chains.structure import build_structure

    _, store = corpus
    hops = hops_by_chain(store)
    for c in accepted(store):
        for text in [c["question"], *(r["hop"]["sub_question"] for r in hops[c["id"]])]:
            assert text.strip().endswith("?"), text
            assert "___" not in without_quotes(text), text
        assert c["answer"] and c["answer"].lower() not in without_quotes(c["question"]).lower()
        edges = [tuple(e) for e in json.loads(c["structure"])]
        build_structure(c["hops"], edges)  # raises StructureError if broken
        assert all(r["hop"]["necessary"] and r["hop"]["necessity_checked"] for r in hops[c["id"]])


def test_generated_chains_pass_every_cypher_audit(corpus, generated):
    """What generate writes back is what the audits re-check: no accepted chain may fail one."""
    from queries.audit import run_audits

    _, store = corpus
    results = run_audits(store)
    offending = {r.audit: r.examples for r in results.audits if r.accepted_violations}
    assert not results.failed, offending


def test_rejected_chains_say_why(corpus, generated):
    _, store = corpus
    for c in chains(store):
        assert (c["status"] == "rejected") == bool(c["reject_reason"]), c


# ---------------------------------------------------------------- HAVE
def _view(store):
    from queries.corpus_view import load_corpus_view

    return load_corpus_view(store)


# Hop necessity, shrinking and the offline verbalizer are tested on a synthetic
# corpus in test_chains_core.py (no ../shared needed).


# ---------------------------------------------------------------- resumability
def test_rerun_adds_nothing_and_raising_n_tops_up(corpus, generated):
    from builders.chains.generate import run_generate

    settings, store = corpus
    before = Counter(c["status"] for c in chains(store))
    ids_before = {c["id"] for c in chains(store)}
    report = run_generate(RunContext.open(settings, store, console=Quiet()))
    assert report.accepted == {} and report.already == N
    assert Counter(c["status"] for c in chains(store)) == before

    settings.generate.n = N + 6
    report = run_generate(RunContext.open(settings, store, console=Quiet()))
    after = chains(store)
    assert sum(report.accepted.values()) == 6
    assert sum(c["status"] == "accepted" for c in after) == N + 6
    assert ids_before <= {c["id"] for c in after}
    assert len({c["id"] for c in after}) == len(after), "chain ids are unique"
    assert len({c["seq"] for c in after}) == len(after), "seq numbers are unique"


def test_a_round_of_unusable_replies_says_the_model_cannot_write_the_format():
    from builders.chains.generate import round_failure_message
    from builders.chains.rounds import Outcome

    unusable = [Outcome(None, None, "failed", "verbalize call failed: schema violation"),
                Outcome(None, None, "failed", "verbalize call failed: invalid json")]
    message = round_failure_message(unusable)
    assert "unusable" in message and "schema violation x1" in message and "larger model" in message
    down = [Outcome(None, None, "failed", "verbalize call failed: connection error")]
    assert "re-run when the endpoint answers" in round_failure_message(down)
