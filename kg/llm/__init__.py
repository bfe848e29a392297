"""The LLM layer: one client (kg.llm.client), its reply cache, accounting,
structured-output schemas and prompts kept as files (kg/prompts/*.md)."""

from kg.llm.accounting import Accounting, StageStats
from kg.llm.cache import LLMCache, cache_key
from kg.llm.client import BUDGET_EXHAUSTED, DRY_RUN, REFUSAL, LLMClient, LLMRequest, LLMResult, Usage, estimate_tokens
from kg.llm.prompts import Prompt, PromptError, load_prompt
from kg.llm.structured import (
    TASK_SCHEMAS,
    ChainVerification,
    DomainPersona,
    HopQA,
    ImageDescription,
    Keypoints,
    MergedQuestion,
    VerbalizedChain,
    extract_json,
    parse_reply,
)

__all__ = [
    "Accounting",
    "StageStats",
    "LLMCache",
    "cache_key",
    "BUDGET_EXHAUSTED",
    "DRY_RUN",
    "REFUSAL",
    "LLMClient",
    "LLMRequest",
    "LLMResult",
    "Usage",
    "estimate_tokens",
    "Prompt",
    "PromptError",
    "load_prompt",
    "TASK_SCHEMAS",
    "ChainVerification",
    "DomainPersona",
    "HopQA",
    "ImageDescription",
    "Keypoints",
    "MergedQuestion",
    "VerbalizedChain",
    "extract_json",
    "parse_reply",
]
