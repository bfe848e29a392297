"""Error answers of real OpenAI-compatible servers: status and body, as sent.

The llama.cpp shapes were recorded from llama-cpp-python 0.3.36's server
(`python -m llama_cpp.server`, SmolLM2-135M-Instruct) on this project's
machines (the file paths inside its messages shortened). The vLLM, Ollama,
OpenAI and LM Studio shapes are the bodies those servers document or users
have reported verbatim in their issue trackers. Each entry names the error
class kg.llm.classify must give it, so the scripted server can replay them
in CI and the classification stays tested without the servers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shape:
    server: str
    what: str
    status: int
    body: Any
    images: bool  # the request that drew it carried image parts
    expected: str  # the ErrorClass

    @property
    def id(self) -> str:
        return f"{self.server}: {self.what}"


def _openai_style(message: str, type_: str, code: Any = None, param: Any = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


SHAPES: tuple[Shape, ...] = (
    # llama.cpp (llama-cpp-python server): request validation and multimodal trouble are 500s.
    Shape("llama.cpp", "json_schema response_format", 500, _openai_style(
        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "
        "\"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or "
        "'json_object'\"}}\n\n  File \".../llama_cpp/server/app.py\", line 376, in create_chat_completion\n"
        "    POST /v1/chat/completions", "internal_server_error"), False, "format"),
    Shape("llama.cpp", "image part to a text-only model", 500, _openai_style(
        'can only concatenate str (not "list") to str', "internal_server_error"), True, "vision"),
    Shape("llama.cpp", "bad parameter", 500, _openai_style(
        "1 validation error:\n  {'type': 'int_parsing', 'loc': ('body', 'max_tokens'), 'msg': 'Input should be a "
        "valid integer, unable to parse string as an integer', 'input': 'abc'}", "internal_server_error"),
        False, "rejected"),
    Shape("llama.cpp", "prompt over n_ctx", 400, _openai_style(
        "This model's maximum context length is 4096 tokens. However, you requested 6036 tokens (6031 in the "
        "messages, 5 in the completion). Please reduce the length of the messages or completion.",
        "invalid_request_error", "context_length_exceeded", "messages"), False, "context"),
    # vLLM: an ErrorResponse, top-level (older) or under "error" (newer).
    Shape("vLLM", "prompt over max_model_len (old shape)", 400, {
        "object": "error", "message": "This model's maximum context length is 2048 tokens. However, you requested "
        "3000 tokens (2800 in the messages, 200 in the completion). Please reduce the length of the messages or "
        "completion.", "type": "BadRequestError", "param": None, "code": 400}, False, "context"),
    Shape("vLLM", "prompt over max_model_len (new shape)", 400, _openai_style(
        "You passed 1015 input tokens and requested 10 output tokens. However, the model's context length is only "
        "1024 tokens, resulting in a maximum input length of 1014 tokens. Please reduce the length of the input "
        "prompt. (parameter=input_tokens, value=1015)", "BadRequestError", 400, "input_tokens"), False, "context"),
    Shape("vLLM", "image to a text-only model", 400, {
        "object": "error", "message": "At most 0 image(s) may be provided in one request.",
        "type": "BadRequestError", "param": None, "code": 400}, True, "vision"),
    Shape("vLLM", "bad max_tokens", 400, {
        "object": "error", "message": "max_tokens must be at least 1, got -186.", "type": "BadRequestError",
        "param": None, "code": 400}, False, "rejected"),
    # Ollama's OpenAI-compatible endpoint.
    Shape("Ollama", "model not pulled", 404, _openai_style(
        'model "llama3.2" not found, try pulling it first', "api_error"), False, "rejected"),
    Shape("Ollama", "runner crashed", 500, _openai_style(
        "llama runner process has terminated: signal: killed", "api_error"), False, "transient"),
    Shape("Ollama", "content parts on an old server", 400, _openai_style(
        "json: cannot unmarshal array into Go struct field Message.messages.content of type string",
        "invalid_request_error"), True, "vision"),
    # OpenAI.
    Shape("OpenAI", "json_schema on a model without structured outputs", 400, _openai_style(
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        "invalid_request_error", None, "response_format"), False, "format"),
    Shape("OpenAI", "image to a text-only model", 400, _openai_style(
        "Invalid content type. image_url is only supported by certain models.", "invalid_request_error", None,
        "messages.[0].content.[1].type"), True, "vision"),
    Shape("OpenAI", "rate limit", 429, _openai_style(
        "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1. "
        "Please try again in 20s.", "requests", "rate_limit_exceeded"), False, "overloaded"),
    Shape("OpenAI", "quota exhausted", 429, _openai_style(
        "You exceeded your current quota, please check your plan and billing details.", "insufficient_quota",
        "insufficient_quota"), False, "rejected"),
    Shape("OpenAI", "bad key", 401, _openai_style(
        "Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.",
        "invalid_request_error", "invalid_api_key"), False, "rejected"),
    Shape("OpenAI", "overloaded", 503, _openai_style(
        "The engine is currently overloaded, please try again later", "server_error"), False, "overloaded"),
    Shape("OpenAI", "server error", 500, _openai_style(
        "The server had an error while processing your request. Sorry about that!", "server_error"),
        False, "transient"),
    Shape("OpenAI", "context length", 400, _openai_style(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130211 tokens. "
        "Please reduce the length of the messages.", "invalid_request_error", "context_length_exceeded",
        "messages"), False, "context"),
    # LM Studio.
    Shape("LM Studio", "image to a text-only model", 400, {"error": "Model does not support images. Please use a "
          "model that does."}, True, "vision"),
)
