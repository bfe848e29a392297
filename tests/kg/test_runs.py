"""Run manifests under <data_dir>/runs/."""

from __future__ import annotations

import json
import re

from kg.config import LLMConfig, Settings, StoreConfig
from kg.llm import Accounting
from kg.runs import RunManifest, config_summary, latest_manifests


def accounting(calls: int, hits: int, fail: str | None = None) -> dict:
    acc = Accounting()
    for _ in range(calls):
        acc.record_call("keypoints", "generator", 100, 20)
    for _ in range(hits):
        acc.record_cache_hit("keypoints", "generator")
    if fail:
        acc.record_failure("describe", "vision", fail)
    return acc.to_dict()


def test_write_and_read_back(tmp_path):
    m = RunManifest(tmp_path, "ingest")
    m.set("documents", 3).count("chunks", 10).count("chunks", 5)
    m.add_llm(accounting(2, 1))
    m.add_llm(accounting(1, 0, fail="refusal"))
    path = m.write()
    assert path.parent == tmp_path / "runs"
    assert re.fullmatch(r"\d{8}T\d{12}Z-ingest\.json", path.name)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind
    data = json.loads(path.read_text())
    assert data["command"] == "ingest" and data["documents"] == 3
    assert data["counts"] == {"chunks": 15}
    assert data["started"].endswith("Z") and data["finished"] >= data["started"]
    assert data["llm"]["total"]["calls"] == 3 and data["llm"]["total"]["cache_hits"] == 1
    assert data["llm"]["stages"]["describe/vision"]["failure_reasons"] == {"refusal": 1}
    assert "config" not in data
    # rewriting keeps the same file
    m.set("documents", 4)
    assert m.write() == path and json.loads(path.read_text())["documents"] == 4


def test_latest_manifests_newest_first(tmp_path):
    assert latest_manifests(tmp_path) == []
    paths = [RunManifest(tmp_path, cmd).write() for cmd in ("ingest", "generate", "export")]
    (tmp_path / "runs" / "zzz-broken.json").write_text("{not json")
    got = latest_manifests(tmp_path)
    assert [d["command"] for d in got] == ["export", "generate", "ingest"]
    assert got[0]["file"] == str(paths[-1])
    assert [d["command"] for d in latest_manifests(tmp_path, limit=1)] == ["export"]
    assert [d["command"] for d in latest_manifests(tmp_path, command="ingest")] == ["ingest"]


def test_same_second_runs_do_not_collide(tmp_path):
    a, b = RunManifest(tmp_path, "dedup"), RunManifest(tmp_path, "dedup")
    b.started = a.started
    assert a.write() != b.write()


def test_no_secrets_in_manifest(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-very-secret-key")
    monkeypatch.setenv("NEO4J_PASSWORD", "hunter2-neo")
    settings = Settings(llm=LLMConfig(base_url="http://user:pa55word@llm.local:8000/v1"),
                        store=StoreConfig(data_dir=tmp_path))
    m = RunManifest(tmp_path, "build all", config=settings)
    m.set("note", "key was sk-test-very-secret-key")
    m.set("extra", {"api_key": "abc123", "password": "xyz", "tokens_per_minute": 5, "authors": ["A. B."]})
    text = m.write().read_text()
    for secret in ("sk-test-very-secret-key", "hunter2-neo", "pa55word", "abc123", "xyz"):
        assert secret not in text
    data = json.loads(text)
    assert data["config"]["llm"]["base_url"] == "http://llm.local:8000/v1"
    assert data["config"]["store"]["data_dir"] == str(tmp_path)
    assert data["extra"]["tokens_per_minute"] == 5 and data["extra"]["authors"] == ["A. B."]
    assert m.path.name.endswith("-build-all.json")


def test_config_summary_from_dict():
    assert config_summary({"llm": {"api_key": "k", "model": "m"}}) == {"llm": {"api_key": "****", "model": "m"}}
