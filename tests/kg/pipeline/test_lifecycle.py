"""A corpus that changes, on real FalkorDB: one Document per path, no chunk of
an old version in the graph or in an accepted chain, renamed files move,
identical content under two paths is reported with both, `--sync` and
`hopgraph remove` take documents out, and the audits still pass."""

from __future__ import annotations

import pytest

from testing_support import make_settings
from kg.pipeline import run_ingest
from kg.store.falkor import FalkorStore
from kg.context import RunContext
from tests.hopgraph.faults_support import WIKI_DIR, hopgraph, wiki_docs

pytestmark = [pytest.mark.timeout(600),
              pytest.mark.skipif(not WIKI_DIR.is_dir(), reason="shared wiki corpus not found")]


class Console:
    def __init__(self):
        self.lines = []

    def print(self, text="", **_):
        self.lines.append(str(text))

    @property
    def text(self):
        return "\n".join(self.lines)


def q(store, text, **params):
    return store.run_text(text, params)


@pytest.fixture
def corpus(tmp_path, monkeypatch, shared_embedding_cache):
    """30 wiki pages ingested and 5 text chains generated offline, run from the corpus folder."""
    from builders.chains.generate import run_generate

    monkeypatch.chdir(tmp_path)
    wiki_docs(tmp_path / "docs", 30)
    settings = make_settings(tmp_path / ".hopgraph", shared_embedding_cache)
    settings.generate.types = ["text_chain"]
    settings.generate.n = 5
    store = FalkorStore(settings.store.data_dir, graph="test")
    store.ensure_schema()
    run_ingest(RunContext.open(settings, store, console=Console()), [tmp_path / "docs"])
    run_generate(RunContext.open(settings, store, console=Console()))
    yield settings, store, tmp_path
    store.close()
    store.server.stop()


def chain_docs(store) -> dict[str, set[str]]:
    rows = q(store, "MATCH (c:Chain {status: 'accepted'})-[:HAS_HOP]->(:Hop)-[:USES]->()-[:PART_OF]->(d:Document) "
                    "RETURN c.id AS c, d.path AS p")
    found: dict[str, set[str]] = {}
    for r in rows:
        found.setdefault(r["p"], set()).add(r["c"])
    return found


def assert_consistent(store):
    from queries.audit import run_audits

    paths = [r["p"] for r in q(store, "MATCH (d:Document) RETURN d.path AS p")]
    assert len(paths) == len(set(paths)), "two Documents for one path"
    assert not q(store, "MATCH (c:Chunk) WHERE NOT (c)-[:PART_OF]->(:Document) RETURN c.id AS id")
    assert not q(store, "MATCH (k:Keypoint) WHERE NOT ()-[:HAS_KEYPOINT]->(k) RETURN k.id AS id")
    assert not q(store, "MATCH (e:Entity) WHERE NOT (e)<-[:MENTIONS]-() AND NOT (e)<-[:BRIDGES]-() RETURN e.id AS id")
    assert not q(store, "MATCH (c:Chunk)-[:IN_TOPIC]->(t:Topic) WITH t, count(c) AS n WHERE n <> t.size "
                        "RETURN t.id AS id"), "topic sizes not recomputed"
    assert not run_audits(store).failed


def test_changed_renamed_duplicate_and_synced_files(corpus):
    settings, store, root = corpus
    used = chain_docs(store)
    assert used, "the offline run made no chain to go stale"
    edited_path = sorted(used)[0]
    edited = root / edited_path
    old_id = q(store, "MATCH (d:Document {path: $p}) RETURN d.id AS id", p=edited_path)[0]["id"]
    edited.chmod(0o644)
    edited.write_text(edited.read_text() + "\nA sentence added later about the Brandenburg Gate.\n")
    renamed = next(p for p in sorted((root / "docs").glob("*.txt")) if f"docs/{p.name}" not in used)
    renamed.rename(root / "docs" / f"renamed_{renamed.name}")
    twin = root / "docs" / "twin_copy.txt"
    twin.write_bytes((root / "docs" / f"renamed_{renamed.name}").read_bytes())
    deleted = next(p for p in sorted((root / "docs").glob("*.txt"))
                   if f"docs/{p.name}" not in used and p != twin and not p.name.startswith("renamed_"))
    deleted.unlink()

    out = Console()
    summary = run_ingest(RunContext.open(settings, store, console=out), [root / "docs"], sync=True)

    assert summary.replaced == 1 and summary.moved == 1 and summary.removed == 1
    assert summary.duplicate == 1 and summary.stale_chains == len(used[edited_path])
    # the changed file: one Document, the new content, no chunk of the old version
    docs = q(store, "MATCH (d:Document {path: $p}) RETURN d.id AS id", p=edited_path)
    assert len(docs) == 1 and docs[0]["id"] != old_id
    assert not q(store, "MATCH (c:Chunk {doc_id: $id}) RETURN c.id AS id", id=old_id)
    assert q(store, "MATCH (c:Chunk {doc_id: $id}) WHERE c.text CONTAINS 'Brandenburg' RETURN c.id AS id",
             id=docs[0]["id"])
    stale = {r["id"] for r in q(store, "MATCH (c:Chain {status: 'stale'}) RETURN c.id AS id")}
    assert stale == used[edited_path]
    assert edited_path not in chain_docs(store)  # no accepted chain quotes the old version
    # the renamed file moved, the twin is reported with both paths, the deleted one is gone
    paths = {r["p"] for r in q(store, "MATCH (d:Document) RETURN d.path AS p")}
    assert f"docs/renamed_{renamed.name}" in paths and f"docs/{renamed.name}" not in paths
    assert "docs/twin_copy.txt" not in paths and f"docs/{deleted.name}" not in paths
    twin_line = next(l for l in out.lines if "twin_copy.txt" in l)
    assert f"renamed_{renamed.name}" in twin_line and "same content" in twin_line
    assert any(f"moved from docs/{renamed.name}" in l for l in out.lines)
    assert_consistent(store)
    from builders.dedup import run_dedup

    run_dedup(RunContext.open(settings, store))  # dedup regroups: a stale chain never comes back as accepted
    assert {r["id"] for r in q(store, "MATCH (c:Chain {status: 'stale'}) RETURN c.id AS id")} == stale
    assert not q(store, "MATCH (c:Chain {status: 'stale'})-[:DUPLICATE_OF]-() RETURN c.id AS id")

    again = run_ingest(RunContext.open(settings, store, console=Console()), [root / "docs"], sync=True)
    assert again.ingested == 0 and again.replaced == 0 and again.removed == 0


def test_export_skips_stale_chains(corpus, tmp_path):
    from builders.export import run_export

    settings, store, root = corpus
    before = run_export(RunContext(settings, store), tmp_path / "out1").records
    path = sorted(chain_docs(store))[0]
    stale = len(chain_docs(store)[path])
    # the CLI, as a user runs it, on the same data dir (it reuses the running server)
    proc = hopgraph(["--data-dir", str(settings.store.data_dir), "remove", path], root,
                    {"HOPGRAPH_STORE__GRAPH": "test"})
    assert proc.returncode == 0, proc.stderr
    assert f"removed {path}" in proc.stderr and f"{stale} chains marked stale" in proc.stderr
    report = run_export(RunContext(settings, store), tmp_path / "out2")
    assert report.records == before - stale
    assert report.skipped["stale"] == stale
    assert not [w for w in report.warnings if "status" in w]  # stale is a known status, not a surprise
    assert not q(store, "MATCH (d:Document {path: $p}) RETURN d.id AS id", p=path)
    assert_consistent(store)


def test_stale_chains_leave_dedup_and_their_duplicates_come_back(falkor_store):
    """Chain A (kept) quotes doc1, B is A's duplicate quoting doc2, C quotes doc1 and is a
    duplicate of D (doc2). Removing doc1: A and C stale, their DUPLICATE_OF edges gone,
    B accepted again (for the next dedup), D untouched; dedup's reset cannot revive A or C."""
    from kg.pipeline.lifecycle import remove_documents

    s = falkor_store
    s.run_text("CREATE (:Document {id: 'd1', path: 'one.md'}), (:Document {id: 'd2', path: 'two.md'})")
    s.run_text("MATCH (d1:Document {id: 'd1'}), (d2:Document {id: 'd2'}) "
               "CREATE (:Chunk {id: 'c1'})-[:PART_OF]->(d1), (:Chunk {id: 'c2'})-[:PART_OF]->(d2)")
    for chain, chunk, status in (("A", "c1", "accepted"), ("B", "c2", "duplicate"),
                                 ("C", "c1", "duplicate"), ("D", "c2", "accepted")):
        s.run_text("MATCH (c:Chunk {id: $chunk}) CREATE (:Chain {id: $id, status: $status})"
                   "-[:HAS_HOP]->(:Hop {id: $id + ':0'})-[:USES]->(c)", {"id": chain, "chunk": chunk, "status": status})
    s.run_text("MATCH (a:Chain {id: 'A'}), (b:Chain {id: 'B'}), (c:Chain {id: 'C'}), (d:Chain {id: 'D'}) "
               "CREATE (b)-[:DUPLICATE_OF]->(a), (c)-[:DUPLICATE_OF]->(d)")

    stale = remove_documents(s, [{"id": "d1", "reason": "one.md was removed"}])

    status = {r["id"]: r["status"] for r in s.run_text("MATCH (c:Chain) RETURN c.id AS id, c.status AS status")}
    assert stale == 2 and status == {"A": "stale", "B": "accepted", "C": "stale", "D": "accepted"}
    assert not s.run_text("MATCH ()-[e:DUPLICATE_OF]->() RETURN count(e) AS n")[0]["n"]
    s.run("clear_duplicates")
    assert s.run_text("MATCH (c:Chain {status: 'stale'}) RETURN count(c) AS n")[0]["n"] == 2
    assert not s.run_text("MATCH (n) WHERE n.id IN ['d1', 'c1'] RETURN n.id AS id")
