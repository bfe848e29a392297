"""Section roles: which part of a document each block belongs to.

Every reader ends with assign_roles(blocks): front matter (title block,
authors, mastheads before the content starts), contents (a table of
contents), body, references, acknowledgements, appendix and boilerplate
(licences, disclaimers, filing codes). Roles come from section headings
("References", "Acknowledgments", "Appendix A", "Table of Contents"), from
the shape of the blocks under them, and from a few boilerplate phrases; a
reader may pre-tag blocks it knows more about (a PDF page full of dot
leaders is contents) and those tags are kept.

Only body and appendix blocks serve as chain evidence by default; the rest
stays in the graph, searchable.
"""

from __future__ import annotations

import re

from kg.models import Block

_NUMBERING_RE = re.compile(r"^(?:(?:section|chapter|part)\s+)?(?:\d+(?:\.\d+)*|[ivxlc]+)[.):]?\s+", re.I)
_LETTER_RE = re.compile(r"^[A-Z](?:\.\d+)*[.):]?\s+(?=\S)")  # "A Details", "B.2 Data"

_ROLE_HEADINGS: list[tuple[str, re.Pattern[str]]] = [
    ("references", re.compile(
        r"^(?:references?|bibliography|works cited|literature cited|reference list|cited works|"
        r"references and notes|notes and references|citations)$")),
    ("acknowledgements", re.compile(
        r"^(?:acknowledge?ments?|funding|author contributions?|conflicts? of interest|"
        r"competing interests?|declaration of competing interests?|data availability(?: statement)?)$")),
    ("contents", re.compile(
        r"^(?:(?:table of )?contents|list of (?:figures|tables|illustrations|abbreviations|acronyms|symbols)|index)$")),
    ("appendix", re.compile(
        r"^(?:appendix|appendices|annex|annexes)\b|"
        r"^supplement(?:ary|al) (?:materials?|data|figures|tables|results|methods|notes)$")),
    ("boilerplate", re.compile(
        r"^(?:disclaimers?|copyright(?: notice)?|licen[cs]e|licensing|legal notice|terms of use|"
        r"trademarks?|how to cite\b.*|contact information|submit comments|comments? on .* publications?|"
        r"publication history|.*technical series policies|author orcid ids?|notices?|patent disclosure notice|"
        r"call for patent claims|additional information|abbreviations)$")),
]
# Headings that open the content proper: the front matter ends here.
_BODY_START_RE = re.compile(
    r"^(?:abstract|summary|executive summary|introduction|overview|background|preface|foreword|"
    r"purpose|scope|objectives?)\b", re.I)
_RUN_IN_ABSTRACT_RE = re.compile(r"^\s*abstract\s*[:.—–-]\s*\S", re.I)
# Boilerplate paragraphs wherever they stand (short blocks only: a body
# paragraph may discuss licences).
_BOILERPLATE_RE = re.compile(
    r"©|\bcopyright (?:\(c\)|\d{4})|\ball rights reserved\b|\b(?:this|the) (?:work|article|paper|publication|"
    r"document) is (?:licensed|distributed|published) under\b|\bpermission to make digital or hard copies\b|"
    r"\bnot intended to imply recommendation or endorsement\b|\bavailable free of charge from\b|"
    r"^billing code\b|^\[fr doc\.|\bcreative commons attribution\b.*\blicen[cs]e\b|"
    r"^proceedings of the\b.{5,250}\bpages \d+",  # a venue footer on a paper's first page
    re.I)
BOILERPLATE_MAX_CHARS = 600
# "Microsoft, Windows ... are trademarks of Microsoft Corporation in the United States": a notice, however
# long its list (IBM's papers end with one; q40 bridged two of its lines through "United States").
_TRADEMARK_NOTICE_RE = re.compile(r"\b(?:is|are|be)\b[^.]{0,60}\btrademarks?\b[^.]{0,60}\bof\b", re.I)
TRADEMARK_SHARE = 0.6  # of a block's sentences stating whose trademark a name is
FRONT_MATTER_MAX_PAGES = 3  # without an opening heading, the content starts by then
FRONT_MATTER_SHARE = 0.25  # an "Abstract" heading within this share of the pages ends the front matter
PROSE_CHARS = 300  # a paragraph this long is content, not a title block
# Runs of five dots or more (spaced or not), or four before a page number;
# not an ellipsis after a sentence ("cousin. ...").
_DOT_LEADER_RE = re.compile(r"\.{5,}|(?:\. ){5,}|\.{4,}\s*[\divxlc]{1,5}\s*$", re.I)


def heading_role(text: str) -> str:
    """The role a section heading opens, or "" for an ordinary heading."""
    raw = " ".join(text.split()).strip().rstrip(":.").lower()
    stripped = _NUMBERING_RE.sub("", raw)
    if _LETTER_RE.match(text.strip()):
        stripped = _LETTER_RE.sub("", text.strip()).rstrip(":.").lower()
    for role, pattern in _ROLE_HEADINGS:
        if pattern.match(raw) or pattern.match(stripped):
            return role
    return ""


def is_boilerplate(text: str) -> bool:
    return (len(text) <= BOILERPLATE_MAX_CHARS and bool(_BOILERPLATE_RE.search(text.strip()))) or _trademark_notice(text)


def _trademark_notice(text: str) -> bool:
    """Most of the block's sentences say whose trademark a name is, and two of them do or one says it
    is a registered one (a court's "is not a trademark of the plaintiff" is no notice)."""
    sentences = [s for s in re.split(r"(?<=[.;])\s+|\n+", text) if len(s.split()) >= 3]
    notices = [s for s in sentences if _TRADEMARK_NOTICE_RE.search(s) and not re.search(r"\bnot\b", s, re.I)]
    registered = any(re.search(r"\bregistered trademarks?\b", s, re.I) for s in notices)
    return (len(notices) >= 2 or registered) and len(notices) >= TRADEMARK_SHARE * len(sentences)


def is_dot_leader(text: str) -> bool:
    """A table-of-contents line: "2.1 Scope ........ 4"."""
    return bool(_DOT_LEADER_RE.search(text))


def _toc_like(block: Block) -> bool:
    """A contents entry: a heading, dot leaders, a line ending in a page
    number, or a short line that is no sentence."""
    text = block.text.strip()
    if block.kind == "heading" or is_dot_leader(text):
        return True
    if re.search(r"\s\d{1,4}$", text) and text.count(". ") <= 1:
        return True
    return len(text) < 120 and not text.endswith((".", "!", "?", ":"))


def _opening_heading(blocks: list[Block]) -> int:
    """Index of the heading that opens the content ("Abstract", "1 Introduction")
    when it comes early in the document, else -1."""
    first_page, last_page = blocks[0].page, blocks[-1].page
    limit = first_page + max(FRONT_MATTER_MAX_PAGES, FRONT_MATTER_SHARE * (last_page - first_page + 1))
    for index, block in enumerate(blocks):
        if block.page > limit:
            break
        if block.kind == "heading" and (block.section or _BODY_START_RE.match(block.text.strip())):
            return index
        if block.kind == "text" and _RUN_IN_ABSTRACT_RE.match(block.text):
            return index  # "Abstract: Ki67, a marker of ..." (journals that set it run-in)
    return -1


def _front_matter_end(blocks: list[Block]) -> int:
    """Index of the first block after the front matter.

    Everything before an early opening heading is front matter (a report's
    cover, title page and notices); without one, the front matter ends at the
    first prose paragraph of the first pages.
    """
    opening = _opening_heading(blocks)
    if opening >= 0:
        return opening
    first_page = blocks[0].page
    run_start, run = 0, []  # a line and the lines that continue it: a paragraph the reader split by lines
    for index, block in enumerate(blocks):
        if block.page - first_page >= FRONT_MATTER_MAX_PAGES:
            return index
        if block.kind != "text":
            run = []
            continue
        text = block.text.strip()
        if not (run and block.page == blocks[run_start].page and _continues(text)):
            run_start, run = index, []
        run.append(text)
        if len(text) >= PROSE_CHARS and not is_boilerplate(text):
            return index
        # Lines run together from one that opens mid-sentence are the tail of a page the file lacks.
        if len(run) > 1 and _is_prose(run) and not _continues(run[0]) and not is_boilerplate(" ".join(run)):
            return run_start
    return len(blocks)


# A sentence ending and the next beginning ("... in the quarter. Our robust ...", "2023. “Our"): a title
# block's lines (names, affiliations, a date) have none.
_SENTENCE_BREAK = re.compile(r"[a-z%)\d]{2}[.!?][\"”’)]?\s+[\"“‘(]?[A-Z]")


def _continues(line: str) -> bool:
    """A line that carries on the one before (a title block's names and affiliations each start anew)."""
    return bool(line) and (line[0].islower() or line[0].isdigit())


def _is_prose(lines: list[str]) -> bool:
    """Consecutive lines PROSE_CHARS long with a sentence ending inside: a paragraph (J&J's release
    sets its opening paragraph a line a block: its first three pages, results tables and all, had been
    front matter)."""
    text = " ".join(lines)
    return len(text) >= PROSE_CHARS and bool(_SENTENCE_BREAK.search(text))


def assign_roles(blocks: list[Block], front_matter: bool = False) -> None:
    """Set Block.role in place (see module docstring).

    front_matter: the document may open with a title block (PDF pages); plain
    text and markdown files start with their content.
    """
    if not blocks:
        return
    front_end = _front_matter_end(blocks) if front_matter else 0
    scope, scope_level = "body", 0
    for index, block in enumerate(blocks):
        preset = block.role != "body"
        if index < front_end:
            if not preset:
                block.role = "boilerplate" if is_boilerplate(block.text) else "front_matter"
            continue
        if block.kind == "heading":
            scope, scope_level = _next_scope(block, scope, scope_level)
        elif scope == "contents" and not _toc_like(block):
            scope = "body"  # a contents list ends where prose starts
        if preset:
            continue
        if scope in ("body", "appendix") and is_boilerplate(block.text):
            block.role = "boilerplate"
        else:
            block.role = scope


def _next_scope(heading: Block, scope: str, scope_level: int) -> tuple[str, int]:
    """The role after this heading: a role heading opens its role; an ordinary
    heading as deep as or deeper than the open role heading stays inside it."""
    level = heading.heading_level or 1
    role = heading_role(heading.text)
    if role:
        return role, level
    if scope == "appendix":
        return scope, scope_level  # appendices run to the end: "A ...", "B ..." are all appendix
    if scope == "references" and _LETTER_RE.match(heading.text.strip()):
        return "appendix", level  # lettered sections after the references
    if scope != "body" and level > scope_level:
        return scope, scope_level
    return "body", 0
