"""`ingest --executor ray` on a local Ray instance with 2 CPUs: the same graph
and the same dataset (same seed) as the default executor."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from testing_support import CORPUS, ROOT, make_settings, needs_corpus
from kg.context import RunContext

pytestmark = needs_corpus
ray = pytest.importorskip("ray")

WIKI = CORPUS / "text" / "wiki_hotpotqa_train100"


class Quiet:
    def print(self, *args, **kwargs):
        pass


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """A PDF with figures (assets must come back from the workers), wiki pages
    that share entities, and a broken PDF (one failure, the rest goes on)."""
    folder = tmp_path_factory.mktemp("ray-inputs")
    shutil.copy(ROOT / "examples" / "corpus" / "manual_faa_amt_handbook_sample.pdf", folder)
    # In the index's order: the paragraphs of the same HotpotQA questions, which share
    # entities (the first files by name share too few to make 3 chains).
    index = json.loads((WIKI / "_index.json").read_text(encoding="utf-8"))
    for entry in index[:30]:
        shutil.copy(WIKI / entry["file"], folder / entry["file"])
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    return folder


@pytest.fixture(scope="module")
def local_ray():
    # On a loaded machine the raylet gave up waiting for its agents (15 s) and ray.init failed
    # ("Timed out waiting for file .../metrics_agent_port"); give them longer.
    os.environ.setdefault("RAY_agent_register_timeout_ms", "300000")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def build(data_dir: Path, inputs: Path, executor: str) -> dict:
    """ingest + generate (offline) with one executor; what a user would compare."""
    from builders.chains.generate import run_generate
    from kg.pipeline import run_ingest
    from kg.store.falkor import FalkorStore

    settings = make_settings(data_dir, None, ingest={"executor": executor}, generate={"n": 8, "min_hops": 2})
    store = FalkorStore(data_dir, graph="test")
    store.ensure_schema()
    try:
        summary = run_ingest(RunContext.open(settings, store, console=Quiet()), [inputs])
        run_generate(RunContext.open(settings, store, console=Quiet()))
        chains = sorted(json.dumps(r["chain"], sort_keys=True, default=str) for r in store.run("chains_for_export"))
        images = [r["path"] for r in store.run_text("MATCH (i:Image) RETURN i.path AS path", {})]
        return {"summary": summary, "counts": store.counts(), "chains": chains, "images": images}
    finally:
        store.close()
        store.server.stop()


@pytest.fixture(scope="module")
def both(tmp_path_factory, inputs, local_ray):
    return {executor: build(tmp_path_factory.mktemp(executor) / ".hopgraph", inputs, executor)
            for executor in ("local", "ray")}


def test_ray_gives_the_same_graph(both):
    local, on_ray = both["local"], both["ray"]
    assert local["summary"].ingested == 31 and local["summary"].failed == 1
    assert on_ray["summary"].ingested == 31 and on_ray["summary"].failed == 1
    assert on_ray["counts"] == local["counts"]
    assert on_ray["summary"].similar_to == local["summary"].similar_to > 0
    # the text was embedded on the workers: this process embedded only image descriptions
    assert on_ray["summary"].embeddings_computed < local["summary"].embeddings_computed / 4


def test_ray_gives_the_same_dataset_with_the_same_seed(both):
    assert len(both["local"]["chains"]) >= 3, "too few chains generated to compare"
    assert both["ray"]["chains"] == both["local"]["chains"]


def test_images_extracted_on_workers_are_in_the_data_dir(both):
    paths = both["ray"]["images"]
    assert paths and all(Path(p).is_file() and "assets" in Path(p).parts for p in paths)


def test_run_manifest_has_stage_timings_and_the_run_length(both, tmp_path_factory):
    # the manifests of the builds above, newest last
    from kg.runs import latest_manifests

    for executor in ("local", "ray"):
        data = next(Path(p) for p in tmp_path_factory.getbasetemp().glob(f"{executor}*/.hopgraph"))
        manifest = latest_manifests(data, command="ingest")[0]
        stages = manifest["stages"]
        assert {"parse", "chunk", "embed", "entities", "store writes", "knn", "topics"} <= set(stages)
        assert stages["parse"]["items"] >= 15 and stages["embed"]["items"] > 0
        assert manifest["seconds"] >= stages["knn"]["seconds"] > 0


def test_a_long_text_on_ray_goes_in_parts_like_the_local_executor(tmp_path, local_ray, monkeypatch):
    from kg.pipeline import run_ingest, stream
    from kg.store.falkor import FalkorStore

    doc = tmp_path / "long.txt"
    doc.write_text("\n\n".join(p.read_text(encoding="utf-8").strip() for p in sorted(WIKI.glob("*.txt"))[:20]),
                   encoding="utf-8")
    parts_seen: list[int] = []
    original = stream.document_parts
    monkeypatch.setattr(stream, "document_parts", lambda parsed, size: parts_seen.append(size) or original(parsed, size))
    chunks = {}
    for executor in ("local", "ray"):
        data = tmp_path / executor / ".hopgraph"
        settings = make_settings(data, None, ingest={"executor": executor, "min_tokens": 16, "part_chars": 4_000})
        store = FalkorStore(data, graph="test")
        store.ensure_schema()
        try:
            summary = run_ingest(RunContext.open(settings, store, console=Quiet()), [doc])
            assert summary.ingested == 1
            chunks[executor] = store.run_text("MATCH (c:Chunk) RETURN c.index AS index, c.text AS text "
                                              "ORDER BY index", {})
            chain = store.run_text("MATCH (a:Chunk)-[:NEXT]->(b:Chunk) RETURN count(*) AS n", {})
            assert chain == [{"n": len(chunks[executor]) - 1}]
        finally:
            store.close()
            store.server.stop()
    assert parts_seen == [4_000, 4_000], "the text did not go in parts on both executors"
    assert chunks["ray"] == chunks["local"]
