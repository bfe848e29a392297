"""The three ways `eval system` reaches a RAG system: the contracts of evaluate.system_sources."""

from __future__ import annotations

import json
import sys

import pytest

from evaluate.errors import DatasetError
from evaluate.system_sources import (AnswerStore, SourceFailure, collect, command_source, endpoint_source,
                                     read_answers_file)
from tests.llm_server import ScriptedLLMServer, ok, server_error


def test_endpoint_contexts_may_come_inside_a_json_content():
    reply = {"answer": "Paris", "contexts": ["Paris is the capital.", {"id": "c7", "text": "France..."}],
             "steps": [{"question": "capital?", "contexts": ["Paris is the capital."]}]}
    with ScriptedLLMServer(responder=lambda body: ok(reply)) as server:
        answer = endpoint_source(server.base_url, "my-rag")("q1", "What is the capital of France?")
        sent = server.chat_requests[0]
    assert sent.model == "my-rag" and sent.messages == [{"role": "user", "content": "What is the capital of France?"}]
    assert answer.answer == "Paris" and [c.text for c in answer.contexts][0] == "Paris is the capital."
    assert answer.contexts[1].id == "c7" and answer.steps[0].question == "capital?"


def test_endpoint_plain_content_is_the_answer_and_a_server_error_is_that_questions_failure():
    with ScriptedLLMServer(responder=lambda body: ok("Just Paris.")) as server:
        ask = endpoint_source(server.base_url, "m", timeout=5)
        assert ask("q1", "?").answer == "Just Paris." and ask("q1", "?").contexts == []
        server.script(server_error(500))
        with pytest.raises(SourceFailure, match="500"):
            ask("q2", "?")


def test_answers_file_bad_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "a", "answer": "x", "contexts": []}\n{"id": "b", "contexts": "not a list"}\n')
    with pytest.raises(DatasetError, match=r"answers.jsonl:2: not an answer line \(contexts must be a list\)"):
        read_answers_file(path)
    with pytest.raises(DatasetError, match="no such answers file"):
        read_answers_file(tmp_path / "missing.jsonl")


def test_command_template_needs_the_placeholder_and_plain_stdout_is_the_answer(tmp_path):
    with pytest.raises(DatasetError, match="must contain"):
        command_source("python my_rag.py")
    ask = command_source(f"{sys.executable} -c \"import json,sys; print(json.load(open(sys.argv[1]))['question'])\" "
                         "{question_file}")
    assert ask("q1", "echo me").answer == "echo me"


def test_collected_answers_are_kept_per_source_and_a_cut_line_is_asked_again(tmp_path):
    asked = []

    def ask(ident, question):
        asked.append(ident)
        from evaluate.system_sources import SystemAnswer
        return SystemAnswer(id=ident, answer=question.upper())

    collect([("a", "x"), ("b", "y")], ask, AnswerStore(tmp_path, "cmd:one"))
    with (tmp_path / "system_answers.jsonl").open("a") as handle:
        handle.write('{"source": "cmd:one", "id": "c", "reply": {"id": "c", "ans')  # a run killed mid-line
    answers, failures, sent = collect([("a", "x"), ("b", "y"), ("c", "z")], ask, AnswerStore(tmp_path, "cmd:one"))
    assert asked == ["a", "b", "c"] and sent == 1 and answers["c"].answer == "Z" and failures == {}
    _, _, sent = collect([("a", "x"), ("b", "y"), ("c", "z")], ask, AnswerStore(tmp_path, "cmd:one"))
    assert sent == 0  # c's answer was kept on a line of its own
    _, _, sent = collect([("a", "x")], ask, AnswerStore(tmp_path, "cmd:other"))  # another system: asked anew
    assert sent == 1 and json.loads((tmp_path / "system_answers.jsonl").read_text().splitlines()[-1])["source"] == \
        "cmd:other"
