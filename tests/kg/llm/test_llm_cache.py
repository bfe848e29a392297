"""The reply cache (keys, durability, SIGKILL resume) and the prompt files that feed its keys."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kg.config import LLMConfig
from kg.llm import Keypoints, LLMCache, LLMClient, LLMRequest, PromptError, cache_key, load_prompt
from kg.llm.prompts import PACKAGED_PROMPTS, packaged_tasks
from kg.llm.structured import TASK_SCHEMAS

try:
    from tests.llm_server import ScriptedLLMServer, ok
except ImportError:
    from llm_server import ScriptedLLMServer, ok  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(60)

REPO = Path(__file__).resolve().parents[3]
KP = {"keypoints": ["Mount Everest is 8,849 metres high."]}
MSGS = [{"role": "user", "content": "hello"}]
PARAMS = {"temperature": 0.0, "max_tokens": None, "response_format": "auto", "schema": "Keypoints:abc"}


# Keys ------------------------------------------------------------------------

def test_key_is_deterministic_and_order_independent():
    a = cache_key("m", MSGS, {"temperature": 0.0, "response_format": "auto"}, "v1")
    b = cache_key("m", [{"content": "hello", "role": "user"}], {"response_format": "auto", "temperature": 0.0}, "v1")
    assert a == b and len(a) == 64


@pytest.mark.parametrize(
    "change",
    [
        {"model": "other"},
        {"messages": [{"role": "user", "content": "hello!"}]},
        {"params": {**PARAMS, "temperature": 0.7}},
        {"params": {**PARAMS, "response_format": "json_object"}},
        {"prompt_version": "v2"},
    ],
)
def test_key_changes_with_every_component(change):
    base = {"model": "m", "messages": MSGS, "params": PARAMS, "prompt_version": "v1"}
    assert cache_key(**base) != cache_key(**{**base, **change})


# Storage -------------------------------------------------------------------

def test_put_get_roundtrip_wal_and_persistence(tmp_path):
    path = tmp_path / "sub" / "llm_cache.sqlite"
    with LLMCache(path) as cache:
        assert cache.get("k") is None
        cache.put("k", '{"a": 1}', 12, 3, task="keypoints", model="m", prompt_version="v1")
        hit = cache.get("k")
        assert (hit.content, hit.tokens_in, hit.tokens_out) == ('{"a": 1}', 12, 3)
        # Committed at once: another connection sees it while this one is open.
        other = sqlite3.connect(path)
        assert other.execute("SELECT count(*) FROM replies").fetchone()[0] == 1
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        other.close()
        assert len(cache) == 1 and cache.stats() == {"keypoints": 1}
    with LLMCache(path) as again:
        assert again.get("k").content == '{"a": 1}'


def _client(server, path, **kw) -> LLMClient:
    return LLMClient(LLMConfig(concurrency=1), base_url=server.base_url, cache_path=path, backoff_base=0.01, **kw)


def _req(i=0, version="v1", temperature=None) -> LLMRequest:
    return LLMRequest("keypoints", "generator", [{"role": "user", "content": f"p{i}"}], Keypoints, "kp", version,
                      temperature=temperature)


def test_second_identical_call_is_a_cache_hit(tmp_path):
    with ScriptedLLMServer(responder=lambda body: ok(KP, 11, 4)) as server:
        first = _client(server, tmp_path / "c.sqlite").run_many([_req()])[0]
        client = _client(server, tmp_path / "c.sqlite")
        second = client.run_many([_req()])[0]
        assert first.ok and not first.cached
        assert second.ok and second.cached and second.value == first.value
        assert (second.usage.tokens_in, second.usage.tokens_out) == (11, 4)  # what it cost originally
        assert len(server.requests) == 1
        stats = client.accounting.of("kp", "generator")
        assert (stats.calls, stats.cache_hits, stats.tokens_in) == (0, 1, 0)
        # Different temperature or prompt version: a different entry.
        client.run_many([_req(temperature=0.5), _req(version="v2")])
        assert len(server.requests) == 3


def test_no_cache_bypasses_reads_and_writes(tmp_path):
    path = tmp_path / "c.sqlite"
    with ScriptedLLMServer(responder=lambda body: ok(KP)) as server:
        _client(server, path).run_many([_req(0)])
        fresh = _client(server, path, no_cache=True)
        assert fresh.cache is None
        assert not fresh.run_many([_req(0)])[0].cached  # read bypassed
        fresh.run_many([_req(1)])
        assert len(server.requests) == 3
    with LLMCache(path) as cache:
        assert len(cache) == 1  # write bypassed: only the first client's entry


def test_config_cache_false_means_no_cache(tmp_path):
    client = LLMClient(LLMConfig(cache=False), base_url="http://127.0.0.1:9/v1", cache_path=tmp_path / "c.sqlite")
    assert client.no_cache and client.cache is None


def test_entry_that_no_longer_validates_is_refetched(tmp_path):
    path = tmp_path / "c.sqlite"
    with ScriptedLLMServer(responder=lambda body: ok(KP)) as server:
        client = _client(server, path)
        client.run_many([_req()])
        with LLMCache(path) as cache:  # corrupt the stored reply
            cache._db.execute("UPDATE replies SET content = '{\"wrong\": 1}'")
        again = _client(server, path).run_many([_req()])[0]
        assert again.ok and not again.cached and len(server.requests) == 2


def test_prompt_edit_invalidates_only_that_prompt(tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    packaged = (PACKAGED_PROMPTS / "keypoints.md").read_text()
    (prompts / "keypoints.md").write_text(packaged)
    args = dict(title="T", section="", text="Everest is high.")
    with ScriptedLLMServer(responder=lambda body: ok(KP)) as server:
        client = _client(server, tmp_path / "c.sqlite")
        client.run_many([LLMRequest.for_task("keypoints", "generator", "kp", prompts_dir=prompts, **args)])
        client.run_many([LLMRequest.for_task("keypoints", "generator", "kp", prompts_dir=prompts, **args)])
        assert len(server.requests) == 1
        (prompts / "keypoints.md").write_text(packaged.replace("You extract facts", "You carefully extract facts"))
        r = client.run_many([LLMRequest.for_task("keypoints", "generator", "kp", prompts_dir=prompts, **args)])[0]
        assert not r.cached and len(server.requests) == 2


# SIGKILL mid-run -------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import sys
    from kg.config import LLMConfig
    from kg.llm import Keypoints, LLMClient, LLMRequest

    base_url, cache_path = sys.argv[1], sys.argv[2]
    client = LLMClient(LLMConfig(concurrency=1), base_url=base_url, cache_path=cache_path)
    requests = [
        LLMRequest("keypoints", "generator", [{"role": "user", "content": f"passage {i}"}], Keypoints, "kp", "v1")
        for i in range(20)
    ]
    results = client.run_many(requests)
    print(sum(r.ok for r in results), sum(r.cached for r in results), flush=True)
    """
)


def _run_child(server, cache_path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, server.base_url, str(cache_path)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def test_sigkill_loses_nothing_already_paid_for(tmp_path):
    cache_path = tmp_path / "llm_cache.sqlite"
    with ScriptedLLMServer(responder=lambda body: ok(KP), latency=0.2) as server:
        child = _run_child(server, cache_path)
        deadline = time.monotonic() + 30
        while len(server.requests) < 7 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert child.poll() is None, child.communicate()
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        seen_at_kill = len(server.requests)
        assert 7 <= seen_at_kill < 20

        rerun = _run_child(server, cache_path)
        out, err = rerun.communicate(timeout=30)
        assert rerun.returncode == 0, err
        ok_count, cached = map(int, out.split())
        assert ok_count == 20
        # Every reply that arrived before the kill was committed; at most the one
        # request in flight at the kill (concurrency 1) is paid for twice.
        total = len(server.requests)
        assert 20 <= total <= 21
        assert cached == 20 - (total - seen_at_kill)
        assert cached >= seen_at_kill - 1


# Prompt files ----------------------------------------------------------------

def test_every_packaged_prompt_loads_and_renders():
    assert packaged_tasks() == sorted(TASK_SCHEMAS)
    for task in packaged_tasks():
        prompt = load_prompt(task)
        assert prompt.system and prompt.user_template and len(prompt.version) == 12
        messages = prompt.render(**{name: f"<{name}>" for name in prompt.variables})
        assert [m["role"] for m in messages] == ["system", "user"]
        assert "$" not in messages[1]["content"].replace("$$", "")
        # each prompt spells out its JSON reply keys for endpoints without json_schema
        for key in TASK_SCHEMAS[task].model_fields:
            if key != "reasons":
                assert f'"{key}"' in prompt.system, (task, key)


def test_prompt_override_version_and_braces(tmp_path):
    (tmp_path / "keypoints.md").write_text(
        'my notes\n---system---\nReturn {"keypoints": [...]} only.\n---user---\nText: $text\nCost: $$5 {literal}\n'
    )
    prompt = load_prompt("keypoints", tmp_path)
    assert prompt.path == tmp_path / "keypoints.md"
    assert prompt.version != load_prompt("keypoints").version
    messages = prompt.render(text="Everest", unused="ignored")
    assert messages[0]["content"] == 'Return {"keypoints": [...]} only.'
    assert messages[1]["content"] == "Text: Everest\nCost: $5 {literal}"
    # Other tasks still come from the package.
    assert load_prompt("verify_chain", tmp_path).path.parent == PACKAGED_PROMPTS


def test_prompt_render_images_lists_and_errors(tmp_path):
    prompt = load_prompt("verbalize_chain")
    hops = [{"index": 0, "evidence": "A", "bridge": "B"}]
    messages = prompt.render(images=["data:image/png;base64,AAA"], domain="d", persona="p", graph_type="text_chain",
                             hops=hops)
    parts = messages[1]["content"]
    assert parts[0]["type"] == "text" and json.dumps(hops, indent=2) in parts[0]["text"]
    assert parts[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}
    with pytest.raises(PromptError, match="hops"):
        prompt.render(domain="d", persona="p", graph_type="text_chain")
    (tmp_path / "keypoints.md").write_text("---system---\nonly a system part\n")
    with pytest.raises(PromptError, match="user"):
        load_prompt("keypoints", tmp_path)
    with pytest.raises(PromptError):
        load_prompt("no_such_task")
