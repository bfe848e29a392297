"""Verbalizers: turn a candidate chain into per-hop sub-questions and answers
plus a final question and answer.

* OfflineVerbalizer: deterministic composition from keypoints and bridge
  entities (no LLM). Each sub-question is a cloze over one keypoint of its
  hop, with the hop's target entity masked; the final question names only the
  first hop's clue and describes every later entity indirectly, so each hop
  has to be followed. Marked generator="offline".
* LLMVerbalizer: one generator call per chain (prompt kg/prompts/verbalize_chain.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from queries.corpus_view import CorpusView
from builders.chains.walkers import Candidate
from kg.text import split_sentences



@dataclass
class HopText:
    sub_question: str
    answer: str
    statement: str = ""  # the evidence sentence the hop was built on


@dataclass
class Draft:
    """A verbalized chain, before verification."""

    candidate: Candidate
    hops: list[HopText]
    question: str
    answer: str
    generator: str
    prompt_versions: dict[str, str] = field(default_factory=dict)
    error: str = ""  # why verbalizing failed, when it did
    anchor: str = ""  # the part of the question a reader starts from (offline: hop 0's masked statement)


# ---------------------------------------------------------------- helpers
def sentences(text: str) -> list[str]:
    return [s for s in split_sentences(text, collapse_whitespace=True) if 20 <= len(s) <= 400]


def entity_surface(view: CorpusView, entity_id: str, text: str) -> str | None:
    """The form of the entity as written in `text` (name or an alias), if present."""
    names = sorted({view.entity_name.get(entity_id, entity_id), *view.entity_aliases.get(entity_id, [])},
                   key=len, reverse=True)
    for name in names:
        if not name:
            continue
        m = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text, re.IGNORECASE)
        if m:
            return m.group(0)
    return None


def mentions_entity(view: CorpusView, entity_id: str, text: str) -> bool:
    return entity_surface(view, entity_id, text) is not None


def _mask(sentence: str, surface: str, blank: str = "___") -> str:
    return re.sub(r"(?<!\w)" + re.escape(surface) + r"(?!\w)", blank, sentence, count=1, flags=re.IGNORECASE)


def _quote(text: str, limit: int = 220) -> str:
    text = text.strip().rstrip(".")
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text.replace('"', "'")


class OfflineVerbalizer:
    name = "offline"

    def __init__(self, view: CorpusView):
        self.view = view

    def statements(self, node_id: str) -> list[str]:
        """Keypoints of the node first (atomic facts), then its raw sentences."""
        kps = [k.text for k in self.view.keypoints.get(node_id, [])]
        return kps + sentences(self.view.nodes[node_id].text)

    def pick(self, node_id: str, target: str, also: str = "",
             avoid: set[str] = frozenset()) -> tuple[str, str] | None:
        """A statement of the node naming `target` (and `also`, when possible): (statement, surface).

        Statements naming entities in `avoid` come last: for the first hop those
        are the entities later hops mention, which would let a reader skip hop 0.
        """
        fallback = None
        statements = self.statements(node_id)
        if avoid:
            statements.sort(key=lambda st: sum(mentions_entity(self.view, e, st) for e in avoid))
        for st in statements:
            surface = entity_surface(self.view, target, st)
            if not surface:
                continue
            if not also or mentions_entity(self.view, also, st):
                return st, surface
            fallback = fallback or (st, surface)
        return fallback

    def source_phrase(self, node_id: str) -> str:
        node = self.view.nodes[node_id]
        title = _quote(self.view.doc_title.get(node.doc_id, node.doc_id), 90)
        if node.label == "Image":
            caption = _quote(node.caption or node.text, 90)
            return f'the figure "{caption}" in "{title}"'
        return f'"{title}"'

    def verbalize(self, cand: Candidate) -> Draft:
        view = self.view
        targets = self._targets(cand)
        hops: list[HopText] = []
        for i, hop in enumerate(cand.hops):
            target = targets[i]
            incoming = cand.hops[i - 1].bridge if i > 0 and cand.hops[i - 1].bridge_kind == "entity" else ""
            if cand.graph_type.endswith("fork") and i < len(cand.hops) - 1:
                incoming = ""  # fork branches stand side by side
            kind = view.entity_type_word(target)
            avoid: set[str] = set()
            if i == 0:
                for later in cand.hops[1:]:
                    avoid |= view.mentions.get(later.node_id, set())
                avoid.discard(target)
            picked = self.pick(hop.node_id, target, incoming, avoid)
            if picked and (not incoming or mentions_entity(view, incoming, picked[0])):
                st, surface = picked
                masked = _mask(st, surface)
                q = f'Which {kind} fills the blank in this statement from {self.source_phrase(hop.node_id)}: "{_quote(masked)}"?'
            elif incoming:
                inc = view.entity_name.get(incoming, incoming)
                st, surface = picked if picked else ("", view.entity_name.get(target, target))
                q = f"Which {kind} does {self.source_phrase(hop.node_id)} mention together with {inc}?"
            elif picked:
                st, surface = picked
                q = f'Which {kind} fills the blank in this statement from {self.source_phrase(hop.node_id)}: "{_quote(_mask(st, surface))}"?'
            else:
                return Draft(cand, [], "", "", self.name, error=f"hop {i}: no statement names its target entity")
            hops.append(HopText(q, surface, st))
        question = self._final_question(cand, targets, hops)
        if not question:
            return Draft(cand, hops, "", "", self.name, error="could not compose a final question")
        anchor = _mask(hops[0].statement, hops[0].answer)
        return Draft(cand, hops, question, hops[-1].answer, self.name, {"verbalize": "offline-1"}, anchor=anchor)

    def _targets(self, cand: Candidate) -> list[str]:
        """What each hop's sub-question asks for: its bridge, the answer for the last hop."""
        out = []
        for i, hop in enumerate(cand.hops):
            if i == len(cand.hops) - 1:
                out.append(cand.answer_entity)
            elif hop.bridge_kind == "entity":
                out.append(hop.bridge)
            else:  # a link bridge (figure reference): ask for any entity the hop names
                ents = sorted(self.view.mentions.get(hop.node_id, ()))
                out.append(ents[0] if ents else cand.answer_entity)
        return out

    def _final_question(self, cand: Candidate, targets: list[str], hops: list[HopText]) -> str:
        view = self.view
        first = hops[0]
        first_kind = view.entity_type_word(targets[0])
        if not first.statement:
            return ""
        clue = f'the {first_kind} missing from "{_quote(_mask(first.statement, first.answer))}"'
        answer_kind = view.entity_type_word(cand.answer_entity)
        if cand.graph_type == "parallel_visual_textual_fork":
            return (f"Which {answer_kind} does {self.source_phrase(cand.hops[1].node_id)} mention together with "
                    f"{clue} (a statement from {self.source_phrase(cand.hops[0].node_id)})?")
        if cand.graph_type == "multi_image_fork":
            mid_kind = view.entity_type_word(targets[1])
            return (f"Which {answer_kind} does {self.source_phrase(cand.hops[2].node_id)} mention together with "
                    f"the {mid_kind} that {self.source_phrase(cand.hops[1].node_id)} shows, given that this figure "
                    f"shares {clue} with {self.source_phrase(cand.hops[0].node_id)}?")
        inner = clue
        for i in range(1, len(cand.hops) - 1):
            kind = view.entity_type_word(targets[i])
            inner = f"the {kind} that {self.source_phrase(cand.hops[i].node_id)} mentions together with {inner}"
        return f"Which {answer_kind} does {self.source_phrase(cand.hops[-1].node_id)} mention together with {inner}?"


# ---------------------------------------------------------------- LLM
def hops_payload(view: CorpusView, cand: Candidate, max_chars: int = 1500) -> str:
    """The hops as the verbalize prompt sees them."""
    items = []
    for i, hop in enumerate(cand.hops):
        node = view.nodes[hop.node_id]
        item = {
            "index": i,
            "modality": "image" if node.label == "Image" else "text",
            "evidence": node.text[:max_chars],
            "bridge_to_next": view.entity_name.get(hop.bridge, "") if hop.bridge else "",
        }
        if cand.graph_type.endswith("fork"):
            item["branch"] = i
        if i == len(cand.hops) - 1 and cand.answer_entity:
            # The walker picked an answer entity; candidates that differ only in
            # it must not collapse into one cached question.
            item["target_answer"] = view.entity_name.get(cand.answer_entity, cand.answer_entity)
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=1)
