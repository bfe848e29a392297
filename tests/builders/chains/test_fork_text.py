"""A fork's text hop must tell its subject by something its figures do not print (builders/chains/fork_text.py)."""

from __future__ import annotations

from types import SimpleNamespace

from builders.chains.fork_text import described_apart


class _Statements:
    def __init__(self, partners: dict[tuple[str, str], list[str]], names: dict[str, str]):
        self._partners, self._names = partners, names

    def partners(self, node_id: str, entity: str) -> list[str]:
        return self._partners.get((node_id, entity), [])

    def names(self, entity: str) -> list[str]:
        return [self._names[entity]]


def test_a_text_hop_whose_partners_the_charts_print_tells_the_subjects_apart_by_the_charts_alone():
    """q60b: "Ling-Plus is comparable to DeepSeek-V2.5 on GPQA", and the chart prints Ling-Plus 42.55 beside
    DeepSeek-V2.5 41.67 at GPQA: the verifier found the text hop not needed. A partner no chart prints
    (who built the model) is one only the text hop gives."""
    chart = "Figure 2: Ling-Plus performance.\nBars at \"GPQA\": \"DeepSeek-V2.5\" 41.67, \"Ling-Plus\" 42.55."
    view = SimpleNamespace(nodes={"fig1": SimpleNamespace(text=chart), "fig2": SimpleNamespace(text="Figure 1: Ling-Lite.")})
    names = {"ling": "Ling-Plus", "ds": "DeepSeek-V2.5", "gpqa": "GPQA", "ant": "Ant Group"}
    printed_only = _Statements({("c", "ling"): ["ds", "gpqa"]}, names)
    assert not described_apart(view, printed_only, "c", "ling", ["fig1", "fig2"])
    with_maker = _Statements({("c", "ling"): ["ds", "ant"]}, names)
    assert described_apart(view, with_maker, "c", "ling", ["fig1", "fig2"])
    assert not described_apart(view, _Statements({}, names), "c", "ling", ["fig1", "fig2"])  # no relation at all
