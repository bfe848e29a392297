"""`ingest --dry-run`: an estimate of the LLM calls and tokens, with nothing written or spent."""

from __future__ import annotations

import io

from rich.console import Console

from kg.ids import sha256_bytes
from kg.pipeline.dry_run import estimate_ingest
from testing_support import make_settings

PARAGRAPH = "The North Bay survey measured the depth of the shallow water every spring for ten years. " * 6


def folder(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, n in (("a.txt", 3), ("b.txt", 5)):
        (docs / name).write_text("\n\n".join(f"Part {i}. {PARAGRAPH}" for i in range(n)))
    (docs / "broken.txt").write_bytes(b"\xff\xfe not text")
    return docs


def run(tmp_path, files, done=None, **llm):
    settings = make_settings(tmp_path / ".hopgraph", llm={"keypoints_batch": 2, **llm})
    out = io.StringIO()
    result = estimate_ingest(settings, files, done or {}, True, True, Console(file=out, width=200))
    return result, out.getvalue()


def test_without_an_llm_nothing_is_estimated(tmp_path):
    docs = folder(tmp_path)
    result, printed = run(tmp_path, sorted(docs.iterdir()))
    assert (result.calls, result.tokens) == (0, 0)
    assert "no LLM configured" in printed


def test_the_estimate_grows_with_the_documents_and_skips_what_is_done(tmp_path):
    docs = folder(tmp_path)
    llm = {"base_url": "http://127.0.0.1:9/v1"}  # never contacted: a dry run sends nothing
    one, _ = run(tmp_path, [docs / "a.txt"], **llm)
    both, printed = run(tmp_path, [docs / "a.txt", docs / "b.txt", docs / "broken.txt"], **llm)
    assert one.calls >= 2 and both.calls > one.calls and both.tokens > one.tokens
    assert f"about {both.calls} LLM calls and {both.tokens} tokens" in printed
    done = {sha256_bytes((docs / "b.txt").read_bytes())[:16]: {"ingested": True}}
    again, _ = run(tmp_path, [docs / "a.txt", docs / "b.txt"], done, **llm)
    assert again == one  # an ingested file costs nothing
    assert not (tmp_path / ".hopgraph").exists()  # nothing written
