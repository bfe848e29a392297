"""The project services evaluation uses: the ingest embedder and the one LLM client.

Kept in one module so evaluate/ depends on kg internals in one place: the
embedder is the one ingest used (same model, same SQLite vector cache under
the data dir), and every reader and judge call goes through kg.llm's client
with its request-hash cache, so re-running an evaluation spends no calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluate.errors import LLMRequired


def make_embedder(settings: Any):
    """The ingest embedder: model and vector cache from the settings."""
    from kg.enrich.embeddings import Embedder

    data_dir = Path(settings.store.data_dir)
    return Embedder(settings.embeddings.model, settings.embeddings.cache_path(data_dir),
                    settings.embeddings.batch_size)


def llm_configured(settings: Any) -> bool:
    return bool(settings.llm_configured)


def make_llm_client(settings: Any, what: str, **overrides: Any):
    """The project's LLM client; `what` names the evaluation in the error when none is configured."""
    from kg.llm.client import LLMClient

    if not llm_configured(settings) and not overrides.get("base_url"):
        raise LLMRequired(f"{what} needs an LLM: set llm.base_url / OPENAI_BASE_URL or OPENAI_API_KEY")
    return LLMClient.from_settings(settings, **overrides)


def llm_request(task: str, role: str, stage: str, settings: Any, images: list[str] | None = None, **variables: Any):
    """A request for one prompt file (kg/prompts/<task>.md, or the user's prompts_dir)."""
    from kg.llm.client import LLMRequest

    return LLMRequest.for_task(task, role, stage, prompts_dir=settings.llm.prompts_dir, images=images, **variables)


def image_data_url(path: Path) -> str:
    """An image file as a data URL for a vision request (the describe stage's encoder)."""
    from kg.enrich.describe import image_data_url as encode

    return encode(path)


JUDGE_ROLE = "verifier"  # judge requests go out under the verifier role, on the judge's model


def judge_model(settings: Any) -> str:
    """The judge: llm.judge_model, else the verifier model; never the reader being judged."""
    return settings.llm.judge_model or settings.llm.verifier_model


def make_judge_client(settings: Any, what: str, **overrides: Any):
    """A client whose verifier role is the judge model (same endpoint, same cache)."""
    judged = settings.model_copy(deep=True)
    judged.llm.verifier_model = judge_model(settings)
    return make_llm_client(judged, what, **overrides)


def judge_is_reader(settings: Any) -> str | None:
    """A warning when the configured judge is the very model being judged (eval answers / agent)."""
    reader = settings.llm.reader_model or settings.llm.generator_model
    if judge_model(settings) == reader:
        return (f"the judge ({reader}) is the reader being judged: set llm.judge_model (or a verifier_model "
                "other than the reader) for an independent judge")
    return None
