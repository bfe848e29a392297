"""Keypoints: atomic, self-contained facts per chunk and per image (CHARGE §3.1).

A keypoint is one fact that can be retrieved and checked far away from the
passage it came from, so it must name its subject. Two modes:

- With an LLM client: one `keypoints` request per source (chunk text, or an
  image's description), all sent through `client.run_many` so they run
  concurrently and every validated reply lands in the cache at once. The
  replies are post-filtered: a keypoint that opens with a bare pronoun or a
  vague reference ("It", "This", "They", "These model ...") is dropped,
  because the prompt asked for the subject to be named and a fact that does
  not is useless out of context. A failed request is recorded in
  `failures` and its source gets no keypoints at all: nothing is faked, and a
  rerun pays only for the missing sources (successful replies are cached).
- Offline (client None): the keypoints of a source are its whole sentences
  (regex split, 20..300 characters, starting with a capital letter or digit
  and ending with . ! or ?) that mention at least one of the source's
  entities and pass the same pronoun rule. generator = "offline".

Crossmodal check (CHARGE Eq. 2): see kg.enrich.crossmodal. Its offline
text-only verdict is `stated_by`: lower-case both, alphanumeric tokens minus
a small stop-word list; stated when at least 80% of the keypoint's distinct
tokens occur in the text (|K ∩ T| / |K| >= 0.8); a keypoint with fewer than
two content tokens is never judged stated.

MENTIONS of a keypoint: every name or alias in `entity_names` found in the
keypoint, case-insensitively, at word boundaries (a trailing plural "s"/"es"
or possessive "'s" is tolerated so the id "gpu" matches "GPUs"). When
`entity_names` is None the entity ids of the source are used as their own
names (ids are normalised names, see kg.enrich.entities.normalize_entity).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.enrich.entity_matcher import EntityMatcher, _norm_space
from kg.ids import content_id
from kg.text import split_sentences

log = logging.getLogger("hopgraph.keypoints")

OFFLINE = "offline"
OFFLINE_VERSION = "offline-1"  # bump when the offline rule changes
STAGE = "keypoints"
MIN_SENTENCE_CHARS = 20
MAX_SENTENCE_CHARS = 300
CROSSMODAL_THRESHOLD = 0.8
MAX_SOURCE_CHARS = 12000  # longer passages are cut before prompting
MAX_BATCH_CHARS = 16000  # a batch closes early when its passages get this long

# First words that leave the subject unnamed. "There" is not here: "There
# are 12 stations on the line" names its subject after the verb.
_VAGUE_OPENERS = frozenset(
    "it its this that these those they them their theirs he him his she her hers we us our ours "
    "such here".split()
)
_LEADING_JUNK = re.compile(r"^[\s\-\u2022*\u2013\u2014>#]*(?:\(?\d{1,3}[.)]\s+)?")
_FIRST_WORD = re.compile(r"[A-Za-z']+")
_WHOLE_START = re.compile(r"[\"'(\[\u201c]?[A-Z0-9]")
_WHOLE_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*$")
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_STOPWORDS = frozenset(
    "a an the and or of in on at to for from by with as is are was were be been being it its this that these "
    "those which who whom whose than then there their they them he she his her we our you your i has have had "
    "do does did not no nor but so if into onto over under about also can could may might will would shall "
    "should must very more most such each both all any some".split()
)


@dataclass
class KeypointResult:
    keypoints: list[dict[str, Any]] = field(default_factory=list)
    has_keypoint: list[dict[str, Any]] = field(default_factory=list)
    mentions: list[dict[str, Any]] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)
    # ids of image keypoints the crossmodal check (Eq. 2) dropped
    crossmodal_dropped: list[str] = field(default_factory=list)


# Public helpers -------------------------------------------------------------
def is_self_contained(keypoint: str) -> bool:
    """False for a keypoint that opens with a bare pronoun or vague reference."""
    m = _FIRST_WORD.match(_LEADING_JUNK.sub("", keypoint).lstrip("\"'"))
    if m is None:
        return True  # starts with a number or symbol, e.g. "42% of ..."
    word = m.group(0).lower()
    if word.endswith("'s"):
        word = word[:-2]
    return word not in _VAGUE_OPENERS


def content_tokens(text: str) -> set[str]:
    return {t for t in _TOKEN.findall((text or "").lower()) if t not in _STOPWORDS}


def stated_by(keypoint: str, context: str, threshold: float = CROSSMODAL_THRESHOLD) -> bool:
    """The crossmodal rule (module docstring): token containment of the keypoint in the context."""
    k = content_tokens(keypoint)
    if len(k) < 2:
        return False
    return len(k & content_tokens(context)) / len(k) >= threshold


def keypoint_mentions(keypoints: list[dict[str, Any]], entity_names: dict[str, list[str]]) -> list[dict[str, Any]]:
    """MENTIONS rows of keypoints already made: what extract_keypoints gives
    when asked with these names. Lets the LLM be asked before the entities
    of the passages are known (entity_names={} then, mentions added here)."""
    matcher = EntityMatcher(entity_names)
    return [{"s": k["id"], "d": eid, "count": n} for k in keypoints for eid, n in sorted(matcher.counts(k["text"]).items())]


# The stage -------------------------------------------------------------------
def extract_keypoints(
    chunks: list[dict[str, Any]],
    images: list[dict[str, Any]],
    client: Any = None,
    prompts_dir: Path | None = None,
    entity_names: dict[str, list[str]] | None = None,
    max_per_source: int = 8,
    batch_size: int = 1,
) -> KeypointResult:
    """Keypoints of chunks ({id, text, entities[, title, section]}) and images
    ({id, description, nearby_text, caption[, entities, title]}); see the module docstring."""
    sources = [_Source(c["id"], c.get("text") or "", "Chunk", "text", list(c.get("entities") or []),
                       c.get("title") or "", c.get("section") or "", "") for c in chunks]
    for im in images:
        description = (im.get("description") or "").strip()
        if not description:
            continue  # nothing to read facts from
        context = " ".join(x for x in (im.get("caption") or "", im.get("nearby_text") or "") if x)
        sources.append(_Source(im["id"], description, "Image", "image", list(im.get("entities") or []),
                               im.get("title") or "", im.get("caption") or im.get("label") or "", context))
    sources = [s for s in sources if s.text.strip()]

    if entity_names is None:
        entity_names = {eid: [eid] for s in sources for eid in s.entities}
    matcher = EntityMatcher(entity_names)

    result = KeypointResult()
    if client is None:
        for s in sources:
            _add(result, s, _offline_keypoints(s, entity_names, max_per_source), OFFLINE, OFFLINE_VERSION, matcher)
        return _crossmodal(result, sources, images, None, prompts_dir)

    if batch_size > 1:
        _llm_batched(result, sources, client, prompts_dir, max_per_source, batch_size, matcher)
        return _crossmodal(result, sources, images, client, prompts_dir)

    from kg.llm.client import LLMRequest

    requests = [
        LLMRequest.for_task(
            "keypoints", "generator", STAGE, prompts_dir=prompts_dir,
            title=s.title, section=s.section, text=s.text[:MAX_SOURCE_CHARS],
        )
        for s in sources
    ]
    replies = client.run_many(requests) if requests else []
    for s, r in zip(sources, replies):
        if not r.ok:
            _fail(result, s, r)
            continue
        texts = _clean_llm_keypoints(r.value.keypoints, max_per_source)
        _add(result, s, texts, r.model or "llm", r.prompt_version, matcher)
    return _crossmodal(result, sources, images, client, prompts_dir)


def _crossmodal(result: KeypointResult, sources: list["_Source"], images: list[dict[str, Any]], client: Any,
                prompts_dir: Path | None) -> KeypointResult:
    from kg.enrich.crossmodal import drop_rejected

    contexts = {s.id: s.context for s in sources if s.modality == "image"}
    return drop_rejected(result, contexts, images, client, prompts_dir, stated_by)


def _llm_batched(result: KeypointResult, sources: list[_Source], client: Any, prompts_dir: Path | None,
                 limit: int, batch_size: int, matcher: EntityMatcher) -> None:
    """Several passages per call: one request per `batch_size` sources (or per
    batch_chars() of text), so a corpus costs chunks/batch_size calls, not one
    per chunk.

    Small models leave passages out of a batch reply, or fail on a long one.
    So a reply's left-out passages, and the passages of a batch whose reply
    was unusable or too long for the model, go again in batches of half the
    size, down to one passage per call (with the simpler one-passage prompt),
    in the same run. A reply that covers none of its passages is refused by
    the client (never cached); one that covers some is cached, so a rerun
    pays only for what is still missing.
    What fails as a single passage, or for a reason a smaller batch does not
    change (endpoint down, budget), is a failure of that passage only.
    """
    max_chars = batch_chars(client)
    pending, size = sources, batch_size
    while pending:
        batches = _make_batches(pending, size, max_chars)
        replies = client.run_many([_batch_request(b, prompts_dir, max_chars) for b in batches])
        again: list[_Source] = []
        for batch, r in zip(batches, replies):
            if not r.ok:
                if len(batch) > 1 and r.error in _SPLIT_ERRORS:
                    again.extend(batch)
                else:
                    for s in batch:
                        _fail(result, s, r)
                continue
            by_index = ({0: r.value.keypoints} if len(batch) == 1
                        else {p.index: p.keypoints for p in r.value.passages})
            for i, s in enumerate(batch):
                if i in by_index:
                    _add(result, s, _clean_llm_keypoints(by_index[i], limit), r.model or "llm", r.prompt_version,
                         matcher)
                else:  # a batch of one is the one-passage prompt: never left out
                    again.append(s)
        pending, size = again, max(1, max(len(b) for b in batches) // 2)
        if again:
            log.info("keypoints: %d passages left out or refused; asking again %d per call", len(again), size)


# Reasons a smaller batch may cure: the model dropped or garbled a long reply,
# or the prompt did not fit its context window.
_SPLIT_ERRORS = frozenset({"invalid json", "schema violation", "unusable reply", "prompt too long", "refusal"})


def batch_chars(client: Any) -> int:
    """Passage characters per batch: MAX_BATCH_CHARS, or for a model with a
    configured context window about 1.5 characters per window token (at ~4
    characters a token that is ~40% of the window, leaving the rest to the
    instructions and the reply)."""
    window = getattr(getattr(client, "config", None), "context_window", None)
    if not window:
        return MAX_BATCH_CHARS
    return max(500, min(MAX_BATCH_CHARS, int(window * 1.5)))


def _make_batches(sources: list[_Source], size: int, max_chars: int) -> list[list[_Source]]:
    batches: list[list[_Source]] = []
    used = 0
    for s in sources:
        length = min(len(s.text), max_chars, MAX_SOURCE_CHARS)
        if not batches or len(batches[-1]) >= size or used + length > max_chars:
            batches.append([])
            used = 0
        batches[-1].append(s)
        used += length
    return batches


def _batch_request(batch: list[_Source], prompts_dir: Path | None, max_chars: int) -> Any:
    """A keypoints_batch request; a batch of one is asked with the one-passage
    `keypoints` prompt, whose reply shape small models get right far more often."""
    from kg.llm.client import LLMRequest

    cut = min(MAX_SOURCE_CHARS, max_chars)
    if len(batch) == 1:
        s = batch[0]
        return LLMRequest.for_task("keypoints", "generator", STAGE, prompts_dir=prompts_dir,
                                   title=s.title, section=s.section, text=s.text[:cut])
    passages = "\n\n".join(
        f"[{i}] ({'image description' if s.label == 'Image' else 'text'}"
        f"{', section ' + s.section if s.section else ''})\n{s.text[:cut]}"
        for i, s in enumerate(batch))
    return LLMRequest.for_task("keypoints_batch", "generator", STAGE, prompts_dir=prompts_dir,
                               title=batch[0].title, passages=passages, count=len(batch),
                               accept=_covers_a_passage(len(batch)))


def _covers_a_passage(count: int):
    """The client's usability check of a batch reply: it must cover at least
    one of its passages (a reply about none is not worth caching)."""
    def check(value: Any) -> str | None:
        if any(0 <= p.index < count for p in value.passages):
            return None
        return f"the reply covers none of the {count} passages"
    return check


def _fail(result: KeypointResult, s: "_Source", r: Any) -> None:
    reason = r.error or "error"
    if r.detail:
        reason = f"{reason}: {r.detail}"[:300]
    result.failures.append((s.id, reason))
    if r.error in ("endpoint down", "budget exhausted"):
        log.debug("keypoints for %s %s not asked: %s", s.label, s.id, reason)  # the run says it once
    else:
        log.warning("keypoints for %s %s failed: %s", s.label, s.id, reason)


# Internals -------------------------------------------------------------------
@dataclass
class _Source:
    id: str
    text: str
    label: str  # Chunk | Image
    modality: str  # text | image
    entities: list[str]
    title: str
    section: str
    context: str  # for images: caption + nearby text (the crossmodal check)


def _offline_keypoints(s: _Source, entity_names: dict[str, list[str]], limit: int) -> list[str]:
    names = {eid: entity_names.get(eid) or [eid] for eid in s.entities}
    if not names and s.label == "Image":
        names = entity_names  # images rarely carry their own entity list
    if not names:
        return []
    matcher = EntityMatcher(names)
    out: list[str] = []
    for sentence in split_sentences(s.text, collapse_whitespace=True):  # PDF text keeps its line breaks
        if not (MIN_SENTENCE_CHARS <= len(sentence) <= MAX_SENTENCE_CHARS):
            continue
        # Whole sentences only (a chunk cut mid-sentence leaves fragments at
        # its edges), and the same self-containment rule as LLM keypoints.
        if not (_WHOLE_START.match(sentence) and _WHOLE_END.search(sentence)) or not is_self_contained(sentence):
            continue
        if matcher.counts(sentence):
            out.append(sentence)
            if len(out) >= limit:
                break
    return out


def _clean_llm_keypoints(raw: Iterable[Any], limit: int) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for item in raw:
        if not isinstance(item, str):
            continue
        text = _norm_space(_LEADING_JUNK.sub("", item))
        if len(text) < 8 or not is_self_contained(text):
            continue
        key = text.lower()
        if key in seen:
            continue
        seen.add(key)
        out.append(text)
        if len(out) >= limit:
            break
    return out


def _add(result: KeypointResult, s: _Source, texts: list[str], generator: str, version: str,
         matcher: EntityMatcher) -> None:
    seen: set[str] = set()
    for text in texts:
        kid = content_id(s.id, text)
        if kid in seen:
            continue
        seen.add(kid)
        result.keypoints.append({"id": kid, "text": text, "modality": s.modality, "source_id": s.id,
                                 "generator": generator, "prompt_version": version})
        result.has_keypoint.append({"s": s.id, "d": kid, "source_label": s.label})
        for eid, n in sorted(matcher.counts(text).items()):
            result.mentions.append({"s": kid, "d": eid, "count": n})
