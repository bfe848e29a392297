"""Small files ingested in groups (kg.pipeline.groups): the same graph as one
by one, and a bad file in a group fails alone with its own reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from testing_support import CORPUS, WIKI, make_settings, needs_corpus, wiki_folder
from kg.pipeline import Ingestor, run_ingest
from kg.pipeline.groups import plan_groups
from kg.pipeline.writes import entity_rows_in_order
from kg.store.falkor import FalkorStore
from kg.context import RunContext



class Quiet:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, *args, **kwargs) -> None:
        self.lines.append(" ".join(str(a) for a in args))


def test_groups_follow_the_byte_and_file_bounds_and_a_large_file_goes_alone():
    todo = [(Path(f"f{i}.txt"), f"d{i}", size) for i, size in enumerate([10, 20, 30, 40, 500, 600])]
    groups = plan_groups(todo, max_bytes=100, max_docs=3)
    assert [[doc for _, doc, _ in g] for g in groups] == [["d0", "d1", "d2"], ["d3"], ["d4"], ["d5"]]
    assert all(len(g) == 1 for g in plan_groups(todo, max_bytes=100, max_docs=1))
    assert all(len(g) == 1 for g in plan_groups(todo, max_bytes=0, max_docs=64))


def test_entity_rows_of_a_group_are_those_of_writing_one_document_after_the_other():
    first = [{"id": "faa", "name": "FAA", "label": "ORG", "aliases": ["F.A.A."]}]
    second = [{"id": "faa", "name": "the FAA", "label": "TERM", "aliases": ["FAA", "F.A.A.", "Faa"]},
              {"id": "boeing", "name": "Boeing", "label": "ORG", "aliases": []}]
    third = [{"id": "faa", "name": "the FAA", "label": "TERM", "aliases": ["FAA"]}]
    rows = entity_rows_in_order([first, second, third])  # the first name wins, not the most common
    assert rows == [{"id": "boeing", "name": "Boeing", "label": "ORG", "aliases": []},
                    {"id": "faa", "name": "FAA", "label": "ORG", "aliases": ["F.A.A.", "FAA", "Faa"]}]


def _ingest(folder: Path, data: Path, cache: Path | None, **ingest) -> tuple[dict, FalkorStore, Quiet]:
    settings = make_settings(data, cache, ingest={"min_tokens": 16, **ingest})
    store = FalkorStore(data, graph="test")
    store.ensure_schema()
    console = Quiet()
    return run_ingest(RunContext.open(settings, store, console=console), [folder]), store, console


@pytest.fixture
def grouped_calls(monkeypatch) -> list[int]:
    """How many documents each grouped write took (to know the group path ran)."""
    sizes: list[int] = []
    original = Ingestor.ingest_prepared

    def spy(self, items):
        sizes.append(len(items))
        return original(self, items)

    monkeypatch.setattr(Ingestor, "ingest_prepared", spy)
    return sizes


@needs_corpus
def test_a_bad_file_in_a_group_fails_alone_and_the_others_go_in(tmp_path, shared_embedding_cache, grouped_calls):
    folder = wiki_folder(tmp_path, 6)
    (folder / "empty.txt").write_bytes(b"")
    (folder / "latin1.txt").write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e".encode("latin-1"))
    (folder / "blank.md").write_text("\n\n   \n")
    summary, store, console = _ingest(folder, tmp_path / ".hopgraph", shared_embedding_cache)
    try:
        assert summary.ingested == 6 and summary.failed == 3
        assert grouped_calls and sum(grouped_calls) == 6  # the six went through the group path
        failed = [line for line in console.lines if line.startswith("[red]failed")]
        for name, reason in (("empty.txt", "empty"), ("latin1.txt", "UTF-8"), ("blank.md", "")):
            line = next((line for line in failed if name in line), None)
            assert line is not None, f"no failure reported for {name}: {failed}"
            assert reason.lower() in line.lower()
        docs = store.run_text("MATCH (d:Document) RETURN d.path AS path, d.ingested AS ingested", {})
        assert len(docs) == 6 and all(d["ingested"] for d in docs)
        assert store.counts()["relationships"]["MENTIONS"] > 0
    finally:
        store.close()
        store.server.stop()


def _graph(store: FalkorStore) -> dict:
    entities = store.run_text("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.label AS label, "
                              "e.aliases AS aliases ORDER BY id", {})
    chunks = store.run_text("MATCH (c:Chunk) RETURN c.id AS id ORDER BY id", {})
    mentions = store.run_text("MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) RETURN c.id AS c, e.id AS e, "
                              "m.count AS n ORDER BY c, e", {})
    return {"counts": store.counts(), "entities": entities, "chunks": chunks, "mentions": mentions}


@needs_corpus
def test_grouped_and_one_by_one_ingest_give_the_same_graph(tmp_path, grouped_calls):
    folder = wiki_folder(tmp_path, 40)
    # a markdown file with headings: chunk vectors pool heading sentences too
    shutil.copy(CORPUS / "text" / "docling_docs" / "concepts_chunking.md", folder / "docs_page.md")
    graphs = {}
    for name, group_docs in (("grouped", 16), ("one_by_one", 1)):
        # each with its own embedding cache: the vectors are computed in different batches
        summary, store, _ = _ingest(folder, tmp_path / name / ".hopgraph", None, group_docs=group_docs)
        try:
            graphs[name] = {"summary": summary, **_graph(store)}
        finally:
            store.close()
            store.server.stop()
        if name == "grouped":
            assert grouped_calls and max(grouped_calls) > 1
    grouped, alone = graphs["grouped"], graphs["one_by_one"]
    assert grouped["summary"].ingested == alone["summary"].ingested == 41
    for key in ("counts", "chunks", "entities", "mentions"):
        assert grouped[key] == alone[key], key
    assert grouped["summary"].similar_to == alone["summary"].similar_to > 0


@needs_corpus
def test_llm_keypoints_of_a_group_share_requests_and_mention_only_their_own_documents_entities(tmp_path):
    from kg.llm.client import LLMClient
    from tests.fake_llm import FakeLLM
    from tests.llm_server import ScriptedLLMServer

    folder = wiki_folder(tmp_path, 12)
    calls, graphs = {}, {}
    with ScriptedLLMServer(responder=FakeLLM()) as server:
        for name, group_docs in (("grouped", 64), ("one_by_one", 1)):
            data = tmp_path / name / ".hopgraph"
            settings = make_settings(data, None, ingest={"min_tokens": 16, "group_docs": group_docs})
            settings.llm.base_url = server.base_url
            store = FalkorStore(data, graph="test")
            store.ensure_schema()
            before = len(server.chat_requests)
            try:
                summary = run_ingest(RunContext(settings, store, client=LLMClient.from_settings(settings), console=Quiet()), [folder])
                calls[name] = len(server.chat_requests) - before
                assert summary.ingested == 12 and summary.partial == 0, name
                graphs[name] = {
                    "keypoint_docs": {r["doc"] for r in store.run_text(
                        "MATCH (c:Chunk)-[:HAS_KEYPOINT]->(:Keypoint) RETURN DISTINCT c.doc_id AS doc", {})},
                    "keypoint_mentions": {(r["doc"], r["e"]) for r in store.run_text(
                        "MATCH (c:Chunk)-[:HAS_KEYPOINT]->(:Keypoint)-[:MENTIONS]->(e:Entity) "
                        "RETURN c.doc_id AS doc, e.id AS e", {})},
                    "chunk_mentions": {(r["doc"], r["e"]) for r in store.run_text(
                        "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) RETURN c.doc_id AS doc, e.id AS e", {})}}
            finally:
                store.close()
                store.server.stop()
    assert calls["grouped"] < calls["one_by_one"]
    grouped = graphs["grouped"]
    assert len(grouped["keypoint_docs"]) == 12  # every document got its keypoints
    # a keypoint mentions only entities its own document's chunks mention
    assert grouped["keypoint_mentions"] and grouped["keypoint_mentions"] <= grouped["chunk_mentions"]


@needs_corpus
def test_a_group_goes_in_when_the_entity_process_is_gone(tmp_path, shared_embedding_cache):
    """The entity process closed under the run (as if killed): the group's
    entities are found in this process and every file still goes in."""
    from kg.pipeline.entity_process import EntityProcess
    from kg.pipeline.groups import ingest_group

    pages = sorted(WIKI.glob("*.txt"))[:5]
    data = tmp_path / ".hopgraph"
    settings = make_settings(data, shared_embedding_cache, ingest={"min_tokens": 16})
    store = FalkorStore(data, graph="test")
    store.ensure_schema()
    ingestor = Ingestor(settings, store, console=Quiet())
    entities = EntityProcess(settings.entities.spacy_model, settings.entities.batch_size)
    entities.close()
    try:
        group = [(p, f"doc{i:012d}", p.stat().st_size) for i, p in enumerate(pages)]
        reports = ingest_group(ingestor, group, [None] * len(group), entities)
        ingestor.close()
        assert [r.status for r in reports] == ["ingested"] * len(pages)
        assert all(r.entities > 0 for r in reports)
        done = store.run_text("MATCH (d:Document) WHERE d.ingested = true RETURN count(d) AS n", {})[0]["n"]
        assert done == len(pages)
    finally:
        store.close()
        store.server.stop()
