"""A deterministic, "fake but plausible" LLM for ScriptedLLMServer.

    from tests.fake_llm import FakeLLM
    fake = FakeLLM()
    with ScriptedLLMServer(responder=fake, latency=0.3) as server: ...

Every task is answered by reading the prompt in the request, never from a
script, so the replies fit whatever the pipeline sends:

* keypoints: 2-3 sentences of the passage that contain a capitalised word
  after their first word (a named thing), copied verbatim;
* describe_image: a description built from the caption and nearby text;
* domain_persona: a domain named after the first keywords, a concrete persona;
* verbalize_chain: parses the $hops JSON; sub-question i names hop i-1's
  bridge_to_next entity, answer i is hop i's bridge_to_next (the last hop: a
  capitalised phrase of its evidence); the question quotes a clue from hop 0's
  evidence; the final answer is the last hop's answer;
* repair_chain (recognised as verbalize_chain, whose system prompt it shares): the
  same reply with " (revised)" after the question;
* verify_chain: every hop needed, faithful, standalone, not closed-book, no
  shortcut; `not_needed` (a set of hop indices, or a callable
  (n_hops, question, evidence) -> set) makes the verifier report those hops as
  not needed;
* merge_duplicates: keeps question A, answer A.
* answer_from_evidence (the repair probe, empirical necessity): UNANSWERABLE (the removed
  hop is needed); with `probe_guesses`, the answer this fake wrote for that question.

The same request body always gets the same reply. `calls` counts requests per
task (thread-safe; the server answers from several threads).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

# System-prompt phrases of the packaged prompts (kg/prompts/*.md), then
# user-message markers as a fallback for users' own prompt files.
_TASK_MARKERS: tuple[tuple[str, str], ...] = (
    ("keypoints_batch", "several numbered passages"),
    ("keypoints", "You extract facts"),
    ("describe_image", "You describe figures"),
    ("domain_persona", "You look at the main topics"),
    ("verbalize_chain", "You write multi-hop questions"),
    ("verify_chain", "strict reviewer of multi-hop questions"),
    ("merge_duplicates", "You merge two questions"),
    ("answer_from_evidence", "strictly from the evidence"),
    ("verbalize_chain", "Hops, in order:"),
    ("verify_chain", "Reference answer:"),
    ("merge_duplicates", "Question A:"),
    ("domain_persona", "Topic keywords"),
    ("describe_image", "Describe the attached image"),
    ("keypoints", "Extract the keypoints"),
)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_CAP_PHRASE = re.compile(r"\b[A-Z][A-Za-z0-9\-]*(?: (?:of |de |the )?[A-Z][A-Za-z0-9\-]*)*")
_STOP_CAPS = frozenset("The A An This That These Those It In On At For From By With As And Or But If "
                       "When While Figure Fig Table Section See Caption".split())


def task_of(body: dict[str, Any]) -> str:
    """Which packaged task a chat request is for ("" if none is recognised)."""
    system = system_text(body)
    user = user_text(body)
    for task, marker in _TASK_MARKERS:
        if marker in system or marker in user:
            return task
    return ""


def user_text(body: dict[str, Any]) -> str:
    """The text of the first user message (the rendered prompt; repair turns come later)."""
    for m in body.get("messages", []):
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return ""


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(m.get("content") or "" for m in body.get("messages", [])
                     if m.get("role") == "system" and isinstance(m.get("content"), str))


def body_key(body: dict[str, Any]) -> str:
    """A stable fingerprint of a request body (for duplicate checks)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


def sentences(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text or "").strip()
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def capitalised_phrases(text: str) -> list[str]:
    """Runs of capitalised words, minus a sentence-initial function word, in text order."""
    out = []
    for m in _CAP_PHRASE.finditer(text or ""):
        words = m.group(0).split()
        while words and words[0] in _STOP_CAPS:
            words = words[1:]
        while words and words[-1] in _STOP_CAPS:
            words = words[:-1]
        phrase = " ".join(words).strip(" -")
        if len(phrase) >= 3 and phrase not in out:
            out.append(phrase)
    return out


def _between(text: str, start: str, end: str | None = None) -> str:
    i = text.find(start)
    if i < 0:
        return ""
    i += len(start)
    j = text.find(end, i) if end else -1
    return text[i:j] if j >= 0 else text[i:]


def _pick(options: list[str], seed: str) -> str:
    """A deterministic choice driven by the request content."""
    if not options:
        return ""
    h = int(hashlib.sha256(seed.encode("utf-8")).hexdigest()[:8], 16)
    return options[h % len(options)]


NotNeeded = set[int] | Callable[[int, str, str], set[int]]


class FakeLLM:
    """The responder: `server.responder = FakeLLM()`; see the module docstring."""

    def __init__(self, not_needed: NotNeeded | None = None, single_item_answers: bool | Callable[[str], bool] = False,
                 closed_book: bool = False, probe_guesses: bool = False, rewordable: bool = True) -> None:
        self.not_needed: NotNeeded = not_needed or set()
        self.rewordable = rewordable  # its verdict on whether a rewrite could fix a hop not needed
        self.probe_guesses = probe_guesses
        self.written: dict[str, str] = {}  # question -> the answer this fake wrote for it
        self.single_item_answers = single_item_answers
        self.closed_book = closed_book
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        task = task_of(body)
        with self._lock:
            self.calls[task or "unknown"] += 1
        text = user_text(body)
        handler = getattr(self, f"_{task}", None) if task else None
        if handler is None:
            raise ValueError(f"fake LLM: unrecognised request (system starts {system_text(body)[:60]!r})")
        return handler(text)

    # ---- ingest-side tasks ---------------------------------------------------
    def _keypoints(self, text: str) -> dict[str, Any]:
        passage = _between(text, 'Passage:\n"""\n', '\n"""') or text
        picked = []
        for st in sentences(passage):
            words = st.split()
            if len(st) < 20 or len(st) > 300 or len(words) < 4:
                continue
            if any(w[:1].isupper() for w in words[1:]) and st[-1:] in ".!?":
                picked.append(st)
            if len(picked) == 3:
                break
        return {"keypoints": picked}

    def _keypoints_batch(self, text: str) -> dict[str, Any]:
        parts = re.split(r"^\[(\d+)\] \([^)]*\)\n", text, flags=re.MULTILINE)
        out = []
        for i in range(1, len(parts) - 1, 2):
            body = parts[i + 1].split("\n\nExtract the keypoints")[0]
            out.append({"index": int(parts[i]), **self._keypoints('Passage:\n"""\n' + body + '\n"""')})
        return {"passages": out}

    def _describe_image(self, text: str) -> dict[str, Any]:
        title = _between(text, "Document: ", "\n").strip()
        caption = _between(text, "Caption: ", "\n").strip()
        nearby = _between(text, 'Text near the image:\n"""\n', '\n"""').strip()
        names = capitalised_phrases(f"{caption} {nearby}")[:5]
        what = caption.rstrip(".") or f"a figure from {title or 'the document'}"
        desc = f"Diagram showing {what}."
        if names:
            desc += " Labelled parts include " + ", ".join(names) + "."
        return {"description": desc}

    def _domain_persona(self, text: str) -> dict[str, Any]:
        block = _between(text, "(most frequent first):\n", "\n\n")
        block = re.sub(r"(?im)^\s*topic \d+:", " ", block)
        words = re.findall(r"[A-Za-z][A-Za-z0-9\-]+", block)
        top = [w for w in words if w.lower() not in {"and", "the", "of"}][:3] or ["technical documents"]
        domain = " and ".join(top[:2]) if len(top) > 1 else top[0]
        persona = (f"A specialist in {domain} who cross-checks facts about {', '.join(top)} across several "
                   "reports before writing a review.")
        titles = re.findall(r"(?m)^- (.+)$", text.split("Document titles:", 1)[-1])
        documents = [{"title": t, "domain": f"the subject of {t}", "persona": f"A reader who studies {t}."}
                     for t in titles]
        return {"domain": domain, "persona": persona, "documents": documents}

    def _merge_duplicates(self, text: str) -> dict[str, Any]:
        question = _between(text, "Question A: ", "\n").strip() or "Which one?"
        answer = _between(text, "Answer A: ", "\n").strip() or "unknown"
        return {"question": question, "answer": answer}

    # ---- generation --------------------------------------------------------
    def _verbalize_chain(self, text: str) -> dict[str, Any]:
        raw = _between(text, "Hops, in order:")
        start = raw.find("[")
        hops = json.JSONDecoder().raw_decode(raw[start:])[0] if start >= 0 else []
        out, answers = [], []
        for i, hop in enumerate(hops):
            evidence = hop.get("evidence", "")
            bridge = (hop.get("bridge_to_next") or "").strip()
            prev_bridge = (hops[i - 1].get("bridge_to_next") or "").strip() if i else ""
            last = i == len(hops) - 1
            if last or not bridge:
                avoid = {h.get("bridge_to_next", "").lower() for h in hops}
                options = [p for p in capitalised_phrases(evidence) if p.lower() not in avoid]
                answer = _pick(options, evidence) or bridge or "not stated"
            else:
                answer = bridge
            what = "image" if hop.get("modality") == "image" else "passage"
            if i == 0:
                sub = f"Which named item does the {what} about {self._clue(evidence)} point to?"
            elif prev_bridge:
                sub = f"What does the source that discusses {prev_bridge} say is linked to {prev_bridge}?"
            else:  # a figure-reference link: carry the previous answer
                sub = f"What does the source that discusses {answers[-1]} identify?"
            out.append({"subquestion": sub, "answer": answer})
            answers.append(answer)
        final = answers[-1] if answers else "unknown"
        clue = self._clue(hops[0].get("evidence", "")) if hops else "the topic"
        question = (f"Starting from the account of {clue}, and following each linked source in turn, "
                    f"which name does the last source give?")
        if "Reviewer's verdict:" in text:  # a repair_chain request (same system prompt opening): a rewrite
            question += " (revised)"
        with self._lock:
            self.written[question] = final
        return {"hops": out, "question": question, "answer": final}

    def _answer_from_evidence(self, text: str) -> dict[str, Any]:
        question = _between(text, "Question: ", "\n").strip()
        with self._lock:
            guess = self.written.get(question) if self.probe_guesses else None
        return {"answer": guess or "UNANSWERABLE"}

    @staticmethod
    def _clue(evidence: str) -> str:
        """A short clue from the evidence: its first capitalised phrase and a few words around it."""
        phrases = capitalised_phrases(evidence)
        if phrases:
            return phrases[0]
        words = evidence.split()[:6]
        return " ".join(words) or "the first source"

    def _verify_chain(self, text: str) -> dict[str, Any]:
        m = re.search(r"Evidence \((\d+) items", text)
        n = int(m.group(1)) if m else len(re.findall(r"^\[\d+\]", text, re.MULTILINE))
        question = _between(text, "Question: ", "\n").strip()
        evidence = _between(text, "one per hop):\n", "\n\nReturn the checks")
        unneeded = self.not_needed(n, question, evidence) if callable(self.not_needed) else self.not_needed
        without = [i in unneeded for i in range(n)]
        reasons = ("; ".join(f"item {i} repeats what the other items say" for i in sorted(unneeded) if i < n))
        shortcut = self.single_item_answers
        shortcut = shortcut(question) if callable(shortcut) else shortcut
        return {"answerable_without": without, "single_item_answers": shortcut,
                "faithful": True, "standalone": True, "closed_book_answerable": self.closed_book,
                "reasons": reasons, "rewording_can_fix": self.rewordable or not (unneeded or shortcut)}
