"""Which files an ingest run takes, and the per-document report it gives back."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path

from kg.config import Settings

ASSET_EXTENSIONS = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".tif", ".tiff"}


@dataclass
class DocReport:
    path: str
    status: str  # ingested | partial (linked, some LLM calls failed) | unchanged | failed
    reason: str = ""
    doc_id: str = ""
    pages: int = 0
    chunks: int = 0
    tables: int = 0
    images_kept: int = 0
    images_skipped: int = 0
    references_resolved: int = 0
    references_unresolved: int = 0
    references_unresolved_why: dict[str, int] = field(default_factory=dict)  # reason -> mentions
    entities: int = 0
    keypoints: int = 0
    llm_failures: int = 0
    warnings: list[str] = field(default_factory=list)


# The extensions kg.ingest reads (its READERS; tests/kg/pipeline/test_pipeline.py keeps
# the two equal). Not imported from there: that loads pymupdf (0.5 s) in the ingesting
# process before its models start loading, and the files are parsed elsewhere.
SUPPORTED_EXTENSIONS = (".pdf", ".md", ".markdown", ".txt", ".text")


def collect_files(paths: list[Path], glob: str) -> tuple[list[Path], list[DocReport]]:
    """Files to ingest, plus reports for inputs that cannot be (missing, unsupported)."""
    files: list[Path] = []
    problems: list[DocReport] = []
    for path in paths:
        if path.is_dir():
            for f in sorted(path.rglob(glob)):
                if not f.is_file() or any(p.startswith(".") for p in f.relative_to(path).parts):
                    continue
                if f.suffix.lower() in SUPPORTED_EXTENSIONS:
                    files.append(f)
                elif f.suffix.lower() not in ASSET_EXTENSIONS:
                    problems.append(DocReport(str(f), "failed", f"unsupported extension {f.suffix or '(none)'}"))
        elif path.is_file():
            if path.suffix.lower() in SUPPORTED_EXTENSIONS:
                files.append(path)
            else:
                problems.append(DocReport(str(path), "failed", f"unsupported extension {path.suffix or '(none)'}"))
        else:
            problems.append(DocReport(str(path), "failed", "no such file or directory"))
    seen, unique = set(), []
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, problems


def portable_path(path: Path) -> str:
    """The path as stored in the graph and exported: relative to the working
    directory when the file is under it, so datasets do not leak home folders."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def log_traceback(settings: Settings, path: Path, exc: BaseException | None = None) -> None:
    """The traceback of `exc` (default: the one being handled) into runs/errors.log."""
    log = settings.store.data_dir / "runs" / "errors.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(traceback.format_exception(exc)) if exc is not None else traceback.format_exc()
    with log.open("a", encoding="utf-8") as fh:
        fh.write(f"--- {path}\n{text}\n")


def failure_report(settings: Settings, path: Path, exc: BaseException) -> DocReport:
    """The one-line report of a file that failed: the reason a user can act on
    (IngestError), or the unexpected error with its traceback logged."""
    from kg.models import IngestError

    if isinstance(exc, IngestError):
        return DocReport(str(path), "failed", str(exc))
    log_traceback(settings, path, exc)  # a bug or a library failure on one file must not stop the run
    return DocReport(str(path), "failed", f"unexpected error: {type(exc).__name__}: {exc}")


def failure_summary(failures: list[tuple[str, str]]) -> str:
    """"3 x server error; 1 x unusable reply" from (source id, reason) pairs."""
    from collections import Counter

    counts = Counter(reason.split(":")[0].strip() or "error" for _, reason in failures)
    return "; ".join(f"{n} x {reason}" for reason, n in counts.most_common(3))


def llm_down_reason(report: DocReport) -> str:
    """Why a run stops after a document none of whose keypoint calls worked: its failures, by cause."""
    return f"every LLM call for {report.path} failed ({report.reason})"
