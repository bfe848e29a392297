"""What the corpus's indexes say about one candidate chain (construction.ChainConstruction.check fills
it; it stays on the candidate's meta["construction"] and on the Chain node, for comparing verdicts)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Construction:
    """What the corpus's indexes say about one candidate (kept on the Chain node)."""

    siblings: list[int] = field(default_factory=list)  # per hop >= 1: rivals of the incoming bridge there
    sibling_names: list[list[str]] = field(default_factory=list)  # per hop >= 1: their names (a few)
    rivals: list[int] = field(default_factory=list)  # per bridge: same-kind names in its identifying sentence
    bridge_mentions: list[int] = field(default_factory=list)  # per bridge: evidence nodes naming it
    echo: list[float] = field(default_factory=list)  # per hop >= 1: BM25 share for hop i-1's fact
    last_rank: int = 0  # BM25 rank of the last hop for the earlier facts (0: not in the top 10)
    context: list[float] = field(default_factory=list)  # per cross-document step: dense cosine
    answer_rivals: int = -1  # other answers of the target's kind in the last hop (-1: a fork, not measured)
    answer_rival_names: list[str] = field(default_factory=list)  # a few of them, for the writer
    describe_by: list[list[str]] = field(default_factory=list)  # per bridge: fact words no later hop holds
    avoid_words: list[list[str]] = field(default_factory=list)  # per bridge: fact words a later hop holds
    reason: str = ""  # why the pre-check dropped it ("" when kept)

    def to_dict(self) -> dict:  # noqa: D102
        return asdict(self)
