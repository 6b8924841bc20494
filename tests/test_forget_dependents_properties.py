"""Forgetting over random dependency DAGs, against a small reference model.

Facts ``s0..sN`` each come from their own episode; fact ``i`` may depend on any earlier facts.
Forgetting a random set of episodes, one request each, must leave: no believed fact depending on
an erased one, ``check()`` holding, the dry run naming exactly the facts the run retired, and
everything the reference model says is unreachable from the forgotten set unchanged.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg_memory import Memory
from kg_memory.domain.model import EndReason
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact

Dag = list[frozenset[int]]  # dag[i]: the earlier facts fact i depends on


@st.composite
def cases(draw: st.DrawFn) -> tuple[Dag, list[int]]:
    size = draw(st.integers(min_value=2, max_value=6))
    dag = [frozenset(draw(st.sets(st.integers(0, i - 1), max_size=2)) if i else set())
           for i in range(size)]
    forgotten = draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=3, unique=True))
    return dag, forgotten


def _value(i: int) -> str:
    return f"value-{i}-q"


def _reference(dag: Dag, forgotten: set[int]) -> set[int]:
    """The retired facts: every fact reaching a forgotten one through dependencies, by fixpoint
    over the DAG (independent of the store's walk), minus the forgotten ones."""
    reach = set(forgotten)
    changed = True
    while changed:
        changed = False
        for i, deps in enumerate(dag):
            if i not in reach and deps & reach:
                reach.add(i)
                changed = True
    return reach - forgotten


def _histories(memory: Memory, size: int) -> dict[int, list[str]]:
    return {i: [e.model_dump_json() for e in memory.history(f"s{i}", "p")] for i in range(size)}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=cases())
def test_forgetting_retires_exactly_what_depends_on_the_erased(
    make_memory: MemoryFactory, case: tuple[Dag, list[int]]
) -> None:
    dag, forgotten = case
    clock = ManualClock()
    with make_memory(clock) as memory:
        episodes: dict[int, str] = {}
        ids: dict[int, str] = {}
        for i, deps in enumerate(dag):
            clock.now = day(i)
            report = memory.ingest(episode(f"op-{i}", "user", day(i), assertions=[
                fact(f"s{i}", "p", _value(i), depends_on=[f"fact:s{j}/p" for j in sorted(deps)])]))
            episodes[i] = report.episode_id
            ids[i] = report.effects[0].assertion_id or ""
            assert report.effects[0].action == "written"
        before = _histories(memory, len(dag))
        done: set[int] = set()
        for step, target in enumerate(forgotten):
            clock.now = day(len(dag) + step)
            planned = memory.forget(f"episode:{episodes[target]}@u1", dry_run=True)
            run = memory.forget(f"episode:{episodes[target]}@u1")
            assert run.plan == planned.plan
            newly = _reference(dag, done | {target}) - _reference(dag, done)
            assert set(run.plan.retire) == {ids[i] for i in newly if i != target}
            done.add(target)
            check = memory.check()
            assert check.ok, check.violations
        clock.now = day(len(dag) + len(forgotten) + 1)
        retired = _reference(dag, done)
        after = _histories(memory, len(dag))
        believed = {f.subject for f in memory.asof(clock.now, clock.now).facts}
        assert believed == {f"s{i}" for i in range(len(dag)) if i not in done | retired}
        dump = "".join(row for rows in after.values() for row in rows)
        for i in range(len(dag)):
            if i in done:
                assert after[i] == []  # erased from every system time
                assert _value(i) not in dump
            elif i in retired:
                versions = memory.history(f"s{i}", "p")
                assert versions
                assert all(e.version.system.end is not None for e in versions)
                assert versions[-1].close_reason is EndReason.RETIRED
            else:
                assert after[i] == before[i]  # unreachable from the forgotten set: untouched
