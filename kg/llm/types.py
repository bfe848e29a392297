"""Values the LLM client takes and returns: requests, results, usage."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kg.llm.prompts import load_prompt
from kg.llm.structured import TASK_SCHEMAS

BUDGET_EXHAUSTED = "budget exhausted"
DRY_RUN = "dry run"
REFUSAL = "refusal"
# The endpoint stopped answering (circuit breaker open): nothing more is sent this run.
ENDPOINT_DOWN = "endpoint down"
# The model reads no images; the vision role is off for the run (captions stand in).
VISION_UNSUPPORTED = "vision unsupported"
# The prompt does not fit the model's context window; a smaller request may.
PROMPT_TOO_LONG = "prompt too long"
# A reply that parsed and validated but that the caller's `accept` check refused.
UNUSABLE = "unusable reply"

# Rough token cost of one image part, for estimates only (OpenAI "low" detail
# is 85, a 512px tile 170; a typical figure lands near this).
IMAGE_TOKENS_ESTIMATE = 765

# A check of a validated reply: None when usable, else why not (the reply is
# then neither returned as a result nor kept in the cache).
AcceptCheck = Callable[[BaseModel], "str | None"]


@dataclass
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def total(self) -> int:
        return self.tokens_in + self.tokens_out

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.tokens_in + other.tokens_in, self.tokens_out + other.tokens_out)


@dataclass
class LLMResult:
    """The outcome of one request. `ok` is True exactly when `value` is a
    validated instance of the request's schema. `error` is a short reason
    (e.g. "refusal", "invalid json", "schema violation", "timeout",
    "rate limited", "budget exhausted", "dry run", "endpoint down",
    "vision unsupported", "prompt too long"); `detail` says more."""

    value: BaseModel | None
    ok: bool
    error: str | None = None
    detail: str = ""
    cached: bool = False
    usage: Usage = field(default_factory=Usage)
    content: str | None = None  # the raw reply text that produced `value`
    task: str = ""
    stage: str = ""
    role: str = ""
    model: str = ""
    prompt_version: str = ""
    requests: int = 0  # HTTP requests made for this result (retries and repair included)

    @property
    def budget_exhausted(self) -> bool:
        return self.error == BUDGET_EXHAUSTED


@dataclass
class LLMRequest:
    """The arguments of `complete_json`, as a value, for batches."""

    task: str
    role: str
    messages: list[dict[str, Any]]
    schema: type[BaseModel]
    stage: str
    prompt_version: str
    temperature: float | None = None
    max_tokens: int | None = None
    accept: AcceptCheck | None = None

    @classmethod
    def for_task(
        cls,
        task: str,
        role: str,
        stage: str,
        *,
        prompts_dir: Path | None = None,
        images: list[str] | None = None,
        schema: type[BaseModel] | None = None,
        temperature: float | None = None,
        accept: AcceptCheck | None = None,
        **variables: Any,
    ) -> LLMRequest:
        """Render the task's prompt file (user override first) into a request."""
        prompt = load_prompt(task, prompts_dir)
        return cls(
            task=task,
            role=role,
            messages=prompt.render(images=images, **variables),
            schema=schema or TASK_SCHEMAS[task],
            stage=stage,
            prompt_version=prompt.version,
            temperature=temperature,
            accept=accept,
        )


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """chars/4 of the text parts, plus a flat cost per image part."""
    chars = 0
    images = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for part in content:
                if part.get("type") == "text":
                    chars += len(part.get("text", ""))
                elif part.get("type") == "image_url":
                    images += 1
    return chars // 4 + images * IMAGE_TOKENS_ESTIMATE


def has_images(messages: list[dict[str, Any]]) -> bool:
    return any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
               for m in messages)


def without_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages for a text-only model: each image part becomes a note.
    The prompts that attach images also carry the image's description and
    caption as text, so the model still gets the evidence, only not the pixels."""
    out: list[dict[str, Any]] = []
    for m in messages:
        content = m.get("content")
        if not isinstance(content, list):
            out.append(m)
            continue
        texts = [p.get("text", "") for p in content if p.get("type") == "text"]
        dropped = sum(p.get("type") == "image_url" for p in content)
        if dropped:
            texts.append(f"({dropped} image(s) not shown: this model reads text only; "
                         "use the image descriptions and captions given above.)")
        out.append({**m, "content": "\n\n".join(t for t in texts if t)})
    return out


def with_changes(base: LLMResult, **changes: Any) -> LLMResult:
    return LLMResult(**{**base.__dict__, **changes})
