"""What an endpoint's model can do, remembered per base URL + model.

Written by `hopgraph llm check` (the probe) and by the client whenever a
run learns something by failing (a refused response_format, a model that
reads no images), so later runs start in the right format mode, with the
vision role off when it cannot work, and at the measured concurrency,
instead of discovering each again with failed calls.

Stored as JSON in <data_dir>/llm_capabilities.json: small, human-readable,
and safe to delete (everything is re-learned).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from kg.atomic_write import atomic_write_text
from kg.llm.structured import FORMAT_MODES, FormatMode

FILE_NAME = "llm_capabilities.json"
log = logging.getLogger("hopgraph.llm")


@dataclass
class Capabilities:
    base_url: str
    model: str
    format_mode: FormatMode | None = None  # strongest response_format the endpoint accepts
    vision: bool | None = None  # None: not known yet
    slots: int | None = None  # calls in flight that still raised throughput (the probe)
    source: str = "run"  # "probe" (llm check) or "run" (learned by failing)
    updated_at: float = 0.0
    probe: dict[str, Any] = field(default_factory=dict)  # the probe's measurements, for `llm check --json`

    @property
    def key(self) -> str:
        return capability_key(self.base_url, self.model)


def capability_key(base_url: str | None, model: str) -> str:
    return f"{(base_url or 'default').rstrip('/')}|{model}"


class CapabilityStore:
    """The JSON file of Capabilities; thread-safe within a process, and
    written atomically (rename) so a killed run never leaves half a file."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @classmethod
    def in_dir(cls, data_dir: Path | str) -> CapabilityStore:
        return cls(Path(data_dir) / FILE_NAME)

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # missing or unreadable: nothing known, everything is re-learned
        return data if isinstance(data, dict) else {}

    def get(self, base_url: str | None, model: str) -> Capabilities | None:
        with self._lock:
            row = self._read().get(capability_key(base_url, model))
        if not isinstance(row, dict):
            return None
        known = {f.name for f in fields(Capabilities)}
        cap = Capabilities(**{k: v for k, v in row.items() if k in known})
        if cap.format_mode not in (None, *FORMAT_MODES):
            cap.format_mode = None
        return cap

    def put(self, cap: Capabilities) -> None:
        cap.updated_at = time.time()
        with self._lock:
            data = self._read()
            data[cap.key] = asdict(cap)
            self._write(data)

    def learn(self, base_url: str | None, model: str, **changes: Any) -> None:
        """Record what a run found out (format_mode=..., vision=False), keeping the rest."""
        cap = self.get(base_url, model) or Capabilities(base_url or "default", model)
        for name, value in changes.items():
            setattr(cap, name, value)
        self.put(cap)

    def all(self) -> list[Capabilities]:
        with self._lock:
            keys = list(self._read())
        out = []
        for key in keys:
            base_url, _, model = key.rpartition("|")
            cap = self.get(base_url, model)
            if cap is not None:
                out.append(cap)
        return out

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps(data, indent=1, sort_keys=True))


class EndpointProfile:
    """What one client knows of its endpoint's models this run: the response
    format each accepts and which read no images. Starts from the store
    (earlier runs, the probe) and writes back what this run learns."""

    def __init__(self, base_url: str | None, store: CapabilityStore | None,
                 format_preference: str = "auto") -> None:
        self.base_url = base_url
        self.store = store
        self.format_preference = format_preference
        self._modes: dict[str, FormatMode] = {}
        self._text_only: set[str] = set()

    def known(self, model: str | None) -> Capabilities | None:
        if self.store is None or not model:
            return None
        return self.store.get(self.base_url, model)

    def slots(self, model: str | None) -> int | None:
        cap = self.known(model)
        return cap.slots if cap is not None and cap.slots else None

    def mode_for(self, model: str) -> FormatMode:
        if model not in self._modes:
            cap = self.known(model)
            if self.format_preference in FORMAT_MODES:
                self._modes[model] = self.format_preference  # type: ignore[assignment]
            elif cap is not None and cap.format_mode:
                self._modes[model] = cap.format_mode
            else:
                self._modes[model] = FORMAT_MODES[0]
        return self._modes[model]

    def downgrade(self, model: str, rejected: FormatMode) -> bool:
        """The endpoint refused `rejected`: use the next weaker format from now on.
        False when there is nothing weaker (or it was already downgraded)."""
        if self.mode_for(model) != rejected or rejected == FORMAT_MODES[-1]:
            return self.mode_for(model) != rejected
        self._modes[model] = FORMAT_MODES[FORMAT_MODES.index(rejected) + 1]
        log.warning("endpoint %s rejected response_format %s for %s; using %s",
                    self.base_url, rejected, model, self._modes[model])
        if self.store is not None:
            self.store.learn(self.base_url, model, format_mode=self._modes[model])
        return True

    def is_text_only(self, model: str) -> bool:
        if model in self._text_only:
            return True
        cap = self.known(model)
        if cap is not None and cap.vision is False:
            self._text_only.add(model)
            return True
        return False

    def mark_text_only(self, model: str, why: str) -> None:
        if model in self._text_only:
            return
        self._text_only.add(model)
        log.warning("%s at %s reads no images (%s): the vision role is off for this run (captions are used) "
                    "and image hops go to it as their description and caption text", model, self.base_url, why[:120])
        if self.store is not None:
            self.store.learn(self.base_url, model, vision=False)
