"""Structured output: one pydantic model per task, and tolerant reply parsing.

Endpoints differ in how well they honour a JSON schema (OpenAI does,
vLLM/Ollama mostly do, llama.cpp servers and small models often wrap JSON in
prose or code fences). So the request asks for the strongest format the
endpoint accepts, and the reply is always parsed tolerantly, then validated
against the task's model. Validation, not the endpoint, is the contract.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kg.errors import HopgraphError

FormatMode = Literal["json_schema", "json_object_schema", "json_object", "none"]
# Strongest first; an endpoint that rejects one is moved to the next.
# "json_object_schema" is JSON mode with the schema attached
# ({"type": "json_object", "schema": ...}): llama-cpp-python's server refuses
# json_schema but turns this into a grammar, so even a small model's reply has
# the task's shape; servers that refuse the extra key downgrade to plain JSON mode.
FORMAT_MODES: tuple[FormatMode, ...] = ("json_schema", "json_object_schema", "json_object", "none")


class TaskModel(BaseModel):
    """Base of task replies: unknown keys are ignored (models add chatter keys)."""

    model_config = ConfigDict(extra="ignore")


# In the JSON schema sent (not in validation): at least one keypoint of a few
# words per passage. A server that compiles the schema into a grammar
# (llama.cpp) then cannot let a small model answer [""] or [] for every passage
# (SmolLM2-135M did); a reply that finds no fact in a passage still parses.
_AT_LEAST_ONE_KEYPOINT = {"minItems": 1, "items": {"type": "string", "minLength": 12}}


class Keypoints(TaskModel):
    keypoints: list[str] = Field(description="Atomic, self-contained facts; each names its subject.",
                                 json_schema_extra=_AT_LEAST_ONE_KEYPOINT)


class PassageKeypoints(TaskModel):
    index: int
    keypoints: list[str] = Field(default_factory=list, json_schema_extra=_AT_LEAST_ONE_KEYPOINT)


class KeypointsBatch(TaskModel):
    passages: list[PassageKeypoints]


class ImageDescription(TaskModel):
    description: str


class DocumentPersona(TaskModel):
    title: str
    domain: str
    persona: str


class DomainPersona(TaskModel):
    domain: str
    persona: str
    # One line per document title given: a mixed collection's NLP paper gets an NLP reader.
    documents: list[DocumentPersona] = Field(default_factory=list)


class HopQA(TaskModel):
    subquestion: str
    answer: str


class VerbalizedChain(TaskModel):
    hops: list[HopQA]
    question: str
    answer: str


class ChainVerification(TaskModel):
    # Written first: the answer the verifier would give with each item covered. A hop whose guess is
    # the reference answer is not needed, whatever the boolean below says (verify.llm_verification).
    guess_without: list[str] = Field(
        default_factory=list,
        description="Per hop, in order: the answer you would give with that hop's evidence covered ('' if none)."
    )

    @field_validator("guess_without", mode="before")
    @classmethod
    def _guesses_as_text(cls, value):
        """A guess written as a number (86.4) or null is still a guess: one such item must not fail the
        whole verdict."""
        return ["" if v is None else str(v) for v in value] if isinstance(value, list) else value
    answerable_without: list[bool] = Field(
        description="Per hop, in order: is the question still answerable with that hop's evidence removed?"
    )
    single_item_answers: bool
    faithful: bool
    standalone: bool
    closed_book_answerable: bool
    reasons: str = ""
    # Whether a rewrite could make every item needed (MiRAGE's refinement is worth a call), or the
    # evidence itself gives the answer away (a repair would be paid for and rejected again: q20).
    rewording_can_fix: bool = True


class MergedQuestion(TaskModel):
    question: str
    answer: str


class ReaderAnswer(TaskModel):
    answer: str


class AnswerJudgement(TaskModel):
    rationale: str = ""
    correctness: float = Field(ge=0, le=1, description="How correct the predicted answer is against the reference.")
    keypoints_matched: list[bool] = Field(default_factory=list, description="Per gold keypoint: stated by the answer?")


class GroundingJudgement(TaskModel):
    """eval_judge_grounding: faithfulness = supported claims / claims; relevancy as judged."""

    claims: list[str] = Field(default_factory=list)
    supported: list[bool] = Field(default_factory=list)
    rationale: str = ""
    relevancy: float = Field(ge=0, le=1)


class NextStep(TaskModel):
    done: bool = Field(description="Is what was found enough to answer the question?")
    next_subquestion: str = ""
    answer: str = ""


class ChainJudgement(TaskModel):
    accuracy: int = Field(ge=1, le=5)
    coherence: int = Field(ge=1, le=5)
    entity_coverage: int = Field(ge=1, le=5)
    step_alignment: int = Field(ge=1, le=5)


class RecordJudgement(TaskModel):
    faithfulness: float = Field(ge=0, le=1)
    relevance: float = Field(ge=0, le=1)
    answerable_from_evidence: bool
    answerable_without_evidence: bool
    difficulty: float = Field(ge=0, le=1)
    hops_needed: int = Field(ge=1)


class CrossmodalVerdict(TaskModel):
    stated: bool = Field(description="Does this source alone state the fact?")


class VisualGrounding(TaskModel):
    grounded: bool = Field(description="Is the hop's answer read off the image itself?")


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
    "repair_chain": VerbalizedChain,  # the writer's rewrite after a verifier's verdict: the same reply
    "answer_from_evidence": EvidenceAnswer,
    "merge_duplicates": MergedQuestion,
    "eval_read": ReaderAnswer,
    "eval_judge_answer": AnswerJudgement,
    "eval_judge_grounding": GroundingJudgement,
    "eval_next_step": NextStep,
    "eval_judge_chain": ChainJudgement,
    "eval_judge_record": RecordJudgement,
    "eval_visual_grounding": VisualGrounding,
    "keypoint_crossmodal": CrossmodalVerdict,
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
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": json_schema(schema)}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


class ReplyError(HopgraphError, ValueError):
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
    the first balanced {...} object in the text, then a reply cut off by
    max_tokens: its last, unfinished item dropped and the brackets closed
    (small models run out of tokens mid-list). Raises ReplyError.
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
    # A reply cut off inside its first object is closed before looking further:
    # the objects nested in it are parts, not the answer.
    closed = _close_truncated(stripped)
    if closed is not None:
        try:
            return json.loads(closed)
        except json.JSONDecodeError:
            pass
    for value in _embedded_objects(stripped):
        return value
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


def _embedded_objects(text: str, limit: int = 8) -> list[object]:
    """Up to `limit` JSON objects that start at a "{" inside prose, decoded by
    the standard library's raw_decode (which stops where the object ends)."""
    decoder = json.JSONDecoder()
    found: list[object] = []
    start = text.find("{")
    while start >= 0 and len(found) < limit:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        found.append(value)
        start = text.find("{", end)
    return found


def _close_truncated(text: str) -> str | None:
    """A JSON object cut off inside a list, cut back to the list's last whole
    item and closed: '{"a": ["x", "y", "unterminated' -> '{"a": ["x", "y"]}'.
    Only list items are dropped (a half-written object inside the list goes
    whole), never a key of an object. None when there is nothing to close."""
    start = text.find("{")
    if start < 0:
        return None
    stack: list[str] = []
    in_string = escaped = False
    safe: tuple[int, list[str]] | None = None  # (cut position, open brackets there)
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
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                return None
            stack.pop()
            if not stack:
                return None  # complete: not truncated (the other parsers had their turn)
            if stack[-1] == "]":
                safe = (i + 1, list(stack))  # a whole item of a list ends here
        elif ch == "," and stack and stack[-1] == "]":
            safe = (i, list(stack))
    if safe is None:
        return None
    cut, open_brackets = safe
    return text[start:cut] + "".join(reversed(open_brackets))


@lru_cache(maxsize=256)
def schema_fingerprint(schema: type[BaseModel]) -> str:
    """Name and hash of a task model's JSON schema (part of the cache key)."""
    text = json.dumps(json_schema(schema), sort_keys=True)
    return f"{schema.__name__}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def repair_instruction(error: ReplyError, schema: type[BaseModel]) -> str:
    return (
        f"Your previous reply could not be used ({error.kind}: {error.detail}).\n"
        "Reply again with only the corrected JSON object, no explanation and no code fence. "
        f"It must match this JSON schema:\n{json.dumps(json_schema(schema), separators=(',', ':'))}"
    )


def usable_reply(content: str, schema: type[BaseModel], accept: Callable[[BaseModel], str | None] | None
                 ) -> BaseModel | None:
    """A cached reply's value, or None when it no longer parses or `accept` refuses it."""
    try:
        value = parse_reply(content, schema)
    except ReplyError:
        return None
    if accept is not None and accept(value):
        return None
    return value
