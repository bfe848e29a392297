"""Keypoint extraction against the scripted OpenAI-compatible server, through the real LLMClient."""

from __future__ import annotations

import pytest

from kg.config import LLMConfig
from kg.ids import content_id
from kg.enrich.keypoints import (
    EntityMatcher,
    extract_keypoints,
    is_self_contained,
    stated_by,
)
from kg.text import split_sentences
from kg.llm import LLMClient

try:
    from tests.llm_server import ScriptedLLMServer, malformed, refusal
except ImportError:  # tests/ on sys.path instead of the repo root
    from llm_server import ScriptedLLMServer, malformed, refusal  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(60)

CHUNKS = [
    {"id": "c1", "text": "The Eiffel Tower stands in Paris. It was finished in 1889 for the World's Fair.",
     "entities": ["eiffel tower", "paris"]},
    {"id": "c2", "text": "Gustave Eiffel's company designed and built the tower.", "entities": ["gustave eiffel"]},
    {"id": "c3", "text": "The Statue of Liberty was also engineered by Gustave Eiffel.",
     "entities": ["statue of liberty", "gustave eiffel"]},
]
IMAGES = [
    {"id": "im1",
     "description": "Bar chart of yearly visitors to the Eiffel Tower, rising to 7 million visitors in 2015.",
     "caption": "Figure 2: Visitors to the Eiffel Tower per year.",
     "nearby_text": "The Eiffel Tower received 7 million visitors in 2015, its record year."},
]
NAMES = {
    "eiffel tower": ["Eiffel Tower"],
    "paris": ["Paris"],
    "gustave eiffel": ["Gustave Eiffel", "Eiffel"],
    "statue of liberty": ["Statue of Liberty"],
}
REPLIES = {
    "The Eiffel Tower stands in Paris": [
        "The Eiffel Tower stands in Paris.",
        "It was finished in 1889.",  # pronoun-led: dropped
        "The Eiffel Tower was finished in 1889 for the World's Fair in Paris.",
    ],
    "Gustave Eiffel's company": [
        "Gustave Eiffel's company designed the Eiffel Tower.",
        "They also built the Eiffel Tower.",  # pronoun-led: dropped
        "These engineers were famous.",  # vague reference: dropped
    ],
    "Statue of Liberty": ["Gustave Eiffel engineered the Statue of Liberty."],
    "Bar chart of yearly visitors": [
        "The Eiffel Tower received 7 million visitors in 2015.",  # also in the nearby text -> dropped
        "The bars of the Eiffel Tower visitor chart grow steadily from 1990 to 2015.",  # image only
    ],
}


def user_text(body: dict) -> str:
    parts = []
    for m in body.get("messages", []):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        parts.append(c if isinstance(c, str) else " ".join(p.get("text", "") for p in c if p.get("type") == "text"))
    return "\n".join(parts)


def system_text(body: dict) -> str:
    return "\n".join(m["content"] for m in body.get("messages", []) if m.get("role") == "system")


def responder(body: dict):
    assert "You extract facts" in system_text(body), "only keypoints requests expected"
    text = user_text(body)
    for marker, kps in REPLIES.items():
        if marker in text:
            return {"keypoints": kps}
    return {"keypoints": []}


@pytest.fixture
def server():
    with ScriptedLLMServer(responder) as s:
        yield s


@pytest.fixture
def client(server, tmp_path):
    c = LLMClient(LLMConfig(concurrency=4, timeout=5.0, max_retries=1), base_url=server.base_url,
                  cache_path=tmp_path / "llm_cache.sqlite", backoff_base=0.01)
    yield c
    c.close()


def by_text(result):
    return {k["text"]: k for k in result.keypoints}


def test_llm_keypoints_rows_mentions_and_filters(server, client):
    res = extract_keypoints(CHUNKS, IMAGES, client=client, entity_names=NAMES)
    assert res.failures == []
    assert len(server.chat_requests) == 4  # one per chunk, one per described image
    kps = by_text(res)
    assert set(kps) == {
        "The Eiffel Tower stands in Paris.",
        "The Eiffel Tower was finished in 1889 for the World's Fair in Paris.",
        "Gustave Eiffel's company designed the Eiffel Tower.",
        "Gustave Eiffel engineered the Statue of Liberty.",
        "The bars of the Eiffel Tower visitor chart grow steadily from 1990 to 2015.",
    }  # the image's "7 million visitors" keypoint is stated by its nearby text: dropped (CHARGE Eq. 2)
    for text, row in kps.items():
        assert row["id"] == content_id(row["source_id"], text)
        assert row["generator"] == "gpt-4o-mini"
        assert len(row["prompt_version"]) == 12
    # HAS_KEYPOINT from the right source and label
    edges = {(e["s"], e["d"], e["source_label"]) for e in res.has_keypoint}
    assert ("c1", kps["The Eiffel Tower stands in Paris."]["id"], "Chunk") in edges
    assert ("im1", kps["The bars of the Eiffel Tower visitor chart grow steadily from 1990 to 2015."]["id"],
            "Image") in edges
    assert len(res.has_keypoint) == len(res.keypoints)
    # MENTIONS from keypoints to entities, with counts
    mentions = {(m["s"], m["d"]): m["count"] for m in res.mentions}
    k = kps["Gustave Eiffel's company designed the Eiffel Tower."]["id"]
    assert mentions[(k, "gustave eiffel")] == 1
    assert mentions[(k, "eiffel tower")] == 1
    k = kps["The Eiffel Tower was finished in 1889 for the World's Fair in Paris."]["id"]
    assert mentions[(k, "eiffel tower")] == 1 and mentions[(k, "paris")] == 1
    # an entity the chunk's own list did not name is still found (entity_names is global)
    k = kps["Gustave Eiffel engineered the Statue of Liberty."]["id"]
    assert {d for (s, d) in mentions if s == k} == {"gustave eiffel", "statue of liberty"}


def test_crossmodal_offline_check_drops_what_the_text_states(client):
    """CHARGE Eq. 2 without a vision model: the lexical text-only verdict, labelled as such."""
    res = extract_keypoints([], IMAGES, client=client, entity_names=NAMES)
    kps = by_text(res)
    stated = content_id("im1", "The Eiffel Tower received 7 million visitors in 2015.")
    visual = kps["The bars of the Eiffel Tower visitor chart grow steadily from 1990 to 2015."]
    assert visual["modality"] == "image" and visual["crossmodal"] == "lexical"
    assert res.crossmodal_dropped == [stated] and stated not in {e["d"] for e in res.has_keypoint}


def test_crossmodal_vision_check_asks_text_only_and_image_only(tmp_path):
    """With a vision model: two verdicts per image keypoint; kept iff the image states it and the text does not."""
    from tests.builders.export.test_export import tiny_png

    def reply(body):
        if "You extract facts" in system_text(body):
            return {"keypoints": REPLIES["Bar chart of yearly visitors"] + ["The Eiffel Tower chart uses red bars."]}
        text, has_image = user_text(body), any(not isinstance(m["content"], str) for m in body["messages"])
        if has_image:  # the image shows the bars and the visitor figure, not the colour
            return {"stated": "red bars" not in text}
        return {"stated": "7 million" in text and "7 million visitors" in text.split("Source:")[0]}

    image = {**IMAGES[0], "path": str(tiny_png(tmp_path / "chart.png"))}
    with ScriptedLLMServer(reply) as server:
        config = LLMConfig(concurrency=4, timeout=5.0, max_retries=1, vision_model="vlm")
        with LLMClient(config, base_url=server.base_url, cache_path=tmp_path / "c.sqlite", backoff_base=0.01) as c:
            res = extract_keypoints([], [image], client=c, entity_names=NAMES)
        checks = [r for r in server.chat_requests if "You check whether one source" in system_text(r.body)]
    assert len(checks) == 2 * 3  # text-only and image-only for each of the three image keypoints
    assert sum(r.has_image for r in checks) == 3 and all(r.model == "vlm" for r in checks if r.has_image)
    kept = by_text(res)
    assert set(kept) == {"The bars of the Eiffel Tower visitor chart grow steadily from 1990 to 2015."}
    assert kept.popitem()[1]["crossmodal"] == "vision"
    assert len(res.crossmodal_dropped) == 2  # stated by the text; not shown by the image


def test_rerun_hits_the_cache(server, client):
    first = extract_keypoints(CHUNKS, IMAGES, client=client, entity_names=NAMES)
    n = len(server.chat_requests)
    second = extract_keypoints(CHUNKS, IMAGES, client=client, entity_names=NAMES)
    assert len(server.chat_requests) == n
    assert second.keypoints == first.keypoints and second.mentions == first.mentions
    assert client.accounting.of("keypoints", "generator").cache_hits == n


def test_failed_source_is_recorded_and_others_succeed(server, client):
    def flaky(body):
        text = user_text(body)
        if "Gustave Eiffel's company" in text:
            return refusal()
        if "Statue of Liberty" in text:
            return malformed()  # the repair request gets the same: fails after one repair
        return responder(body)

    server.responder = flaky
    res = extract_keypoints(CHUNKS, [], client=client, entity_names=NAMES)
    failed = dict(res.failures)
    assert set(failed) == {"c2", "c3"}
    assert failed["c2"].startswith("refusal")
    assert failed["c3"].startswith("invalid json")
    assert {k["source_id"] for k in res.keypoints} == {"c1"}  # nothing faked for failed sources

    # The rerun asks again only for the failed sources; c1 comes from the cache.
    server.responder = responder
    before = len(server.chat_requests)
    again = extract_keypoints(CHUNKS, [], client=client, entity_names=NAMES)
    assert again.failures == []
    assert len(server.chat_requests) - before == 2
    assert {k["source_id"] for k in again.keypoints} == {"c1", "c2", "c3"}


def test_offline_sentences_carry_entities_and_send_nothing(server):
    chunks = [
        {"id": "c1", "text": "The Eiffel Tower stands in Paris. Short one. Nothing named in this long sentence at all.",
         "entities": ["eiffel tower", "paris"]},
        {"id": "c2", "text": "Eiffel's firm built it. Gustave Eiffel was born in Dijon in 1832.",
         "entities": ["gustave eiffel"]},
    ]
    res = extract_keypoints(chunks, IMAGES, client=None, entity_names=NAMES)
    assert server.chat_requests == []
    texts = {(k["source_id"], k["text"]) for k in res.keypoints}
    assert ("c1", "The Eiffel Tower stands in Paris.") in texts
    assert ("c2", "Gustave Eiffel was born in Dijon in 1832.") in texts
    assert not any("Nothing named" in t or t == "Short one." for _, t in texts)
    assert all(k["generator"] == "offline" for k in res.keypoints)
    assert res.failures == []
    # the image description's sentence that names an entity becomes an image keypoint
    im = [k for k in res.keypoints if k["source_id"] == "im1"]
    assert len(im) == 1 and im[0]["modality"] == "image"
    k = next(k["id"] for k in res.keypoints if k["text"] == "The Eiffel Tower stands in Paris.")
    assert {(m["d"], m["count"]) for m in res.mentions if m["s"] == k} == {("eiffel tower", 1), ("paris", 1)}


def test_offline_caption_description_keypoints_are_dropped():
    """A description built from the caption (no vision model) restates the text: Eq. 2 keeps none of its keypoints
    (the text around the image states them; the chunk holding that text has them as text keypoints)."""
    image = {"id": "im2", "caption": "Figure 1: The Eiffel Tower at night.",
             "nearby_text": "The Eiffel Tower is lit by 20,000 bulbs every night.",
             "description": "Figure 1: The Eiffel Tower at night. The Eiffel Tower is lit by 20,000 bulbs every night."}
    res = extract_keypoints([], [image], entity_names=NAMES)
    assert res.keypoints == [] and res.has_keypoint == [] and res.mentions == []
    assert len(res.crossmodal_dropped) == 2


def test_offline_without_entity_names_uses_ids():
    res = extract_keypoints([{"id": "c", "text": "Several GPUs trained the network for a week.", "entities": ["gpu"]}], [])
    assert [k["text"] for k in res.keypoints] == ["Several GPUs trained the network for a week."]
    assert res.mentions == [{"s": res.keypoints[0]["id"], "d": "gpu", "count": 1}]


def test_max_per_source_and_duplicates(server, client):
    server.responder = lambda body: {"keypoints": [f"The Eiffel Tower fact number {i} is true." for i in range(12)]
                                     + ["The Eiffel Tower fact number 0 is true."]}
    res = extract_keypoints(CHUNKS[:1], [], client=client, entity_names=NAMES, max_per_source=5)
    assert len(res.keypoints) == 5 and len({k["id"] for k in res.keypoints}) == 5


def test_user_prompt_override(server, client, tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "keypoints.md").write_text(
        "---system---\nYou extract facts, custom.\n---user---\nPassage: $text ($title / $section)\n", encoding="utf-8")
    res = extract_keypoints(CHUNKS[:1], [], client=client, prompts_dir=prompts, entity_names=NAMES)
    assert "custom" in system_text(server.chat_requests[-1].body)
    assert res.keypoints and all(k["prompt_version"] != "" for k in res.keypoints)


@pytest.mark.parametrize("text, expected", [
    ("It was built in 1889.", False),
    ("This tower is tall.", False),
    ("They built it.", False),
    ("These results hold.", False),
    ("Its height is 330 m.", False),
    ("- Those are red.", False),
    ("The tower is tall.", True),
    ("There are 1,665 steps in the Eiffel Tower.", True),
    ("Thisbe is a character in Ovid.", True),
    ("42% of visitors climb the Eiffel Tower.", True),
])
def test_is_self_contained(text, expected):
    assert is_self_contained(text) is expected


def test_split_sentences_keeps_abbreviations():
    text = "The tower (Fig. 3) is tall. Dr. J. Smith measured it, e.g. with lasers. 12 teams agreed!"
    assert split_sentences(text, collapse_whitespace=True) == [
        "The tower (Fig. 3) is tall.",
        "Dr. J. Smith measured it, e.g. with lasers.",
        "12 teams agreed!",
    ]


def test_stated_by_rule():
    assert stated_by("The Eiffel Tower received 7 million visitors in 2015.",
                     "In 2015 the Eiffel Tower received 7 million visitors.")
    assert not stated_by("The Eiffel Tower received 7 million visitors in 2015.", "The Eiffel Tower is in Paris.")
    assert not stated_by("Paris.", "Paris is in France.")  # too little to judge


def test_entity_matcher_boundaries_plurals_and_aliases():
    m = EntityMatcher({"gpu": ["GPU"], "faa": ["FAA", "Federal Aviation Administration"], "c++": ["C++"]})
    counts = m.counts("The FAA's GPUs; the Federal  Aviation Administration uses C++ and a GPU. GPUX and faaX are not.")
    assert counts == {"faa": 2, "gpu": 2, "c++": 1}


def test_batched_keypoints_pack_several_passages_per_call(tmp_path):
    """keypoints_batch: 20 passages at 8 per call cost 3 calls; a passage the
    reply leaves out is asked again (here alone, with the one-passage prompt:
    one more call), and its keypoints are what that call said, nothing faked."""
    import re as _re

    def batch_responder(body):
        text = user_text(body)
        indices = [int(i) for i in _re.findall(r"^\[(\d+)\] ", text, flags=_re.MULTILINE)]
        if not indices:  # the one-passage prompt
            return {"keypoints": ["The Eiffel Tower fact asked alone holds."]}
        passages = [{"index": i, "keypoints": [f"The Eiffel Tower fact {i} holds in batch."]}
                    for i in indices if not ("Skip me." in text.split(f"[{i}] ")[1].split("\n[")[0])]
        return {"passages": passages}

    chunks = [{"id": f"c{i}", "text": f"Passage {i} about the Eiffel Tower." + (" Skip me." if i == 5 else ""),
               "entities": ["eiffel tower"]} for i in range(20)]
    with ScriptedLLMServer(batch_responder) as srv:
        c = LLMClient(LLMConfig(concurrency=4, timeout=5.0, max_retries=1), base_url=srv.base_url,
                      cache_path=tmp_path / "llm_cache.sqlite", backoff_base=0.01)
        res = extract_keypoints(chunks, [], client=c, entity_names=NAMES, batch_size=8)
        c.close()
        assert len(srv.chat_requests) == 4
    assert res.failures == []
    assert {k["source_id"] for k in res.keypoints} == {f"c{i}" for i in range(20)}
    assert [k["text"] for k in res.keypoints if k["source_id"] == "c5"] == ["The Eiffel Tower fact asked alone holds."]


def test_passages_left_out_of_batch_replies_are_asked_again_until_covered(tmp_path):
    """A small model's habit: a batch reply covers only its first two passages.
    The rest go again in smaller batches in the same run, so every passage ends
    with keypoints; a rerun is served wholly from the cache (0 calls)."""
    import re as _re

    def first_two_only(body):
        indices = [int(i) for i in _re.findall(r"^\[(\d+)\] ", user_text(body), flags=_re.MULTILINE)]
        return {"passages": [{"index": i, "keypoints": [f"The Eiffel Tower fact {i} holds."]}
                             for i in indices[:2]]}

    chunks = [{"id": f"c{i}", "text": f"Passage {i} about the Eiffel Tower.", "entities": ["eiffel tower"]}
              for i in range(12)]
    with ScriptedLLMServer(first_two_only) as srv:
        def run():
            c = LLMClient(LLMConfig(concurrency=2, timeout=5.0, max_retries=1), base_url=srv.base_url,
                          cache_path=tmp_path / "llm_cache.sqlite", backoff_base=0.01)
            try:
                return extract_keypoints(chunks, [], client=c, entity_names=NAMES, batch_size=8)
            finally:
                c.close()

        first = run()
        calls = len(srv.chat_requests)
        again = run()
        assert len(srv.chat_requests) == calls  # nothing asked twice
    assert first.failures == [] and again.failures == []
    assert {k["source_id"] for k in first.keypoints} == {f"c{i}" for i in range(12)}
    assert len(again.keypoints) == len(first.keypoints) == 12
    assert calls < 12


def test_a_reply_covering_no_passage_is_not_cached(tmp_path):
    """An unusable batch reply (no passage of the batch in it) is not a cached
    result: its passages are asked again in the same run, and the next run
    sends the batch again instead of reading the bad reply from the cache."""
    import re as _re

    batch_calls = []

    def responder(body):
        text = user_text(body)
        indices = [int(i) for i in _re.findall(r"^\[(\d+)\] ", text, flags=_re.MULTILINE)]
        if not indices:
            return {"keypoints": ["The Eiffel Tower is 330 m tall."]}
        batch_calls.append(indices)
        if len(batch_calls) == 1:
            return {"passages": [{"index": 7, "keypoints": ["The Eiffel Tower is tall."]}]}
        return {"passages": [{"index": i, "keypoints": [f"The Eiffel Tower fact {i}."]} for i in indices]}

    chunks = [{"id": f"c{i}", "text": f"The Eiffel Tower, passage {i}.", "entities": ["eiffel tower"]}
              for i in range(2)]
    with ScriptedLLMServer(responder) as srv:
        results = []
        for _ in range(2):
            c = LLMClient(LLMConfig(concurrency=1, timeout=5.0, max_retries=0), base_url=srv.base_url,
                          cache_path=tmp_path / "llm_cache.sqlite", backoff_base=0.01)
            results.append(extract_keypoints(chunks, [], client=c, entity_names=NAMES, batch_size=8))
            c.close()
    assert results[0].failures == [] and len(results[0].keypoints) == 2  # covered one by one
    assert len(batch_calls) == 2  # the second run asked the batch again: nothing bad was cached
    assert sorted(k["text"] for k in results[1].keypoints) == ["The Eiffel Tower fact 0.", "The Eiffel Tower fact 1."]
