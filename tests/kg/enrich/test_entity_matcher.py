"""EntityMatcher narrows the alternation to the names a text can hold; it must
find exactly what one alternation of every name finds."""

import re
import time
from collections import Counter
from pathlib import Path

from kg.enrich.entity_matcher import EntityMatcher

CORPUS = Path("/work/shared/corpus/text/wiki_hotpotqa_train100")
NAMES = {
    "gpu": ["GPU"], "faa": ["FAA", "Federal Aviation Administration"], "c++": ["C++"], ".net": [".NET"],
    "new york": ["New York", "New York City"], "york": ["York"], "us": ["U.S.", "US"], "bus": ["bus"],
    "class": ["class"], "is": ["is"], "ibm": ["IBM"], "o'brien": ["O'Brien"], "state": ["State", "states"],
}


def full_alternation_counts(names: dict[str, list[str]], text: str) -> Counter:
    """The rule as one alternation of every name (what EntityMatcher did before narrowing)."""
    ids: dict[str, set[str]] = {}
    for eid, forms in names.items():
        for form in [eid, *forms]:
            key = re.sub(r"\s+", " ", form).strip().lower()
            if len(key) >= 2:
                ids.setdefault(key, set()).add(eid)
    alternation = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(ids, key=len, reverse=True))
    pattern = re.compile(rf"(?<!\w)({alternation})(?:'s|’s|es|s)?(?!\w)", re.IGNORECASE)
    out: Counter = Counter()
    for m in pattern.finditer(text):
        for eid in ids.get(re.sub(r"\s+", " ", m.group(1)).strip().lower(), ()):
            out[eid] += 1
    return out


def test_same_matches_as_one_alternation_of_every_name():
    texts = [
        "The FAA's GPUs; the Federal  Aviation Administration uses C++ and a GPU. GPUX and faaX are not.",
        "New York City is in New York state, not York; the U.S. buses and .NET classes. O'Brien's IBMs.",
        "States' busses: US-based, NEW\nYORK, c++11, Is it? isn't",
    ]
    for text in texts:
        assert EntityMatcher(NAMES).counts(text) == full_alternation_counts(NAMES, text), text


def test_same_matches_on_real_text_with_its_own_capitalised_names():
    pages = sorted(CORPUS.glob("*.txt"))[:400]
    text = " ".join(p.read_text(encoding="utf-8") for p in pages)
    words = set(re.findall(r"\b[A-Z][\w.'-]+(?:\s+[A-Z][\w.'-]+)*", text))
    names = {w.lower(): [w] for w in sorted(words)[:3000]}
    matcher = EntityMatcher(names)
    sentences = re.split(r"(?<=[.!?])\s+", text)[:200]
    assert len(names) > 1500 and len(sentences) == 200
    found = 0
    for sentence in sentences:
        counts = matcher.counts(sentence)
        assert counts == full_alternation_counts(names, sentence), sentence
        found += sum(counts.values())
    assert found > 200  # the check compared real matches, not empty counters


def test_cost_per_text_does_not_grow_with_the_number_of_names():
    """A document's keypoints are matched against all its names: with 20x the
    names (a 20x longer document) a sentence must not take 20x longer."""
    sentence = "The Federal Aviation Administration asked IBM about GPUs in New York."
    few = EntityMatcher({**NAMES, **{f"name{i}": [f"Name{i} Place"] for i in range(500)}})
    many = EntityMatcher({**NAMES, **{f"name{i}": [f"Name{i} Place"] for i in range(10_000)}})

    def seconds(matcher: EntityMatcher) -> float:
        start = time.perf_counter()
        for n in range(300):
            matcher.counts(f"{sentence} ({n})")
        return time.perf_counter() - start

    seconds(few), seconds(many)  # compiled once each
    assert many.counts(sentence) == few.counts(sentence) == {"faa": 1, "ibm": 1, "gpu": 1, "new york": 1}
    assert seconds(many) < 3 * seconds(few) + 0.05
