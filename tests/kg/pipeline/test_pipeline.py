"""`hopgraph ingest` on real documents from ../shared/corpus: the corpus graph a user gets."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testing_support import CORPUS, PDF_DIR, make_settings, needs_corpus
from kg.pipeline import run_ingest
from kg.store.falkor import FalkorStore
from kg.context import RunContext

pytestmark = needs_corpus
HOPGRAPH = str(Path(sys.executable).parent / "hopgraph")
WIKI = CORPUS / "text" / "wiki_hotpotqa_train100"


@pytest.fixture(scope="module")
def pdf_graph(tmp_path_factory, shared_embedding_cache):
    """All six PDFs ingested once (the slow part), shared by the read-only tests here."""
    data = tmp_path_factory.mktemp("pdfs") / ".hopgraph"
    settings = make_settings(data, shared_embedding_cache)
    store = FalkorStore(data, graph="test")
    store.ensure_schema()
    summary = run_ingest(RunContext.open(settings, store), [PDF_DIR])
    yield settings, store, summary
    store.close()
    store.server.stop()


def rows(store, text, **params):
    return store.run_text(text, params)


def doc_id(store, name: str) -> str:
    found = [r["id"] for r in rows(store, "MATCH (d:Document) WHERE d.path CONTAINS $name RETURN d.id AS id",
                                    name=name)]
    assert found, f"{name} not ingested"
    return found[0]


def test_the_files_collected_are_those_the_readers_read():
    """kg.pipeline.files keeps its own list of extensions (importing kg.ingest
    loads pymupdf): a reader added without it would have its files refused."""
    from kg.ingest import SUPPORTED_EXTENSIONS as readers
    from kg.pipeline.files import SUPPORTED_EXTENSIONS as collected

    assert set(collected) == set(readers)


def test_all_pdfs_ingested(pdf_graph):
    _, store, summary = pdf_graph
    assert summary.ingested == 6 and summary.failed == 0
    counts = store.counts()
    for label in ("Document", "Chunk", "Image", "Entity", "Keypoint", "Topic"):
        assert counts["nodes"].get(label, 0) > 0, label
    for rel in ("PART_OF", "NEXT", "REFERENCES", "CAPTIONED_BY", "SIMILAR_TO", "MENTIONS", "IN_TOPIC"):
        assert counts["relationships"].get(rel, 0) > 0, rel


@pytest.mark.parametrize("name", ["med_ki67", "manual_faa"])
def test_figures_become_images_with_captions(pdf_graph, name):
    _, store, _ = pdf_graph
    did = doc_id(store, name)
    images = rows(store, "MATCH (i:Image)-[:PART_OF]->(d:Document {id: $d}) "
                         "OPTIONAL MATCH (i)-[:CAPTIONED_BY]->(c:Chunk) "
                         "RETURN i.id AS id, i.caption AS caption, i.path AS path, c.text AS caption_chunk", d=did)
    captioned = [r for r in images if r["caption"] and r["caption"].startswith(("Figure", "Fig"))]
    assert len(captioned) >= 2
    for r in captioned:
        assert Path(r["path"]).is_file()
        assert r["caption_chunk"], f"image {r['id']} has no CAPTIONED_BY chunk"


def test_nist_figure_mentions_resolve_to_its_image(pdf_graph):
    _, store, _ = pdf_graph
    did = doc_id(store, "report_nist")
    refs = rows(store, "MATCH (c:Chunk {doc_id: $d})-[r:REFERENCES]->(i:Image) "
                       "RETURN r.label AS label, i.caption AS caption", d=did)
    assert refs, "no Figure reference resolved in the NIST report"
    for r in refs:
        number = r["label"].split()[-1]
        assert number in r["caption"]


def test_s2orc_table_chunk_keeps_caption_and_decimals(pdf_graph):
    _, store, _ = pdf_graph
    did = doc_id(store, "ai2_s2orc")
    tables = rows(store, "MATCH (c:Chunk {doc_id: $d}) WHERE c.kind = 'table' RETURN c.text AS text, c.label AS label",
                  d=did)
    table3 = [t for t in tables if t["label"] == "Table 3"]
    assert table3, [t["label"] for t in tables]
    assert "Table 3" in table3[0]["text"]
    assert "28.9M (35.6%)" in table3[0]["text"]  # pymupdf's extract() would mangle these decimals


def test_entities_shared_across_documents_are_one_node(pdf_graph):
    _, store, _ = pdf_graph
    # The Federal Register directive names the FAA in its text; the handbook page
    # only in its PDF Author field. Both reach the one 'faa' Entity.
    in_text = rows(store, "MATCH (e:Entity {id: 'faa'})<-[:MENTIONS]-(c:Chunk) RETURN collect(DISTINCT c.doc_id) AS d")
    in_meta = rows(store, "MATCH (e:Entity {id: 'faa'})<-[:MENTIONS]-(d:Document) RETURN collect(d.id) AS d")
    assert doc_id(store, "reg_federal") in in_text[0]["d"]
    assert doc_id(store, "manual_faa") in in_meta[0]["d"]
    lo = rows(store, "MATCH (e:Entity)<-[:MENTIONS]-(c:Chunk) WHERE e.id = 'kyle lo' "
                     "RETURN count(DISTINCT c.doc_id) AS n")
    assert lo and lo[0]["n"] == 2  # both ACL papers
    dupes = rows(store, "MATCH (e:Entity) WITH e.id AS id, count(*) AS n WHERE n > 1 RETURN id")
    assert dupes == []


def test_reingest_adds_nothing_and_embeds_nothing(pdf_graph):
    settings, store, _ = pdf_graph
    before = store.counts()
    summary = run_ingest(RunContext.open(settings, store), [PDF_DIR])
    assert summary.ingested == 0 and summary.unchanged == 6
    assert summary.embeddings_computed == 0
    assert store.counts() == before


def test_similarity_edges_are_stored_once_per_pair(pdf_graph):
    _, store, _ = pdf_graph
    both_ways = rows(store, "MATCH (a)-[:SIMILAR_TO]->(b)-[:SIMILAR_TO]->(a) RETURN count(*) AS n")
    assert both_ways[0]["n"] == 0
    cross = rows(store, "MATCH ()-[s:SIMILAR_TO]->() RETURN s.cross_document AS x, count(*) AS n")
    assert {r["x"] for r in cross} <= {True, False}


# ---- incremental add -----------------------------------------------------

def _wiki(names):
    return [WIKI / n for n in names]


def test_a_document_added_later_joins_the_graph(tmp_path, shared_embedding_cache):
    # Two Wikipedia pages about the same band, ingested one after the other.
    pages = sorted(p.name for p in WIKI.glob("*.txt"))
    first, second = _pair_sharing_an_entity(pages)
    data = tmp_path / ".hopgraph"
    settings = make_settings(data, shared_embedding_cache, ingest={"min_tokens": 16})
    store = FalkorStore(data, graph="test")
    store.ensure_schema()
    run_ingest(RunContext.open(settings, store), _wiki([first]))
    summary = run_ingest(RunContext.open(settings, store), _wiki([first, second]))
    assert summary.ingested == 1 and summary.unchanged == 1
    shared = rows(store, "MATCH (a:Chunk)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(b:Chunk) "
                         "WHERE a.doc_id <> b.doc_id RETURN count(DISTINCT e) AS n")
    assert shared[0]["n"] >= 1
    linked = rows(store, "MATCH ()-[s:SIMILAR_TO]->() WHERE s.cross_document = true RETURN count(*) AS n")
    assert linked[0]["n"] >= 1
    store.close()
    store.server.stop()


def _pair_sharing_an_entity(pages):
    # "Arthur? Arthur!" style pairs are unpredictable; pick two files that name each other.
    texts = {p: (WIKI / p).read_text(encoding="utf-8") for p in pages[:300]}
    for a in texts:
        title = a.removesuffix(".txt").replace("_", " ")
        if len(title) < 8:
            continue
        for b, text in texts.items():
            if b != a and title in text:
                return a, b
    pytest.skip("no pair of wiki pages naming each other")


# ---- bad input -------------------------------------------------------------

def _bad_inputs(folder: Path) -> dict[str, str]:
    """The bad-input set of the issue; returns file name -> expected reason fragment."""
    import pymupdf

    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.7\nthis is not a pdf at all\n")
    enc = pymupdf.open()
    enc.new_page().insert_text((72, 72), "secret text")
    enc.save(folder / "encrypted.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    (folder / "empty.txt").write_bytes(b"")
    scan = pymupdf.open()
    page = scan.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 200), 0)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)
    scan.save(folder / "scanned.pdf")
    (folder / "zero_pages.pdf").write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
        b"trailer<</Root 1 0 R>>\n%%EOF\n")
    (folder / "data.xyz").write_text("what is this")
    (folder / "latin1.txt").write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e".encode("latin-1"))
    (folder / "missing_image.md").write_text("# Title\n\nSome text about the FAA and Boeing.\n\n![a plot](img/nope.png)\n")
    (folder / "good.txt").write_text(
        "The Federal Aviation Administration published a rule for the Boeing 737 MAX.\n\n"
        "Boeing changed the flight control software after the FAA review.\n")
    return {"corrupt.pdf": "PDF", "encrypted.pdf": "encrypted", "empty.txt": "empty",
            "scanned.pdf": "text", "zero_pages.pdf": "no pages", "data.xyz": "unsupported extension",
            "latin1.txt": "UTF-8"}


def test_bad_files_get_one_line_each_and_the_rest_is_ingested(tmp_path, shared_embedding_cache):
    folder = tmp_path / "docs"
    folder.mkdir()
    expected = _bad_inputs(folder)
    env = {**os.environ, "HOPGRAPH_EMBEDDINGS__CACHE_DIR": str(shared_embedding_cache)}
    proc = subprocess.run([HOPGRAPH, "ingest", str(folder)], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    failed = [line for line in proc.stderr.splitlines() if line.startswith("failed ")]
    assert len(failed) == len(expected), failed
    for name, reason in expected.items():
        line = next((l for l in failed if name in l), None)
        assert line is not None, f"no report line for {name}"
        assert reason.lower() in line.lower(), line
    assert any("missing_image.md" in l and "missing image" in l for l in proc.stderr.splitlines())
    ok = [l for l in proc.stderr.splitlines() if l.startswith("ok ")]
    assert {Path(l.split()[1].rstrip(":")).name for l in ok} == {"good.txt", "missing_image.md"}


def test_killed_ingest_finishes_on_rerun_without_duplicates(tmp_path, shared_embedding_cache):
    folder = tmp_path / "docs"
    folder.mkdir()
    pages = sorted(WIKI.glob("*.txt"))[:12]
    for p in pages:
        shutil.copy(p, folder / p.name)
    # groups of 3 files: the kill lands between groups, with some documents done and some not
    env = {**os.environ, "HOPGRAPH_EMBEDDINGS__CACHE_DIR": str(shared_embedding_cache),
           "HOPGRAPH_INGEST__GROUP_DOCS": "3"}
    proc = subprocess.Popen([HOPGRAPH, "ingest", str(folder)], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    data = tmp_path / ".hopgraph"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            store = FalkorStore(data, graph="hopgraph")
            done = store.run_text("MATCH (d:Document) WHERE d.ingested = true RETURN count(d) AS n")[0]["n"]
            store._db = None  # leave the server to the ingest process
            if done >= 2:
                break
        except Exception:
            pass
        time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    rerun = subprocess.run([HOPGRAPH, "ingest", str(folder)], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    store = FalkorStore(data, graph="hopgraph")
    counts = store.counts()
    assert counts["nodes"]["Document"] == len(pages)
    dup = store.run_text("MATCH (c:Chunk) WITH c.id AS id, count(*) AS n WHERE n > 1 RETURN count(*) AS n")
    assert dup[0]["n"] == 0
    again = subprocess.run([HOPGRAPH, "ingest", str(folder)], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=600)
    assert again.returncode == 0
    assert store.counts() == counts
    store.close()
    store.server.stop()


class _Lines:
    """A console that keeps what the run prints."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, *args, **kwargs) -> None:
        self.lines.append(" ".join(str(a) for a in args))


def test_dead_llm_endpoint_loses_nothing_and_the_rerun_completes(tmp_path, shared_embedding_cache):
    """Keypoint calls that fail leave documents `partial` (written and linked,
    not complete); ingest stops instead of waiting out every file; a later run
    with a working endpoint finishes them."""
    from kg.llm.client import LLMClient
    from tests.fake_llm import FakeLLM
    from tests.llm_server import ScriptedLLMServer, server_error

    pages = sorted(WIKI.glob("*.txt"))[:4]
    data = tmp_path / ".hopgraph"
    settings = make_settings(data, shared_embedding_cache, ingest={"min_tokens": 16})
    settings.llm.max_retries = 0
    store = FalkorStore(data, graph="test")
    store.ensure_schema()
    with ScriptedLLMServer(responder=lambda body: server_error(500)) as server:
        settings.llm.base_url = server.base_url
        client = LLMClient.from_settings(settings, backoff_base=0.01)
        console = _Lines()
        first = run_ingest(RunContext(settings, store, client=client, console=console), pages)
        assert first.ingested == 0 and first.partial >= 1
        assert first.partial < len(pages)  # it stopped early
        # every file left over is listed with the cause (the server's errors), not a guess
        stopped = [line for line in console.lines if "not finished" in line]
        assert len(stopped) == len(pages) - first.partial
        assert all("server error" in line and "endpoint down?" not in line for line in stopped), stopped
        partial = store.run_text("MATCH (d:Document) WHERE d.partial = true "
                                 "RETURN d.linked AS linked, d.partial_reason AS reason")
        assert len(partial) == first.partial
        assert all(r["linked"] and "server error" in r["reason"] for r in partial)
        server.responder = FakeLLM()
        second = run_ingest(RunContext(settings, store, client=LLMClient.from_settings(settings)), pages)
    assert second.failed == 0 and second.partial == 0
    done = store.run_text("MATCH (d:Document) WHERE d.ingested = true RETURN count(d) AS n")[0]["n"]
    assert done == len(pages)
    assert store.counts()["nodes"].get("Keypoint", 0) > 0
    store.close()
    store.server.stop()


def test_batch_replies_that_leave_passages_out_still_ingest_and_link_everything(tmp_path, shared_embedding_cache):
    """An endpoint whose keypoints_batch replies cover only the first two
    passages (a small model's habit): the rest are asked again in smaller
    batches in the same run, every document ends ingested, complete and
    linked, and a rerun spends no call."""
    import re as _re

    from kg.llm.client import LLMClient
    from tests.fake_llm import FakeLLM
    from tests.llm_server import ScriptedLLMServer

    fake = FakeLLM()

    def first_two(body):
        reply = fake(body)
        data = json.loads(reply) if isinstance(reply, str) else reply
        if isinstance(data, dict) and "passages" in data:
            data["passages"] = data["passages"][:2]
        return data

    wiki = sorted(WIKI.glob("*.txt"))
    pages = []
    for n in range(2):  # two documents of six articles each: many chunks, several batches
        doc = tmp_path / f"doc{n}.txt"
        doc.write_text("\n\n".join(p.read_text(encoding="utf-8") for p in wiki[6 * n:6 * n + 6]), encoding="utf-8")
        pages.append(doc)
    data = tmp_path / ".hopgraph"
    settings = make_settings(data, shared_embedding_cache, ingest={"min_tokens": 16})
    store = FalkorStore(data, graph="test")
    store.ensure_schema()
    with ScriptedLLMServer(responder=first_two) as server:
        settings.llm.base_url = server.base_url
        first = run_ingest(RunContext(settings, store, client=LLMClient.from_settings(settings)), pages, keypoints=True)
        calls = len(server.chat_requests)
        again = run_ingest(RunContext(settings, store, client=LLMClient.from_settings(settings)), [*pages], keypoints=True)
        assert len(server.chat_requests) == calls
    assert first.ingested == len(pages) and first.partial == 0 and first.similar_to > 0
    assert again.unchanged == len(pages)
    docs = store.run_text("MATCH (d:Document) RETURN d.linked AS linked, d.partial AS partial")
    assert docs and all(d["linked"] and not d["partial"] for d in docs)
    covered = store.run_text("MATCH (c:Chunk)-[:HAS_KEYPOINT]->(:Keypoint) RETURN count(DISTINCT c) AS n")[0]["n"]
    assert covered > 2 * len(pages)  # more than the two passages per batch the replies named
    store.close()
    store.server.stop()
