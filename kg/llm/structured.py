"""Structured output: one pydantic model per task, and tolerant reply parsing.

Endpoints differ in how well they honour a JSON schema (OpenAI does,
vLLM/Ollama mostly do, llama.cpp servers and small models often wrap JSON in
prose or code fences). So the request asks for the strongest format the
endpoint accepts, and the reply is always parsed tolerantly, then validated
against the task's model. Validation, not the endpoint, is the contract.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

FormatMode = Literal["json_schema", "json_object", "none"]
# Strongest first; an endpoint that rejects one is moved to the next.
FORMAT_MODES: tuple[FormatMode, ...] = ("json_schema", "json_object", "none")


class TaskModel(BaseModel):
    """Base of task replies: unknown keys are ignored (models add chatter keys)."""

    model_config = ConfigDict(extra="ignore")


class Keypoints(TaskModel):
    keypoints: list[str] = Field(description="Atomic, self-contained facts; each names its subject.")


class PassageKeypoints(TaskModel):
    index: int
    keypoints: list[str] = Field(default_factory=list)


class KeypointsBatch(TaskModel):
    passages: list[PassageKeypoints]


class ImageDescription(TaskModel):
    description: str


class DomainPersona(TaskModel):
    domain: str
    persona: str


class HopQA(TaskModel):
    subquestion: str
    answer: str


class VerbalizedChain(TaskModel):
    hops: list[HopQA]
    question: str
    answer: str


class ChainVerification(TaskModel):
    answerable_without: list[bool] = Field(
        description="Per hop, in order: is the question still answerable with that hop's evidence removed?"
    )
    single_item_answers: bool
    faithful: bool
    standalone: bool
    closed_book_answerable: bool
    reasons: str = ""


class MergedQuestion(TaskModel):
    question: str
    answer: str


# The schema of each packaged prompt (kg/prompts/<task>.md).
class EvidenceAnswer(TaskModel):
    """answer_from_evidence: the empirical hop-necessity probe (MC-Search's HAVE)."""

    answer: str = Field(description="Short answer from the evidence only, or UNANSWERABLE.")


TASK_SCHEMAS: dict[str, type[BaseModel]] = {
    "keypoints": Keypoints,
    "keypoints_batch": KeypointsBatch,
    "describe_image": ImageDescription,
    "domain_persona": DomainPersona,
    "verbalize_chain": VerbalizedChain,
    "verify_chain": ChainVerification,
    "answer_from_evidence": EvidenceAnswer,
    "merge_duplicates": MergedQuestion,
}


@lru_cache(maxsize=256)
def json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """model_json_schema() is rebuilt on every call by pydantic; build it once per model.
    Callers must not mutate the returned dict."""
    return schema.model_json_schema()


def response_format(schema: type[BaseModel], mode: FormatMode) -> dict[str, Any] | None:
    """The `response_format` request parameter for a mode (None: omit it)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {
                "name": schema.__name__,
                "schema": json_schema(schema),
                # strict=True needs additionalProperties=false and every key
                # required; the models use defaults, so ask non-strictly.
                "strict": False,
            },
        }
    if mode == "json_object":
        return {"type": "json_object"}
    return None


class ReplyError(ValueError):
    """A reply that is not a valid instance of the task's model.

    `kind` is the short reason ("invalid json" or "schema violation") used as
    the failure reason; the message carries the detail shown to the model in
    the repair request.
    """

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def extract_json(text: str) -> Any:
    """Find the JSON value in a model's reply.

    Tries, in order: the whole text, each fenced ``` block (```json first),
    then the first balanced {...} object in the text. Raises ReplyError.
    """
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    for block in _fenced_blocks(stripped):
        try:
            return json.loads(block)
        except json.JSONDecodeError:
            continue
    for candidate in _balanced_objects(stripped):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    raise ReplyError("invalid json", f"no JSON object found in the reply (starts {stripped[:80]!r})")


def parse_reply(text: str, schema: type[BaseModel]) -> BaseModel:
    """Extract and validate a reply; raises ReplyError with a repairable message."""
    data = extract_json(text)
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:8]
        )
        raise ReplyError("schema violation", problems) from None


def _fenced_blocks(text: str) -> list[str]:
    """Contents of ``` fences, blocks tagged json first."""
    blocks: list[tuple[bool, str]] = []
    pos = 0
    while True:
        start = text.find("```", pos)
        if start < 0:
            break
        newline = text.find("\n", start)
        if newline < 0:
            break
        end = text.find("```", newline)
        if end < 0:
            break
        tag = text[start + 3 : newline].strip().lower()
        blocks.append((tag == "json", text[newline + 1 : end].strip()))
        pos = end + 3
    return [b for is_json, b in blocks if is_json] + [b for is_json, b in blocks if not is_json]


def _balanced_objects(text: str, limit: int = 8) -> list[str]:
    """Up to `limit` top-level {...} spans, scanning braces outside JSON strings."""
    found: list[str] = []
    start = text.find("{")
    while start >= 0 and len(found) < limit:
        depth = 0
        in_string = False
        escaped = False
        end = -1
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if end < 0:
            break
        found.append(text[start : end + 1])
        start = text.find("{", end + 1)
    return found
