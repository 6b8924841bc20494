"""Property tests: random two-tenant histories, and nothing of one tenant in the other's memory.

Two tenants, u1 and u2, write into one store with colliding names on purpose: the same entity
ids (``ana``, ``R1``), the same operation ids, the same owner. Each operation runs at its own
instant on a shared manual clock. The reference is the memory itself with the other tenant
taken away: every answer a tenant's scoped handle gives (as-of answers on both axes, history,
the gate's audit, entities, blocks, identity decisions, lineage of each of its facts, its PROV
export, and the outcome of each of its own operations, errors included) must be exactly what it
gives when the same tenant's operations alone are replayed, at the same instants, into an empty
store. If any query path returned, or any rule changed, something of the other tenant, the two
would differ.

A second, independent check needs no replay: every value and text a tenant writes is tagged
with its scope, so no view of u1 may contain the string "u2" (ids are hex, which has no "u").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from kg_memory import KgMemoryError, Memory, ScopedMemory, serialize_prov
from kg_memory.services.ingestion import assertion_id_for, episode_id_for
from tests.conftest import EPOCH, ManualClock, MemoryFactory, episode, fact

SCOPES = ("u1", "u2")
SUBJECTS = ("ana", "bob")
OPERATIONS = ("op-1", "op-2", "op-3", "op-4")  # few, so both reuse and collisions happen


@dataclass(frozen=True)
class Say:
    """The user states a fact (``bob`` is declared as an entity, with a name)."""

    op: str
    subject: str
    value: int


@dataclass(frozen=True)
class Book:
    """The agent books R1, owned by the restaurant; a fact depends on it."""

    op: str


@dataclass(frozen=True)
class Cancel:
    """The restaurant cancels R1 (an owner's event)."""

    op: str


@dataclass(frozen=True)
class Claim:
    """A third party phrases a fact as the user's: refused and audited."""

    op: str
    subject: str


@dataclass(frozen=True)
class Retract:
    op: str
    subject: str


@dataclass(frozen=True)
class Merge:
    """A person says bob is ana."""


@dataclass(frozen=True)
class Mention:
    """The user names "Jo" with an email: resolved against the scope's entities only."""

    op: str
    email: int


@dataclass(frozen=True)
class Consolidate:
    """A worker derives ana's profile from the facts it can see, and from the other tenant's
    fact ids (deterministic, so an attacker can compute them): those must count for nothing."""


@dataclass(frozen=True)
class Probe:
    """The handle names the other tenant's episode and fact ids directly: each must be
    exactly as unknown as an id that never existed."""

    op: str


@dataclass(frozen=True)
class Forget:
    selector: str  # without the scope: the scoped handle binds it
    dry_run: bool


Step = Say | Book | Cancel | Claim | Retract | Merge | Mention | Consolidate | Probe | Forget

steps = st.one_of(
    st.builds(Say, st.sampled_from(OPERATIONS), st.sampled_from(SUBJECTS), st.integers(0, 2)),
    st.builds(Book, st.sampled_from(OPERATIONS)),
    st.builds(Cancel, st.sampled_from(OPERATIONS)),
    st.builds(Claim, st.sampled_from(OPERATIONS), st.sampled_from(SUBJECTS)),
    st.builds(Retract, st.sampled_from(OPERATIONS), st.sampled_from(SUBJECTS)),
    st.just(Merge()),
    st.builds(Mention, st.sampled_from(OPERATIONS), st.integers(0, 1)),
    st.just(Consolidate()),
    st.builds(Probe, st.sampled_from(OPERATIONS)),
    st.builds(Forget, st.sampled_from(
        ["entity:ana", "entity:R1", "source:user", "source:restaurant",
         "category:{scope}/ana/*", "category:{scope}/bob/diet"]), st.booleans()),
)
histories = st.lists(st.tuples(st.sampled_from(SCOPES), steps), min_size=1, max_size=10)


def _record(scope: str, step: Step, at: Any) -> Any:
    """The ingest record of a step; every value and text carries its scope."""
    if isinstance(step, Say):
        entities = [{"entity_id": "bob", "type": "person", "name": f"Bob {scope}"}]
        return episode(step.op, "user", at, scope=scope, content=f"{scope} says",
                       entities=entities if step.subject == "bob" else [],
                       assertions=[fact(step.subject, "diet", f"{scope}-{step.value}")])
    if isinstance(step, Book):
        return episode(step.op, "agent", at, scope=scope, content=f"{scope} booked R1",
                       entities=[{"entity_id": "R1", "type": "booking",
                                  "owners": ["restaurant"]}],
                       assertions=[fact(scope, "dinner", f"{scope}-R1", "world",
                                        depends_on=["R1"])])
    if isinstance(step, Cancel):
        return episode(step.op, "restaurant", at, scope=scope, content=f"{scope} cancelled",
                       events=[{"target": "R1", "name": "cancelled"}])
    if isinstance(step, Claim):
        return episode(step.op, "restaurant", at, scope=scope, content=f"{scope} claims",
                       assertions=[fact(step.subject, "diet", f"{scope}-claimed")])
    if isinstance(step, Mention):
        jo = {"key": "jo", "name": "Jo", "identifiers": {"email": f"jo{step.email}@example.org"}}
        return episode(step.op, "user", at, scope=scope, content=f"{scope} mentions Jo",
                       resolve=[jo], assertions=[fact("@jo", "diet", f"{scope}-jo")])
    assert isinstance(step, Retract)
    return episode(step.op, "user", at, scope=scope, content=f"{scope} retracts",
                   retractions=[{"subject": step.subject, "predicate": "diet"}])


def _foreign(scope: str, op: str) -> tuple[str, str]:
    """The episode and first fact ids the other tenant's ``op`` has (or would have)."""
    other = next(s for s in SCOPES if s != scope)
    episode_id = episode_id_for(other, op)
    return episode_id, assertion_id_for(episode_id, 0)


def _attempt(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except KgMemoryError as exc:
        return [type(exc).__name__, str(exc)]


def _dump(model: BaseModel | None) -> Any:
    return None if model is None else model.model_dump(mode="json")


def _graph(graph: Any) -> Any:
    return (sorted(str(n) for n in graph.nodes), sorted(str(e) for e in graph.edges(keys=True)))


def _probe(handle: ScopedMemory, op: str) -> Any:
    episode_id, fact_id = _foreign(handle.scope, op)
    return [_attempt(call) for call in (
        lambda: _graph(handle.lineage(fact_id)),
        lambda: _graph(handle.lineage(episode_id)),
        lambda: serialize_prov(handle.prov([fact_id]), "json"),
        lambda: handle.read_basis("ana", "profile", [fact_id]).model_dump(mode="json"),
        lambda: handle.forget(f"assertion:{fact_id}", dry_run=True).model_dump(mode="json"),
        lambda: handle.forget(f"episode:{episode_id}").model_dump(
            mode="json", exclude={"destinations"}),
        lambda: handle.unmerge_decision(fact_id, by=handle.scope, reason="probe").entity_id,
        lambda: _dump(handle.profile("ana")),
    )]


def _apply(handle: ScopedMemory, step: Step, at: Any) -> Any:
    """Run one step through the tenant's handle; its outcome (or refusal) is part of the view."""
    try:
        if isinstance(step, Probe):
            return _probe(handle, step.op)
        if isinstance(step, Consolidate):
            own = [f.assertion_id for f in handle.asof(subject="ana").facts]
            foreign = [_foreign(handle.scope, op)[1] for op in OPERATIONS]
            return handle.consolidate("ana", "profile", [*own, *foreign]).model_dump(
                mode="json")
        if isinstance(step, Merge):
            return handle.merge("ana", "bob", by=handle.scope, reason="same").entity_id
        if isinstance(step, Forget):
            report = handle.forget(step.selector.format(scope=handle.scope),
                                   dry_run=step.dry_run)
            return report.model_dump(mode="json", exclude={"destinations"})
        return handle.ingest(_record(handle.scope, step, at)).model_dump(mode="json")
    except KgMemoryError as exc:
        return [type(exc).__name__, str(exc)]


def _view(handle: ScopedMemory, instants: list[Any]) -> dict[str, Any]:
    """Everything the tenant's handle can read."""
    view: dict[str, Any] = {}
    last = instants[-1]
    for at in instants:
        view[f"asof {at}"] = handle.asof(at, at).model_dump(mode="json")
        view[f"asof {at} known last"] = handle.asof(at, last).model_dump(mode="json")
    facts: set[str] = set()
    entities = handle.entities()
    for subject in dict.fromkeys((*SUBJECTS, handle.scope, "R1", *(e.entity_id for e in entities))):
        entries = handle.history(subject)
        facts |= {e.version.assertion_id for e in entries}
        view[f"history {subject}"] = [e.model_dump(mode="json") for e in entries]
    for fact_id in sorted(facts):
        graph = handle.lineage(fact_id)
        view[f"lineage {fact_id}"] = (
            sorted((n, json.dumps(d, sort_keys=True)) for n, d in graph.nodes(data=True)),
            sorted((s, d, k) for s, d, k in graph.edges(keys=True)),
        )
    view["refusals"] = [r.model_dump(mode="json") for r in handle.refusals()]
    view["entities"] = [e.model_dump(mode="json") for e in entities]
    view["profiles"] = [_dump(handle.profile(e.entity_id)) for e in entities]
    view["blocks"] = [b.model_dump(mode="json") for b in handle.blocks()]
    view["decisions"] = [d.model_dump(mode="json") for d in handle.decisions()]
    view["prov"] = json.loads(serialize_prov(handle.prov(), "json"))
    # Tombstone ids are keyed hashes under a secret each store draws for itself.
    cleaned: dict[str, Any] = json.loads(re.sub(r"tomb_[0-9a-f]{20}", "tomb_?", json.dumps(view)))
    return cleaned


def _run(memory: Memory, clock: ManualClock, history: list[tuple[str, Step]],
         only: str | None = None) -> tuple[dict[str, list[Any]], list[Any]]:
    """Replay ``history`` (only ``only``'s steps, when given), each at its own instant."""
    outcomes: dict[str, list[Any]] = {s: [] for s in SCOPES}
    instants = []
    for i, (scope, step) in enumerate(history):
        at = EPOCH + timedelta(hours=i + 1)
        instants.append(at)
        if only is not None and scope != only:
            continue
        clock.now = at
        outcomes[scope].append(_apply(memory.scoped(scope), step, at))
    clock.now = EPOCH + timedelta(hours=len(history) + 1)
    return outcomes, instants


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(history=histories)
def test_no_query_path_of_one_tenant_returns_or_changes_anything_of_the_other(
    make_memory: MemoryFactory, history: list[tuple[str, Step]]
) -> None:
    clock = ManualClock()
    with make_memory(clock) as shared:
        outcomes, instants = _run(shared, clock, history)
        views = {s: _view(shared.scoped(s), instants) for s in SCOPES}
    for scope in SCOPES:
        other = next(s for s in SCOPES if s != scope)
        assert other not in json.dumps([views[scope], outcomes[scope]])
        alone_clock = ManualClock()
        with make_memory(alone_clock) as alone:
            alone_outcomes, _ = _run(alone, alone_clock, history, only=scope)
            assert alone_outcomes[scope] == outcomes[scope]
            assert _view(alone.scoped(scope), instants) == views[scope]
