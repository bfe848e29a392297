"""The keypoint step (kg.pipeline.keypoint_step): keypoints asked as soon as a
document is chunked, before its entities are known, give the graph that
asking after the entities gives, for the same calls."""

from __future__ import annotations

from testing_support import make_settings, needs_corpus, wiki_folder
from kg.pipeline import Ingestor, run_ingest
from kg.store.falkor import FalkorStore
from kg.context import RunContext



class Quiet:
    def print(self, *args, **kwargs) -> None:
        pass


def test_mentions_added_later_are_those_extract_keypoints_gives():
    from kg.enrich.keypoints import extract_keypoints, keypoint_mentions

    class Reply:
        ok, error, detail, model, prompt_version = True, None, None, "m", "v1"

        def __init__(self, keypoints):
            self.value = type("V", (), {"keypoints": keypoints})()

    class Client:
        config = None

        def run_many(self, requests, on_result=None):
            return [Reply(["The Federal Aviation Administration certified the Boeing 737 MAX in 2017.",
                           "Boeing builds the 737 MAX in Renton."]) for _ in requests]

    chunks = [{"id": "c1", "text": "The FAA and Boeing.", "entities": ["boeing", "federal aviation administration"]}]
    names = {"boeing": ["Boeing"], "federal aviation administration": ["Federal Aviation Administration", "FAA"],
             "737 max": ["737 MAX"]}
    asked_with_names = extract_keypoints(chunks, [], client=Client(), entity_names=names)
    asked_without = extract_keypoints(chunks, [], client=Client(), entity_names={})
    assert asked_without.mentions == [] and asked_without.keypoints == asked_with_names.keypoints
    assert keypoint_mentions(asked_without.keypoints, names) == asked_with_names.mentions
    assert len(asked_with_names.mentions) == 5  # FAA + Boeing + 737 MAX, then Boeing + 737 MAX


def _graph(store) -> dict:
    rows = lambda q: sorted(tuple(sorted(r.items())) for r in store.run_text(q, {}))  # noqa: E731
    return {
        "keypoints": rows("MATCH (c:Chunk)-[:HAS_KEYPOINT]->(k:Keypoint) RETURN c.id AS c, k.id AS k, k.text AS t"),
        "mentions": rows("MATCH (k:Keypoint)-[m:MENTIONS]->(e:Entity) RETURN k.id AS k, e.id AS e, m.count AS n"),
    }


@needs_corpus
def test_keypoints_asked_before_the_entities_give_the_same_graph_for_the_same_calls(tmp_path, monkeypatch):
    from kg.llm.client import LLMClient
    from tests.fake_llm import FakeLLM, body_key, task_of
    from tests.llm_server import ScriptedLLMServer

    folder = wiki_folder(tmp_path, 8)
    import kg.pipeline.document as document

    finished_early = []
    real_with_mentions = document.with_mentions
    monkeypatch.setattr(document, "with_mentions",
                        lambda result, doc: finished_early.append(doc.doc_id) or real_with_mentions(result, doc))
    graphs, calls = {}, {}
    for name in ("early", "late"):
        if name == "late":  # keypoints asked only once the entities are in, as before
            monkeypatch.setattr(Ingestor, "ask_keypoints_early", lambda self, items: None)
        with ScriptedLLMServer(responder=FakeLLM()) as server:
            data = tmp_path / name / ".hopgraph"
            settings = make_settings(data, None, ingest={"min_tokens": 16, "group_docs": 3})
            settings.llm.base_url = server.base_url
            store = FalkorStore(data, graph="test")
            store.ensure_schema()
            try:
                summary = run_ingest(RunContext(settings, store, client=LLMClient.from_settings(settings), console=Quiet()), [folder])
                assert summary.ingested == 8 and summary.partial == 0, name
                graphs[name] = _graph(store)
                calls[name] = [r for r in server.chat_requests if task_of(r.body).startswith("keypoints")]
            finally:
                store.close()
                store.server.stop()
    assert len(finished_early) == 8  # every file's keypoints were asked before its entities were found
    assert graphs["early"]["keypoints"] and graphs["early"]["mentions"]
    assert graphs["early"] == graphs["late"]
    # No more calls (one per group of 3 files; asked late, the first file of the
    # run goes alone to probe the endpoint), and no request is sent twice.
    assert len(calls["early"]) <= len(calls["late"])
    assert len({body_key(r.body) for r in calls["early"]}) == len(calls["early"])


def test_keypoint_links_that_find_no_chunk_are_an_error_not_a_silent_loss(falkor_store):
    """A MATCH that finds no chunk drops the link without an error; write_keypoints counts the
    links after writing, so a keypoint whose source is not in the graph fails the write (the
    documents stay unmarked, the next run redoes them) instead of sitting there unlinked."""
    import pytest

    from kg.enrich.keypoints import KeypointResult
    from kg.errors import StoreError
    from kg.pipeline.keypoint_step import write_keypoints

    falkor_store.ensure_schema()
    falkor_store.write("upsert_chunks", [{"id": "c1", "doc_id": "d", "index": 0, "text": "Boeing builds the 737."}])
    result = KeypointResult()
    for n, source in enumerate(["c1", "c1", "c2"]):
        result.keypoints.append({"id": f"k{n}", "text": f"fact {n}", "modality": "text", "source_id": source})
        result.has_keypoint.append({"s": source, "d": f"k{n}", "source_label": "Chunk"})
    with pytest.raises(StoreError, match="1 of 3 keypoint links found no Chunk"):
        write_keypoints(falkor_store, [result])
    # the two links whose chunk is there were written; a write of only those passes
    linked = falkor_store.run_text("MATCH (:Chunk {id: 'c1'})-[:HAS_KEYPOINT]->(k:Keypoint) RETURN k.id AS k", {})
    assert sorted(r["k"] for r in linked) == ["k0", "k1"]
    result.has_keypoint = result.has_keypoint[:2]
    result.keypoints = result.keypoints[:2]
    write_keypoints(falkor_store, [result])
