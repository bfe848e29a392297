"""The five chain types of MC-Search in one table.

Everything that differs by type is read from here: which walker method
samples it, whether its hops are serial or branches joining at the final
question, how many images it needs, and what a shrunk chain must still hold.
kg.config lists the names (CHAIN_TYPES) for validating the user's config;
tests/builders/chains check the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from kg.errors import ConfigError


@dataclass(frozen=True)
class ChainType:
    name: str
    serial: bool  # hops joined one after another; False: branches that join at the final question
    min_images: int  # images the corpus must have (linked to text) for the type to be possible
    first_is_image: bool = False  # image_initiated_chain: hop 0 is an image
    last_is_image: bool = False  # text_initiated_chain ends in an image hop
    needs_text: bool = True  # at least one text hop
    description: str = ""

    def holds(self, labels: list[str]) -> bool:
        """Whether hops with these labels ("Chunk" / "Image") still make this type."""
        images = sum(label == "Image" for label in labels)
        if images < self.min_images or (self.needs_text and images == len(labels)):
            return False
        if self.first_is_image and (not labels or labels[0] != "Image"):
            return False
        if self.last_is_image and (not labels or labels[-1] != "Image"):
            return False
        return True


CHAIN_TYPE_TABLE: dict[str, ChainType] = {t.name: t for t in (
    ChainType("text_chain", serial=True, min_images=0,
              description="text hop -> text hop -> ..., consecutive hops joined by a bridge entity"),
    ChainType("image_initiated_chain", serial=True, min_images=1, first_is_image=True,
              description="an image hop first, then text hops"),
    ChainType("text_initiated_chain", serial=True, min_images=1, last_is_image=True,
              description="text hops that end in an image hop"),
    ChainType("parallel_visual_textual_fork", serial=False, min_images=1,
              description="an image branch and a text branch about a shared entity"),
    ChainType("multi_image_fork", serial=False, min_images=2,
              description="two or more images compared or combined, plus a text hop"),
)}


def chain_type(name: str) -> ChainType:
    try:
        return CHAIN_TYPE_TABLE[name]
    except KeyError:
        raise ConfigError(f"unknown chain type {name!r}; choose from {', '.join(CHAIN_TYPE_TABLE)}") from None
