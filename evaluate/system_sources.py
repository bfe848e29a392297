"""Where `hopgraph eval system` gets the answers of the user's RAG system, and how it keeps them.

Three sources, one shape per question: {"id", "answer", "contexts", "steps"?}.

--answers FILE   a JSONL of {"id", "answer", "contexts": [...], "steps"?: [...]} per line.
--endpoint URL   an OpenAI-compatible chat endpoint of the user's app. POST URL/chat/completions
                 with {"model", "messages": [{"role": "user", "content": QUESTION}]}. The answer
                 is choices[0].message.content; contexts and steps are read, first found wins,
                 from a top-level "contexts" / "steps" field of the response JSON, the same
                 fields on choices[0].message, or the content itself when it is a JSON object
                 {"answer", "contexts", "steps"?}. With HOPGRAPH_SYSTEM_API_KEY set, it is
                 sent as a bearer token.
--cmd TEMPLATE   a command run once per question, {question_file} replaced by a JSON file
                 {"id", "question"}; no shell. Its stdout is a JSON object {"answer",
                 "contexts", "steps"?}, or plain text taken as the answer with no contexts.
                 A non-zero exit is that question's failure; the run goes on.

A context is a string (the passage) or {"id"?, "text"?}; a step is {"question"?, "contexts"}.
Every collected answer is appended to OUT/system_answers.jsonl the moment it arrives, so a
rerun (or a resumed run) asks the user's system only for the questions still missing.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from evaluate.errors import DatasetError
from kg.errors import HopgraphError

COLLECTED = "system_answers.jsonl"


class SystemContext(BaseModel):
    id: str | None = None
    text: str = ""


class SystemStep(BaseModel):
    question: str = ""
    contexts: list[SystemContext] = Field(default_factory=list)


class SystemAnswer(BaseModel):
    """The system's reply to one question."""

    id: str
    answer: str = ""
    contexts: list[SystemContext] = Field(default_factory=list)
    steps: list[SystemStep] | None = None


class SourceFailure(HopgraphError):
    """One question the system did not answer (the reason is kept in results.jsonl)."""


def _context(item: Any) -> SystemContext:
    if isinstance(item, str):
        return SystemContext(text=item)
    if isinstance(item, dict):
        ident = item.get("id") or item.get("chunk_id") or item.get("image_id")
        return SystemContext(id=str(ident) if ident else None,
                             text=str(item.get("text") or item.get("page_content") or item.get("content") or ""))
    raise ValueError(f"a context must be a string or an object, got {type(item).__name__}")


def answer_from(ident: str, data: dict[str, Any]) -> SystemAnswer:
    """{"answer", "contexts", "steps"?} -> SystemAnswer; raises ValueError on a wrong shape."""
    contexts = data.get("contexts") or []
    if not isinstance(contexts, list):
        raise ValueError("contexts must be a list")
    steps = data.get("steps")
    if steps is not None and not isinstance(steps, list):
        raise ValueError("steps must be a list")
    return SystemAnswer(
        id=ident, answer=str(data.get("answer") or ""), contexts=[_context(c) for c in contexts],
        steps=None if steps is None else [SystemStep(question=str(s.get("question") or ""),
                                                      contexts=[_context(c) for c in s.get("contexts") or []])
                                          for s in steps if isinstance(s, dict)])


def read_answers_file(path: Path) -> dict[str, SystemAnswer]:
    """--answers FILE; a bad line is a DatasetError naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such answers file")
    answers: dict[str, SystemAnswer] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or "id" not in data:
                raise ValueError("not an object with an id")
            answers[str(data["id"])] = answer_from(str(data["id"]), data)
        except (json.JSONDecodeError, ValueError, ValidationError, AttributeError) as exc:
            raise DatasetError(f"{path}:{number}: not an answer line ({str(exc).splitlines()[0]})") from None
    return answers


def _first(*candidates: Any) -> Any:
    return next((c for c in candidates if c is not None), None)


def endpoint_source(url: str, model: str, timeout: float = 120.0) -> Callable[[str, str], SystemAnswer]:
    """Ask an OpenAI-compatible chat endpoint; see the module docstring for where contexts come from."""
    import os

    import httpx

    target = url.rstrip("/") + "/chat/completions"
    key = os.environ.get("HOPGRAPH_SYSTEM_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    def ask(ident: str, question: str) -> SystemAnswer:
        try:
            response = httpx.post(target, timeout=timeout, headers=headers, json={
                "model": model, "messages": [{"role": "user", "content": question}]})
            response.raise_for_status()
            body = response.json()
            message = body["choices"][0]["message"]
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise SourceFailure(f"{target}: {type(exc).__name__}: {str(exc)[:200]}") from None
        content = message.get("content") or ""
        inner: dict[str, Any] = {}
        if content.strip().startswith("{"):
            try:
                parsed = json.loads(content)
                inner = parsed if isinstance(parsed, dict) and "answer" in parsed else {}
            except json.JSONDecodeError:
                inner = {}
        data = {"answer": inner.get("answer", content) if inner else content,
                "contexts": _first(body.get("contexts"), message.get("contexts"), inner.get("contexts")),
                "steps": _first(body.get("steps"), message.get("steps"), inner.get("steps"))}
        try:
            return answer_from(ident, data)
        except (ValueError, ValidationError) as exc:
            raise SourceFailure(f"{target}: reply has {str(exc).splitlines()[0]}") from None

    return ask


def command_source(template: str, timeout: float = 300.0) -> Callable[[str, str], SystemAnswer]:
    """Run the command per question; see the module docstring for its stdout contract."""
    if "{question_file}" not in template:
        raise DatasetError(f"--cmd {template!r}: the template must contain {{question_file}}")
    parts = shlex.split(template)

    def ask(ident: str, question: str) -> SystemAnswer:
        with tempfile.TemporaryDirectory(prefix="hopgraph-q-") as folder:
            question_file = Path(folder) / "question.json"
            question_file.write_text(json.dumps({"id": ident, "question": question}), encoding="utf-8")
            argv = [p.replace("{question_file}", str(question_file)) for p in parts]
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise SourceFailure(f"{argv[0]}: {exc}") from None
        if done.returncode != 0:
            raise SourceFailure(f"{argv[0]} exited {done.returncode}: {done.stderr.strip()[-300:]}")
        out = done.stdout.strip()
        try:
            data = json.loads(out) if out.startswith("{") else {"answer": out}
            return answer_from(ident, data if isinstance(data, dict) else {"answer": out})
        except (json.JSONDecodeError, ValueError, ValidationError) as exc:
            raise SourceFailure(f"{argv[0]}: stdout is not an answer ({str(exc).splitlines()[0]})") from None

    return ask


class AnswerStore:
    """OUT/system_answers.jsonl: answers already collected, appended one line at a time."""

    def __init__(self, out_dir: Path, source: str) -> None:
        self.path = Path(out_dir) / COLLECTED
        self.source = source
        self.answers: dict[str, SystemAnswer] = {}
        if self.path.is_file():
            text = self.path.read_text(encoding="utf-8")
            if text and not text.endswith("\n"):  # a line cut by a killed run: the next one starts afresh
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write("\n")
            for line in text.splitlines():
                try:
                    data = json.loads(line)
                    if data.get("source") == source:  # answers of another system are not reused
                        self.answers[data["id"]] = SystemAnswer.model_validate(data["reply"])
                except (json.JSONDecodeError, KeyError, ValidationError, AttributeError):
                    continue  # a line cut by a killed run: that question is asked again

    def add(self, answer: SystemAnswer) -> None:
        self.answers[answer.id] = answer
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"source": self.source, "id": answer.id, "reply": answer.model_dump()},
                                    ensure_ascii=False) + "\n")


def collect(questions: Iterable[tuple[str, str]], ask: Callable[[str, str], SystemAnswer], store: AnswerStore,
            on_done: Callable[[], None] | None = None) -> tuple[dict[str, SystemAnswer], dict[str, str], int]:
    """Answers for every (id, question), asking only for those not yet in `store`; failures by id;
    how many questions were sent to the system this run."""
    failures: dict[str, str] = {}
    asked = 0
    for ident, question in questions:
        if ident not in store.answers:
            try:
                store.add(ask(ident, question))
                asked += 1
            except SourceFailure as exc:
                failures[ident] = str(exc)
        if on_done:
            on_done()
    return store.answers, failures, asked
