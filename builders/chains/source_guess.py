"""Bridges a reader guesses from the source alone: the question names its document ("in the Kimi k1.5
report"), so a bridge that is that document's own subject or method needs no hop to be found.

construction.ChainConstruction.check drops such a candidate before any LLM call. Both rules were
read off strict-model verdicts: "the method the paper proposes" picked out of CoT and CoT+SC
(q12, HiAR-ICL), "Kimi k1.5 long-CoT" among four rival models in the Kimi k1.5 report.
"""

from __future__ import annotations

import re

from builders.chains.fact_words import title_names

# A sentence presenting its subject as the authors' own ("we propose X", "this paper introduces X",
# "we have implemented ... to create CODE-QWEN-CHAT", "our framework"): the question then asks about
# "the method the paper proposes" or "the model the report's authors created".
_AUTHORS_OWN = re.compile(r"\b(?:we|this (?:paper|work|study|report))\b[^.;]{0,140}?"
                          r"\b(?:propos|introduc|present(?!\w*\s+(?:the\s+)?(?:results|experiments))|develop|buil[dt]"
                          r"|creat|design|releas)\w*"
                          r"|\bour (?:proposed |new |novel )?(?:method|approach|models?|framework|paradigm|system)\b",
                          re.IGNORECASE)


def presented_as_own(statement: str) -> bool:
    """The identifying sentence presents the bridge as the authors' own."""
    return bool(_AUTHORS_OWN.search(statement or ""))


def named_by_title(bridge_name: str, rivals: list[str], titles: set[str]) -> bool:
    """The bridge is the document's own subject (its title names it, title_names), and no rival
    shares the title's name, or the title writes the bridge's whole name and no rival's: told the
    source, a reader picks it without the hop (q16: "the model that leads the OpenCompass
    leaderboard" in the report titled "Orion-14B: ...", among GPT-4, Yi-34B and its own variant
    Orion-14B-Exam)."""
    if not rivals or not title_names(bridge_name, titles):
        return False
    if not any(title_names(r, titles) for r in rivals):
        return True
    return _whole_in_title(bridge_name, titles) and not any(_whole_in_title(r, titles) for r in rivals)


def _whole_in_title(name: str, titles: set[str]) -> bool:
    name = name.strip()
    whole = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", re.IGNORECASE)
    return bool(name) and any(whole.search(title) for title in titles)
