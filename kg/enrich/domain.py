"""Domain and expert persona of a corpus (MiRAGE §3.2): the persona phrases
the questions the way the corpus's natural expert reader would ask them.

- With an LLM client: one `domain_persona` request from the topic keywords
  (and document titles when given); generator = the model.
- Offline (client None), or when the request fails: built from the top
  keywords, "documents about X, Y and Z" and "an expert reader of X and Y";
  generator "offline". A failed request adds an "error" key to the result.

Keyword ranking (offline): topics are taken in the order given (largest
first, as kg.enrich.topics lists them); a keyword scores 1/(1+position) in every
topic that lists it, so keywords that lead several topics win. Ties keep
first appearance. Case-insensitive duplicates, one-character and purely
numeric keywords are skipped.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from kg.enrich.topics import MARKUP_WORD

log = logging.getLogger("hopgraph.domain")

STAGE = "domain"
OFFLINE = "offline"
OFFLINE_VERSION = "offline-1"
PROMPT_TOPICS = 20
PROMPT_KEYWORDS = 10
PROMPT_TITLES = 30


def top_keywords(topic_keywords: list[list[str]], n: int = 3) -> list[str]:
    """The n most representative keywords across topics (see the module docstring)."""
    score: dict[str, float] = {}
    surface: dict[str, str] = {}
    order: dict[str, int] = {}
    for keywords in topic_keywords or []:
        seen_here: set[str] = set()
        for pos, kw in enumerate(keywords or []):
            text = _clean(kw)
            key = text.lower()
            if len(key) < 2 or re.fullmatch(r"[\d\W_]+", key) or key in seen_here or is_markup(key):
                continue
            seen_here.add(key)
            score[key] = score.get(key, 0.0) + 1.0 / (1 + pos)
            surface.setdefault(key, text)
            order.setdefault(key, len(order))
    ranked = sorted(score, key=lambda k: (-score[k], order[k]))
    return [surface[k] for k in ranked[:n]]


# Beyond topics.MARKUP_WORD (the cell markup every tokenizer drops: "br" led every offline domain
# of a run on six PDFs, "documents about br, models and citations"): more HTML names and the words
# of links, citations and layout, which name no domain although they are words of the text.
_MARKUP_WORDS = frozenset("tbody thead table div span sup sub lt gt quot img href "
                          "html http https www com pdf et al fig".split())


def is_markup(keyword: str) -> bool:
    key = keyword.strip().lower()
    return key in _MARKUP_WORDS or bool(MARKUP_WORD.match(key)) or bool(re.search(r"[<>{}|\\=_]", key))


def offline_domain_persona(topic_keywords: list[list[str]]) -> dict[str, Any]:
    top = top_keywords(topic_keywords, 3)
    if top:
        domain = f"documents about {_join(top)}"
        persona = f"an expert reader of {_join(top[:2])}"
    else:
        domain = "general documents"
        persona = "an expert reader of these documents"
    return {"domain": domain, "persona": persona, "generator": OFFLINE, "prompt_version": OFFLINE_VERSION}


def infer_domain_persona(
    topic_keywords: list[list[str]],
    client: Any = None,
    prompts_dir: Path | None = None,
    titles: list[str] | None = None,
) -> dict[str, Any]:
    """{domain, persona, generator, prompt_version}; see the module docstring."""
    offline = offline_domain_persona(topic_keywords)
    if client is None:
        return offline

    from kg.llm.client import LLMRequest

    lines = []
    for i, keywords in enumerate((topic_keywords or [])[:PROMPT_TOPICS], 1):
        kws = [_clean(k) for k in (keywords or [])[:PROMPT_KEYWORDS] if _clean(k) and not is_markup(_clean(k))]
        if kws:
            lines.append(f"topic {i}: {', '.join(kws)}")
    title_lines = [f"- {_clean(t)}" for t in (titles or [])[:PROMPT_TITLES] if _clean(t)]
    request = LLMRequest.for_task(
        "domain_persona", "generator", STAGE, prompts_dir=prompts_dir,
        keywords="\n".join(lines) or "(none)", titles="\n".join(title_lines) or "(none given)",
    )
    (r,) = client.run_many([request])
    domain = _clean(getattr(r.value, "domain", "")) if r.ok else ""
    persona = _clean(getattr(r.value, "persona", "")) if r.ok else ""
    if domain and persona:
        return {"domain": domain, "persona": persona, "generator": r.model or "llm", "prompt_version": r.prompt_version,
                "documents": _by_title(getattr(r.value, "documents", None) or [], titles or [])}
    reason = (r.error or "empty domain or persona") + (f": {r.detail}" if r.detail else "")
    log.warning("domain/persona request failed (%s); using the keyword-based one", reason[:300])
    return {**offline, "error": reason[:300]}


def _by_title(lines: list[Any], titles: list[str]) -> dict[str, dict[str, str]]:
    """Title -> {domain, persona} for the reply's lines whose title is one that was given (compared
    without case and spacing: a model may retype a title slightly)."""
    given = {_clean(t).casefold(): t for t in titles}
    out = {}
    for line in lines:
        title = given.get(_clean(getattr(line, "title", "")).casefold())
        domain, persona = _clean(getattr(line, "domain", "")), _clean(getattr(line, "persona", ""))
        if title and domain and persona:
            out[title] = {"domain": domain, "persona": persona}
    return out


def _clean(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip()


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def domain_at_generate(store: Any, client: Any, prompts_dir: Path | None = None) -> dict[str, Any] | None:
    """With an LLM at generate time and no per-document personas yet (ingest ran offline, or named
    only the corpus's): one `domain_persona` request (cached like every call), written to the Corpus
    node, its per-document lines as JSON by document id. None when nothing changed."""
    if client is None:
        return None
    meta = store.run("corpus_meta")
    if meta and (meta[0].get("generator") or OFFLINE) != OFFLINE and meta[0].get("document_personas"):
        return None  # an LLM named it already
    topics = store.run("walk_topic_keywords")
    docs = [r for r in store.run("walk_documents") if r.get("title")]
    titles = [r["title"] for r in docs]
    result = infer_domain_persona([list(t["keywords"] or []) for t in topics[:8]], client=client,
                                  prompts_dir=prompts_dir, titles=titles)
    if result.get("generator") == OFFLINE:
        return None  # the request failed; the offline one stays
    lines = result.get("documents") or {}
    result["documents"] = {r["id"]: lines[r["title"]] for r in docs if r["title"] in lines}
    store.write("upsert_corpus_meta", [{"id": "corpus", "domain": result["domain"], "persona": result["persona"],
                                        "generator": result["generator"],
                                        "document_personas": json.dumps(result["documents"], sort_keys=True)}])
    return result
