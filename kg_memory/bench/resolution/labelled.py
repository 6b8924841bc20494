"""A labelled mention: a mention beside the entity it really refers to, and the slice of the
corpus it belongs to.

The label sits *beside* the mention, never inside it: the resolver only ever receives the
:class:`~kg_memory.domain.resolution.mention.Mention`, so it cannot peek.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.resolution.mention import Mention

__all__ = ["LabelledMention", "Slice"]


class Slice(StrEnum):
    """The corpus slices, each a known way entity resolvers fail."""

    SAME_NAME = "same_name"  # different people sharing one full name
    NICKNAMES = "nicknames"  # Bob for Robert, Jo for Joanna or Joseph
    TYPOS = "typos"  # misspelt names, and different people with near-identical names
    SHARED_IDENTIFIERS = "shared_identifiers"  # household phones, team inboxes, second emails
    MOVERS = "movers"  # people who moved city, sometimes unbeknown to the memory


class LabelledMention(BaseModel):
    """A mention and its ground truth. ``truth`` is the entity id it refers to, or ``None`` for
    someone the memory has never seen."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mention: Mention
    truth: str | None
    slice: Slice
    note: str = ""
