"""Dependency retirement: facts end when what they rely on ends.

A fact names its dependencies in ``depends_on``: an entity id (``"R1"``, a booking another
system owns) or another assertion's id (resolved at write time from ``"fact:subject/predicate"``).

* An owner's event on an entity (``R1.cancelled`` from the restaurant) retires every live fact
  that depends on the entity, from the event's instant on.
* When an assertion is superseded or retired, the facts that depend on it are retired from the
  instant it stopped holding, and so on transitively: "reviews go to Seoyun, assigned by the team
  lead" ends when the team lead changes, and is then *absent*, not stale.

* When an assertion is *forgotten* (erased, :mod:`kg_memory.domain.forgetting`), the facts that
  depend on it are retired over their whole valid time, transitively: the erased fact never
  held in any history that remains, so nothing may still be believed on its ground.

Retirement is a retraction of ``[at, open)`` with reason ``retired``; history keeps every revision.
Both cases run the one walk, :func:`retirement_walk`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.change import ChangePlan
from kg_memory.domain.errors import InvalidArgument
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, EndReason
from kg_memory.domain.supersession import plan_retraction

__all__ = [
    "ALWAYS",
    "FACT_PREFIX",
    "FactRef",
    "parse_fact_ref",
    "plan_retirement",
    "retirement_walk",
]

FACT_PREFIX = "fact:"

#: Where an erased dependency's lost validity begins: it never held, so a dependent retired for
#: it loses every instant of its valid time, not only those after some event.
ALWAYS = Interval(start=datetime.min.replace(tzinfo=UTC))


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
        field = "subject" if not subject else "predicate"
        raise InvalidArgument(
            f"dependency {ref!r} must look like fact:subject/predicate[@project]", field=field)
    return FactRef(subject=subject, predicate=predicate, project=project or None)


def plan_retirement(
    dependents: Sequence[Assertion], *, at: datetime, episode_id: str
) -> ChangePlan:
    """Retire ``dependents`` from ``at`` on (only the revisions still valid at or after ``at``)."""
    return plan_retraction(
        dependents, Interval(start=at), episode_id=episode_id, reason=EndReason.RETIRED
    )


def retirement_walk(
    ended: Iterable[tuple[str, Interval]],
    live_dependents: Callable[[str], Sequence[Assertion]],
    *,
    episode_id: str,
    erased: bool = False,
) -> Iterator[ChangePlan]:
    """Walk DEPENDS_ON backwards from everything that stopped holding, one retirement per step
    that finds dependents (a key nothing depends on yields nothing).

    ``ended`` pairs an assertion (or entity) id with the valid time it lost; ``live_dependents``
    returns the believed revisions whose ``depends_on`` names an id. The caller applies each
    yielded plan before resuming the walk, so a dependent reached twice (a diamond) is found
    closed the second time and yields no work: each retirement only shortens valid intervals,
    which is why the walk ends. With ``erased`` every step retires from :data:`ALWAYS` (the
    dependency was forgotten, not ended), so whatever is reachable is retired whole.

    >>> list(retirement_walk([], lambda key: [], episode_id="ep_1"))
    []
    """
    queue = deque(ended)
    while queue:
        key, portion = queue.popleft()
        dependents = live_dependents(key)
        if not dependents:  # most keys have none: no empty plan to build and apply
            continue
        at = ALWAYS.start if erased else portion.start
        plan = plan_retirement(dependents, at=at, episode_id=episode_id)
        yield plan
        queue.extend(plan.ended)
