"""Domain and persona: keyword-based offline, one LLM request otherwise."""

from __future__ import annotations

import pytest

from kg.config import LLMConfig
from kg.enrich.domain import infer_domain_persona, top_keywords
from kg.llm import LLMClient

try:
    from tests.llm_server import ScriptedLLMServer, malformed
except ImportError:  # tests/ on sys.path instead of the repo root
    from llm_server import ScriptedLLMServer, malformed  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(60)

TOPICS = [["aviation", "safety", "FAA"], ["Aviation", "pilots", "training"], ["safety", "inspections"], ["2019", "x"]]
REPLY = {"domain": "civil aviation safety regulation",
         "persona": "A safety inspector at an aviation authority who compares incident reports across airlines."}


def responder(body):
    assert any("main topics of a document collection" in m["content"]
               for m in body["messages"] if m["role"] == "system")
    return REPLY


@pytest.fixture
def server():
    with ScriptedLLMServer(responder) as s:
        yield s


@pytest.fixture
def client(server, tmp_path):
    c = LLMClient(LLMConfig(timeout=5.0, max_retries=1), base_url=server.base_url,
                  cache_path=tmp_path / "llm_cache.sqlite", backoff_base=0.01)
    yield c
    c.close()


def test_top_keywords_rank_dedupe_and_skip_noise():
    assert top_keywords(TOPICS, 3) == ["aviation", "safety", "pilots"]
    assert top_keywords([["2019", "a", "  "]], 3) == []


def test_offline_is_grammatical(server):
    out = infer_domain_persona(TOPICS)
    assert out == {"domain": "documents about aviation, safety and pilots",
                   "persona": "an expert reader of aviation and safety",
                   "generator": "offline", "prompt_version": "offline-1"}
    assert infer_domain_persona([["geology"]])["domain"] == "documents about geology"
    assert infer_domain_persona([["geology"]])["persona"] == "an expert reader of geology"
    assert infer_domain_persona([["geology", "rocks"]])["domain"] == "documents about geology and rocks"
    empty = infer_domain_persona([])
    assert empty["domain"] == "general documents" and empty["persona"] == "an expert reader of these documents"
    assert server.chat_requests == []


def test_with_llm_and_cache(server, client):
    out = infer_domain_persona(TOPICS, client=client, titles=["FAA Safety Report 2019"])
    assert out["domain"] == REPLY["domain"] and out["persona"] == REPLY["persona"]
    assert out["generator"] == "gpt-4o-mini" and len(out["prompt_version"]) == 12
    assert len(server.chat_requests) == 1
    user = next(m["content"] for m in server.chat_requests[0].messages if m["role"] == "user")
    assert "topic 1: aviation, safety, FAA" in user and "- FAA Safety Report 2019" in user
    again = infer_domain_persona(TOPICS, client=client, titles=["FAA Safety Report 2019"])
    assert again == out and len(server.chat_requests) == 1


def test_llm_failure_falls_back_offline(server, client):
    server.responder = lambda body: malformed('{"domain": ')
    out = infer_domain_persona(TOPICS, client=client)
    assert out["generator"] == "offline" and out["domain"].startswith("documents about aviation")
    assert out["error"].startswith("invalid json")


def test_one_call_names_each_documents_reader(server, client):
    """A mixed collection: the one request also gives each document title its own domain and persona
    (a retyped title still matches; an unknown title is dropped)."""
    server.responder = lambda body: {**REPLY, "documents": [
        {"title": "faa  safety report 2019", "domain": "aviation safety", "persona": "An FAA inspector."},
        {"title": "Attention Is All You Need", "domain": "neural machine translation",
         "persona": "An NLP researcher comparing translation models."},
        {"title": "A title nobody gave", "domain": "x", "persona": "y"}]}
    out = infer_domain_persona(TOPICS, client=client, titles=["FAA Safety Report 2019", "Attention Is All You Need"])
    assert out["domain"] == REPLY["domain"] and len(server.chat_requests) == 1
    assert out["documents"] == {
        "FAA Safety Report 2019": {"domain": "aviation safety", "persona": "An FAA inspector."},
        "Attention Is All You Need": {"domain": "neural machine translation",
                                      "persona": "An NLP researcher comparing translation models."}}
    system = next(m["content"] for m in server.chat_requests[0].messages if m["role"] == "system")
    assert '"documents"' in system
