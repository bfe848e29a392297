"""Whether a fork's text hop tells its subject by something its figures do not print (fork_walk.py)."""

from __future__ import annotations

from builders.chains.tables import normal_text


def described_apart(view, statements, chunk: str, entity: str, figures: list[str]) -> bool:
    """Whether `chunk` ties `entity` to a partner that none of the fork's figures prints. A text hop whose
    every partner is a label of the figures is read off the figures themselves: q60b's "Ling-Plus is
    comparable to DeepSeek-V2.5 on GPQA" matched the chart that prints Ling-Plus 42.55 beside
    DeepSeek-V2.5 41.67 at GPQA, and the strict verifier found the text hop not needed."""
    printed = " ".join(normal_text(view.nodes[f].text) for f in figures)
    return any(all(normal_text(name) not in printed for name in statements.names(partner))
               for partner in statements.partners(chunk, entity))
