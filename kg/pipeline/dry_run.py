"""`ingest --dry-run`: estimate the LLM calls and tokens; parse, but write and spend nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from kg.config import Settings
from kg.ids import sha256_bytes
from kg.models import IngestError


@dataclass
class IngestEstimate:
    """What `ingest --dry-run` found: LLM calls and tokens the run would spend."""

    calls: int = 0
    tokens: int = 0
    incomplete = False  # nothing was meant to be written: nothing is missing

    def to_dict(self) -> dict:
        return {"dry_run": True, "calls": self.calls, "tokens": self.tokens}


def estimate_ingest(settings: Settings, files: list[Path], done: dict, do_kp: bool, do_desc: bool,
                    console: Console) -> IngestEstimate:
    """Estimate the LLM calls and tokens ingest would make; parse, but write and spend nothing."""
    from kg.ingest import read_document
    from kg.enrich.chunking import chunk_document

    if not settings.llm_configured:
        console.print("ingest --dry-run: no LLM configured; offline ingest makes no LLM call")
        return IngestEstimate()
    import tempfile

    calls = tokens = 0
    cfg = settings.ingest
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            data = path.read_bytes()
            if done.get(sha256_bytes(data)[:16], {}).get("ingested"):
                continue
            try:
                parsed = read_document(path, Path(tmp))
                chunks = chunk_document(parsed, "dry", "fixed", None, size=cfg.max_tokens, overlap=0)
            except IngestError:
                continue
            if do_kp:
                calls += -(-(len(chunks) + len(parsed.images)) // settings.llm.keypoints_batch)
                tokens += sum(len(c.text) // 4 + 450 for c in chunks)  # text + prompt + reply
            if do_desc and settings.llm.vision_model:
                calls += len(parsed.images)
                tokens += len(parsed.images) * (765 + 500)
    calls += 1  # domain and persona
    tokens += 400
    console.print(f"ingest --dry-run: about {calls} LLM calls and {tokens} tokens (nothing spent, nothing written)")
    return IngestEstimate(calls, tokens)
