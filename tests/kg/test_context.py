"""The run context: one LLM client (and so one budget) per command, none offline,
and a run manifest per stage under the data dir."""

from __future__ import annotations

import json

from kg.config import Settings
from kg.context import RunContext


def test_offline_there_is_no_client(falkor_store, tmp_path, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(store={"data_dir": str(tmp_path / ".hopgraph")})
    ctx = RunContext.open(settings, falkor_store, max_calls=3)
    assert ctx.client is None and not ctx.dry_run


def test_one_client_carries_the_budget_every_stage_shares(falkor_store, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # never called here
    settings = Settings(store={"data_dir": str(tmp_path / ".hopgraph")})
    ctx = RunContext.open(settings, falkor_store, max_calls=3, dry_run=True)
    assert ctx.client is not None and ctx.client.max_calls == 3 and ctx.dry_run


def test_each_stage_writes_its_own_manifest(falkor_store, tmp_path):
    settings = Settings(store={"data_dir": str(tmp_path / ".hopgraph")})
    ctx = RunContext(settings, falkor_store)
    first, second = ctx.manifest("ingest"), ctx.manifest("generate")
    paths = [first.set("summary", {"files": 1}).write(), second.write()]
    written = [json.loads(p.read_text()) for p in paths]
    assert [m["command"] for m in written] == ["ingest", "generate"]
    assert written[0]["summary"] == {"files": 1} and all(p.parent == tmp_path / ".hopgraph" / "runs" for p in paths)
