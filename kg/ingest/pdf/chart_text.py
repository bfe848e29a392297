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
