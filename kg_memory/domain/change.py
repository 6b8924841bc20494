"""A change plan: what one rule decided to do to the store, before anything is written.

The domain rules (:mod:`kg_memory.domain.supersession`, :mod:`kg_memory.domain.dependency`) return
plans; the
service layer applies them inside the episode's transaction. Keeping the decision as data makes
the rules pure and lets a dry run print exactly what would happen.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.interval import Interval
from kg_memory.domain.model import EdgeType, EndReason, Kind, Qualifiers, Value

__all__ = ["ChangePlan", "Closure", "Draft", "Effect", "PlannedEdge"]


class Draft(BaseModel):
    """A revision to insert. The store assigns its revision number and system interval."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    assertion_id: str
    scope: str
    subject: str
    predicate: str
    value: Value
    qualifiers: Qualifiers = Qualifiers()
    kind: Kind
    writer: str
    depends_on: tuple[str, ...] = ()
    confidence: float = 1.0
    valid: Interval
    reason: EndReason
    recorded_by: str


class Closure(BaseModel):
    """End the system interval of one revision at the transaction's system time."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    assertion_id: str
    revision: int
    reason: EndReason
    closed_by: str


class PlannedEdge(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    src: str
    type: EdgeType
    dst: str


class Effect(BaseModel):
    """One line of the write log: what happened to which fact, in words a person reads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: str  # written | refreshed | replaced | retracted | retired | refused
    key: str
    value: Value | None = None
    assertion_id: str | None = None
    detail: str = ""


class ChangePlan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    closures: tuple[Closure, ...] = ()
    drafts: tuple[Draft, ...] = ()
    edges: tuple[PlannedEdge, ...] = ()
    effects: tuple[Effect, ...] = ()
    #: assertions whose valid time ended (or was cut) here, with the instant it ended: their
    #: dependents must be retired from then on.
    ended: tuple[tuple[str, Interval], ...] = ()

    def __add__(self, other: ChangePlan) -> ChangePlan:
        return ChangePlan(
            closures=self.closures + other.closures,
            drafts=self.drafts + other.drafts,
            edges=self.edges + other.edges,
            effects=self.effects + other.effects,
            ended=self.ended + other.ended,
        )

    @property
    def is_empty(self) -> bool:
        return not (self.closures or self.drafts or self.edges)
