"""Dependency retirement: facts end when what they rely on ends.

A fact names its dependencies in ``depends_on``: an entity id (``"R1"``, a booking another
system owns) or another assertion's id (resolved at write time from ``"fact:subject/predicate"``).

* An owner's event on an entity (``R1.cancelled`` from the restaurant) retires every live fact
  that depends on the entity, from the event's instant on.
* When an assertion is superseded or retired, the facts that depend on it are retired from the
  instant it stopped holding, and so on transitively: "reviews go to Seoyun, assigned by the team
  lead" ends when the team lead changes, and is then *absent*, not stale.

Retirement is a retraction of ``[at, open)`` with reason ``retired``; history keeps every revision.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.change import ChangePlan
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, EndReason
from kg_memory.domain.supersession import plan_retraction

__all__ = ["FACT_PREFIX", "FactRef", "parse_fact_ref", "plan_retirement"]

FACT_PREFIX = "fact:"


class FactRef(BaseModel):
    """``fact:subject/predicate`` or ``fact:subject/predicate@project``."""

    model_config = ConfigDict(frozen=True)

    subject: str
    predicate: str
    project: str | None = None


def parse_fact_ref(ref: str) -> FactRef | None:
    """The fact a dependency names, or ``None`` when it names an entity."""
    if not ref.startswith(FACT_PREFIX):
        return None
    body = ref.removeprefix(FACT_PREFIX)
    body, _, project = body.partition("@")
    subject, sep, predicate = body.partition("/")
    if not sep or not subject or not predicate:
        raise ValueError(f"dependency {ref!r} must look like fact:subject/predicate[@project]")
    return FactRef(subject=subject, predicate=predicate, project=project or None)


def plan_retirement(
    dependents: Sequence[Assertion], *, at: datetime, episode_id: str
) -> ChangePlan:
    """Retire ``dependents`` from ``at`` on (only the revisions still valid at or after ``at``)."""
    return plan_retraction(
        dependents, Interval(start=at), episode_id=episode_id, reason=EndReason.RETIRED
    )
