"""What an endpoint's error means, by its class rather than its status code.

Servers disagree on status codes for the same trouble: llama-cpp-python
answers a request-validation failure (an unsupported `response_format`, a
bad parameter) and a text-only model given an image with HTTP 500; vLLM and
OpenAI say 400; Ollama says 400 or 500. Retrying a deterministic rejection
only repeats it, so the class decides:

- "overloaded": 429, 503 (and timeouts, classified by the caller): retry
  after a wait, and halve the concurrency (AIMD).
- "transient": 408 and other 5xx that name nothing deterministic: retry.
- "format": the `response_format` was refused (any status): use the next
  weaker format and send again, no retry counted against the request.
- "vision": a request with image parts refused for them (any status): the
  model is text-only.
- "context": the prompt does not fit the context window: fail now, so the
  caller can send something smaller.
- "rejected": any other 4xx (a 429 for an exhausted quota too), or a 5xx
  whose body names validation, a schema or an unsupported parameter: fail
  now, never retried.

tests/kg/llm/error_shapes.py holds the recorded bodies this is tested on.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Literal

import openai

ErrorClass = Literal["overloaded", "transient", "format", "vision", "context", "rejected"]

OVERLOAD_STATUSES = frozenset({429, 503, 529})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "structured output", "guided_json",
                 "guided decoding", "grammar")
_VISION_WORDS = ("image", "vision", "multimodal", "multi-modal", 'not "list"', "not 'list'", "content must be a string",
                 "expected string", "str type expected", "input should be a valid string", "cannot unmarshal array")
_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "context window", "too many tokens",
                  "prompt is too long", "exceeds the available context", "n_ctx")
_DETERMINISTIC_WORDS = ("validation", "invalid", "unsupported", "not supported", "unknown parameter",
                        "unrecognized", "extra inputs", "extra_forbidden", "literal_error", "schema",
                        "is not allowed", "not implemented", "does not support")
# A 429 that waiting does not cure: the account is out of credit.
_QUOTA_WORDS = ("insufficient_quota", "exceeded your current quota", "billing")


def classify_status(status: int, text: str, with_images: bool, format_in_request: bool) -> ErrorClass:
    """The class of an HTTP error; `text` is the error message and body."""
    t = text.lower().replace('\\"', '"')  # the body arrives JSON-encoded too
    named_format = format_in_request and any(w in t for w in _FORMAT_WORDS)
    named_vision = with_images and any(w in t for w in _VISION_WORDS)
    named_context = any(w in t for w in _CONTEXT_WORDS)
    if status == 429 and any(w in t for w in _QUOTA_WORDS):
        return "rejected"
    if status in OVERLOAD_STATUSES and not (named_format or named_vision or named_context):
        return "overloaded"
    deterministic = (400 <= status < 500 and status not in (408, 429)) or named_format or named_vision \
        or named_context or any(w in t for w in _DETERMINISTIC_WORDS)
    if not deterministic:
        return "transient"
    if named_format:
        return "format"
    if named_vision:
        return "vision"
    if named_context:
        return "context"
    return "rejected"


def classify_api_error(exc: openai.APIStatusError, with_images: bool, format_in_request: bool) -> ErrorClass:
    return classify_status(exc.status_code, error_text(exc) + " " + json.dumps(exc.body, default=str),
                           with_images, format_in_request)


def error_text(exc: openai.APIStatusError) -> str:
    return getattr(exc, "message", None) or str(exc)


def status_reason(status: int, error_class: ErrorClass) -> str:
    """The short failure reason of an HTTP error that ended a request."""
    if error_class == "context":
        return "prompt too long"
    if error_class == "rejected":
        # a 5xx or 429 that no retry cures says so; a plain 4xx keeps its code
        return f"rejected (http {status})" if status >= 500 or status == 429 else f"http {status}"
    if status == 429:
        return "rate limited"
    if status >= 500:
        return "server error"
    return f"http {status}"


def retry_after(exc: openai.APIStatusError) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms or Retry-After)."""
    headers = exc.response.headers if exc.response is not None else {}
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())
