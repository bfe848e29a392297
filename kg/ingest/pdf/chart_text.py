"""A chart's printed line and its box: what the bar readers (bar_charts.py, tick_labels.py,
raster_charts.py) place labels and values by."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER = re.compile(r"^[-+\u2212]?\$?\d[\d,]*(?:\.\d+)?%?$")  # a data label: "79.2", "1,024", "$3.5", "54%"


def is_number(text: str) -> bool:
    """A data label as printed: "79.2", "1,024", "$3.5", "54%"."""
    return bool(_NUMBER.match(text.strip()))


@dataclass(frozen=True)
class Line:
    """A printed line of the figure: its text and box (x0, y0, x1, y1)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    rising: bool = False  # rotated to read upwards to the right: its box's right end is where the text ends

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


# A label printed with its value on one line: "Code: 11.0%", "Books (2.8%)", "Webpages 74.8%" (a pie's
# slices, a diagram's callouts). A bare trailing number is no value ("Llama 2 70" names a model), nor a
# parenthesised count ("GPT-4 (2023)"): only after a colon, or as a percentage.
_VALUE = r"[-+\u2212]?\d[\d,]*(?:\.\d+)?"
_INLINE = (re.compile(rf"^(?P<label>[^:]*[^\W\d_][^:]*?)\s*:\s*(?P<value>{_VALUE}\s?%?)$"),
           re.compile(rf"^(?P<label>.*?[^\W\d_].*?)\s*\(\s*(?P<value>{_VALUE}\s?%)\s*\)$"),
           re.compile(rf"^(?P<label>.*?[^\W\d_].*?)\s+(?P<value>{_VALUE}\s?%)$"))


def inline_value(text: str) -> tuple[str, str] | None:
    """(label, value) of a line that prints both, as printed; None for any other line."""
    text = " ".join(text.split())
    for pattern in _INLINE:
        found = pattern.match(text)
        if found:
            return found.group("label").strip(), found.group("value").replace(" ", "")
    return None
