"""`ingest --dry-run`: estimate the LLM calls and tokens; parse, but write and spend nothing."""

from __future__ import annotations

from pathlib import Path

from kg.config import Settings
from kg.ids import sha256_bytes
from kg.models import IngestError


def estimate_ingest(settings: Settings, files: list[Path], done: dict, do_kp: bool, do_desc: bool, console) -> dict:
    """Estimate the LLM calls and tokens ingest would make; parse, but write and spend nothing."""
    from kg.ingest import read_document
    from kg.enrich.chunking import chunk_document

    if not settings.llm_configured:
        console.print("ingest --dry-run: no LLM configured; offline ingest makes no LLM call")
        return {"dry_run": True, "calls": 0, "tokens_in": 0}
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
    return {"dry_run": True, "calls": calls, "tokens": tokens}
