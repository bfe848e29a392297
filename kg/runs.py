"""Run manifests: one JSON file per command run under <data_dir>/runs/, so a
user (and `hopgraph` itself) can see what each run did, with which settings,
and what the LLM cost.

    m = RunManifest(data_dir, "ingest", config=settings)
    m.set("documents", 12); m.count("chunks", 340)
    m.add_llm(client.accounting.to_dict())
    path = m.write()   # runs/20250101T120000123456Z-ingest.json, written atomically

Secrets never reach the file: the config summary is the TOML model only
(secrets live in the environment, not in it), keys that look like secrets
are masked, credentials inside URLs are removed, and as a last guard any
string containing the value of a known secret environment variable is
masked.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kg.atomic_write import atomic_write_text

RUNS_DIR = "runs"
SCHEMA_VERSION = 1
MASK = "****"
SECRET_ENV = ("OPENAI_API_KEY", "NEO4J_PASSWORD", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "ANTHROPIC_API_KEY")
_SECRET_KEY = re.compile(r"(password|passwd|secret|api[_-]?key|apikey|credential|^auth$|authorization|auth[_-]?token|bearer|^token$|access[_-]?token)",
                         re.IGNORECASE)
_URL_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.\-]*://)[^/@\s]+@", re.IGNORECASE)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds").replace("+00:00", "Z")


class RunManifest:
    """What one command run did. `set` values must be JSON-serialisable (Paths
    and other objects are written with str())."""

    def __init__(self, data_dir: str | Path, command: str, config: Any = None) -> None:
        self.data_dir = Path(data_dir)
        self.command = command
        self.started = _now()
        self.finished: datetime | None = None
        self.config = config_summary(config) if config is not None else None
        self.data: dict[str, Any] = {}
        self.counts: dict[str, int] = {}
        self.llm: dict[str, Any] | None = None
        self.path: Path | None = None

    def set(self, key: str, value: Any) -> RunManifest:
        self.data[key] = value
        return self

    def count(self, key: str, n: int = 1) -> RunManifest:
        """Add n to a counter under "counts"."""
        self.counts[key] = self.counts.get(key, 0) + int(n)
        return self

    def add_llm(self, accounting: dict[str, Any] | Any) -> RunManifest:
        """Record LLM accounting (Accounting.to_dict() or an Accounting); calling
        it again adds the new counters to the ones recorded (several clients, one run)."""
        from kg.llm.accounting import Accounting

        acc = accounting if isinstance(accounting, Accounting) else Accounting.from_dict(accounting or {})
        if self.llm is not None:
            acc = Accounting.from_dict(self.llm).merge(acc)
        self.llm = acc.to_dict()
        return self

    def to_dict(self) -> dict[str, Any]:
        finished = self.finished or _now()
        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "command": self.command,
            "started": _iso(self.started),
            "finished": _iso(finished),
            "seconds": round((finished - self.started).total_seconds(), 3),
        }
        if self.config is not None:
            out["config"] = self.config
        out["counts"] = dict(self.counts)
        for k, v in self.data.items():
            if k in out and k != "counts":
                raise ValueError(f"manifest key {k!r} is reserved")
            if k == "counts" and isinstance(v, dict):
                out["counts"] = {**out["counts"], **v}
            else:
                out[k] = v
        if self.llm is not None:
            out["llm"] = self.llm
        return scrub(out)

    def write(self) -> Path:
        """Write (or rewrite) the manifest atomically; returns its path."""
        self.finished = _now()
        payload = json.dumps(self.to_dict(), indent=2, ensure_ascii=False, default=str, sort_keys=False) + "\n"
        runs = self.data_dir / RUNS_DIR
        runs.mkdir(parents=True, exist_ok=True)
        if self.path is None:
            self.path = _unique_path(runs, f"{self.started.strftime('%Y%m%dT%H%M%S%fZ')}-{_slug(self.command)}")
        atomic_write_text(self.path, payload)
        return self.path


def manifests_in(runs: Path) -> list[dict[str, Any]]:
    """Every readable manifest in a runs folder, oldest first (names start with a UTC
    timestamp), each with its "file"; unreadable files and our temporary files are skipped."""
    out: list[dict[str, Any]] = []
    for path in sorted(Path(runs).glob("*.json"), key=lambda p: p.name) if Path(runs).is_dir() else []:
        if path.name.startswith("."):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            out.append({**data, "file": str(path)})
    return out


def latest_manifests(data_dir: str | Path, limit: int | None = None, command: str | None = None) -> list[dict[str, Any]]:
    """Manifests under <data_dir>/runs/, newest first (each with its "file"); `command`: only that command's."""
    found = [m for m in reversed(manifests_in(Path(data_dir) / RUNS_DIR))
             if command is None or m.get("command") == command]
    return found if limit is None else found[:limit]


def config_summary(config: Any) -> dict[str, Any]:
    """The settings as JSON-ready data (a Settings/pydantic model or a dict), secrets masked."""
    if hasattr(config, "model_dump"):
        data = config.model_dump(mode="json")
    elif isinstance(config, dict):
        data = json.loads(json.dumps(config, default=str))
    else:
        raise TypeError(f"config must be a pydantic model or a dict, not {type(config).__name__}")
    return scrub(data)


def scrub(value: Any) -> Any:
    """Mask secret-looking keys, URL credentials and known secret values, recursively."""
    secrets = [v for v in (os.environ.get(n) for n in SECRET_ENV) if v and len(v) >= 4]
    return _scrub(value, secrets)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: (MASK if value_is_set(v) and _SECRET_KEY.search(str(k)) else _scrub(v, secrets))
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(v, secrets) for v in value]
    if isinstance(value, str):
        text = _URL_USERINFO.sub(lambda m: m.group("scheme"), value)
        for s in secrets:
            if s in text:
                text = text.replace(s, MASK)
        return text
    return value


def value_is_set(v: Any) -> bool:
    return v not in (None, "", False)


def _slug(command: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", command).strip("-.") or "run"


def _unique_path(runs: Path, stem: str) -> Path:
    path = runs / f"{stem}.json"
    i = 2
    while path.exists():
        path = runs / f"{stem}-{i}.json"
        i += 1
    return path
