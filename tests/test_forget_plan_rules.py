"""Forget planning as a pure rule, against a reference that states the plan as set equations.

The lineage view points from a derivative to its source: a fact SUPPORTS-points at the episodes
that support it, a derived record DERIVED_FROM-points at its evidence, a newer fact SUPERSEDES-
points at what it replaced, a fact INVALIDATES-points at the episode that ended it. The
reference computes the least fixed point of the documented rules directly (no loop over nodes
in order), so an ordering accident or a dropped clause in :func:`plan_forget` shows up.

Rules protected: a fact whose every supporting episode is forgotten is deleted; a derived record
all of whose sources are deleted is deleted, one with some deleted sources is rebuilt, one with
none is retained; an episode that supported only deleted facts is erased, one that also supports
surviving facts is redacted, one that supports nothing is retained; a fact superseded by or
invalidated through forgotten input is restored, unless it is itself deleted (a resurrection);
a derived record's fate follows its evidence, never the worker episode that published it; and
the plan does not depend on the order in which the view lists its nodes; nodes of other kinds
(the agent an episode is attributed to) are never planned, not even as retained.
"""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg_memory import EdgeType, Selector
from kg_memory.domain.forgetting import ForgetPlan, LineageView, plan_forget

SELECTOR = Selector(kind="episode", value="e0")


def view_of(
    episodes: int, facts: int, derived: int, edges: list[tuple[str, EdgeType, str]],
    order: list[int] | None = None,
) -> nx.MultiDiGraph[str]:
    """The view, its nodes added in ``order`` (a permutation of their indexes; default: episodes,
    facts, derived records): a lineage query returns them in no particular order."""
    nodes = ([(f"e{i}", {"kind": "episode"}) for i in range(episodes)]
             + [(f"f{i}", {"kind": "assertion", "derived": False}) for i in range(facts)]
             + [(f"d{i}", {"kind": "assertion", "derived": True}) for i in range(derived)])
    view: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for i in order if order is not None else range(len(nodes)):
        view.add_node(nodes[i][0], **nodes[i][1])
    # The writer an episode is attributed to: in view, but never planned (nor retained).
    view.add_node("agent:user", kind="agent")
    for i in range(episodes):
        view.add_edge(f"e{i}", "agent:user", key="ATTRIBUTED_TO")
    for src, relation, dst in edges:
        view.add_edge(src, dst, key=relation.value)
    return view


def lineage_view(graph: nx.MultiDiGraph[str]) -> LineageView:
    """The graph as :func:`plan_forget` takes it, nodes in the graph's order (the reference
    below reads the graph itself)."""
    view = LineageView()
    for node, attributes in graph.nodes(data=True):
        view.add_node(node, attributes["kind"])
        if attributes.get("derived"):
            view.derived.add(node)
    for derivative, source, relation in graph.edges(keys=True):
        view.add_link(derivative, source, relation)
    return view


def reference(view: nx.MultiDiGraph[str], episodes: set[str],
              assertions: set[str]) -> dict[str, set[str]]:
    def out(node: str, relation: EdgeType) -> set[str]:
        return {d for _, d, k in view.out_edges(node, keys=True) if k == relation.value}

    def into(node: str, relation: EdgeType) -> set[str]:
        return {s for s, _, k in view.in_edges(node, keys=True) if k == relation.value}

    nodes = set(view.nodes)
    plain = {n for n in nodes if view.nodes[n]["kind"] == "assertion"
             and not view.nodes[n]["derived"]}
    derived = {n for n in nodes if view.nodes[n]["kind"] == "assertion"
               and view.nodes[n]["derived"]}
    all_episodes = {n for n in nodes if view.nodes[n]["kind"] == "episode"}
    unsupported = {f for f in plain if out(f, EdgeType.SUPPORTS)
                   and out(f, EdgeType.SUPPORTS) <= episodes}
    deleted = set(assertions) | unsupported
    while True:
        grown = deleted | {d for d in derived if out(d, EdgeType.DERIVED_FROM)
                           and out(d, EdgeType.DERIVED_FROM) <= deleted}
        if grown == deleted:
            break
        deleted = grown
    rebuild = {d for d in derived - deleted if out(d, EdgeType.DERIVED_FROM) & deleted}
    erased = set(episodes) | {e for e in all_episodes if into(e, EdgeType.SUPPORTS)
                              and into(e, EdgeType.SUPPORTS) <= deleted}
    redact = {e for e in all_episodes - erased if into(e, EdgeType.SUPPORTS) & deleted}
    restore = set().union(*(out(n, EdgeType.SUPERSEDES) for n in deleted), set())
    restore |= set().union(*(into(e, EdgeType.INVALIDATES) for e in erased), set())
    restore -= deleted
    touched = deleted | erased | redact | rebuild | restore
    return {"delete": deleted, "rebuild": rebuild, "erase": erased, "redact": redact,
            "restore": restore, "retain": (plain | derived | all_episodes) - touched}


@st.composite
def lineages(draw: st.DrawFn) -> tuple[nx.MultiDiGraph[str], set[str], set[str]]:
    n_e, n_f, n_d = draw(st.integers(1, 4)), draw(st.integers(1, 5)), draw(st.integers(0, 3))
    episodes = [f"e{i}" for i in range(n_e)]
    facts = [f"f{i}" for i in range(n_f)]
    derived = [f"d{i}" for i in range(n_d)]
    edges: list[tuple[str, EdgeType, str]] = []
    for f in facts:
        edges += [(f, EdgeType.SUPPORTS, e) for e in draw(st.sets(st.sampled_from(episodes),
                                                                   max_size=2))]
        if draw(st.booleans()):
            edges.append((f, EdgeType.INVALIDATES, draw(st.sampled_from(episodes))))
    for i, f in enumerate(facts[1:], start=1):
        if draw(st.booleans()):
            edges.append((f, EdgeType.SUPERSEDES, facts[draw(st.integers(0, i - 1))]))
    for i, d in enumerate(derived):
        evidence = facts + derived[:i]  # derived records may build on earlier ones
        edges += [(d, EdgeType.DERIVED_FROM, s) for s in draw(st.sets(st.sampled_from(evidence),
                                                                       max_size=3))]
        if draw(st.booleans()):  # the worker's episode that published the record
            edges.append((d, EdgeType.SUPPORTS, draw(st.sampled_from(episodes))))
    forgotten_episodes = draw(st.sets(st.sampled_from(episodes), max_size=2))
    forgotten_facts = draw(st.sets(st.sampled_from(facts + derived), max_size=2))
    order = draw(st.permutations(range(n_e + n_f + n_d)))
    return view_of(n_e, n_f, n_d, edges, order), forgotten_episodes, forgotten_facts


@given(lineages())
def test_the_plan_is_the_least_fixed_point_of_the_rules(
    case: tuple[nx.MultiDiGraph[str], set[str], set[str]],
) -> None:
    view, episodes, assertions = case
    plan = plan_forget(lineage_view(view), SELECTOR, episodes=episodes, assertions=assertions)
    expected = reference(view, episodes, assertions)
    for field, nodes in expected.items():
        assert set(getattr(plan, field)) == nodes, field
        assert list(getattr(plan, field)) == sorted(nodes), f"{field} is not sorted"
    assert plan.is_empty == (not any(expected[f] for f in expected if f != "retain"))


def _plan(edges: list[tuple[str, EdgeType, str]], *, episodes: set[str] | None = None,
          assertions: set[str] | None = None, n: tuple[int, int, int] = (3, 3, 1)) -> ForgetPlan:
    return plan_forget(lineage_view(view_of(*n, edges)), SELECTOR, episodes=episodes or set(),
                       assertions=assertions or set())


def test_a_derived_record_whose_sources_are_all_gone_is_deleted_not_rebuilt() -> None:
    plan = _plan([("f0", EdgeType.SUPPORTS, "e0"), ("f1", EdgeType.SUPPORTS, "e0"),
                  ("d0", EdgeType.DERIVED_FROM, "f0"), ("d0", EdgeType.DERIVED_FROM, "f1")],
                 episodes={"e0"})
    assert "d0" in plan.delete
    assert "d0" not in plan.rebuild


def test_a_derived_record_whose_last_source_goes_in_a_later_round_is_deleted_not_rebuilt(
) -> None:
    """Rule: a derived record all of whose sources are deleted is deleted, never also rebuilt,
    even when the planner first saw only some of them gone (d0 is listed before d1, its other
    source, which goes only once f0 has)."""
    plan = _plan([("f0", EdgeType.SUPPORTS, "e0"), ("d1", EdgeType.DERIVED_FROM, "f0"),
                  ("d0", EdgeType.DERIVED_FROM, "f0"), ("d0", EdgeType.DERIVED_FROM, "d1")],
                 episodes={"e0"}, n=(3, 3, 2))
    assert {"f0", "d0", "d1"} <= set(plan.delete)
    assert not plan.rebuild


def test_a_derived_record_with_no_forgotten_source_is_retained() -> None:
    plan = _plan([("f0", EdgeType.SUPPORTS, "e0"), ("f1", EdgeType.SUPPORTS, "e1"),
                  ("d0", EdgeType.DERIVED_FROM, "f1")], episodes={"e0"})
    assert plan.delete == ("f0",)
    assert "d0" in plan.retain
    assert not plan.rebuild


def test_a_fact_superseded_by_a_deleted_fact_comes_back_unless_it_is_deleted_too() -> None:
    edges = [("f0", EdgeType.SUPPORTS, "e0"), ("f1", EdgeType.SUPPORTS, "e0"),
             ("f1", EdgeType.SUPERSEDES, "f0"), ("f2", EdgeType.SUPPORTS, "e1"),
             ("f2", EdgeType.SUPERSEDES, "f1")]
    plan = _plan(edges, assertions={"f2"})
    assert plan.restore == ("f1",)
    plan = _plan(edges, episodes={"e0"}, assertions={"f2"})
    assert plan.restore == ()  # f1 and f0 are forgotten themselves: no resurrection
    assert set(plan.delete) == {"f0", "f1", "f2"}


def test_an_episode_is_erased_redacted_or_retained_by_what_it_supports() -> None:
    plan = _plan([("f0", EdgeType.SUPPORTS, "e1"), ("f1", EdgeType.SUPPORTS, "e1"),
                  ("f1", EdgeType.SUPPORTS, "e0")], assertions={"f0"})
    assert plan.redact == ("e1",)
    assert "e1" not in plan.erase
    plan = _plan([("f0", EdgeType.SUPPORTS, "e1")], assertions={"f0"})
    assert plan.erase == ("e1",)
    assert "e2" in plan.retain  # supports nothing: not forgotten evidence
    assert "e2" not in plan.erase


def test_a_fact_an_erased_episode_invalidated_is_restored() -> None:
    plan = _plan([("f0", EdgeType.SUPPORTS, "e1"), ("f0", EdgeType.INVALIDATES, "e0")],
                 episodes={"e0"})
    assert plan.restore == ("f0",)
    assert plan.erase == ("e0",)


@pytest.mark.parametrize(("text", "kind", "value", "scope"), [
    ("episode:ep_1", "episode", "ep_1", None),
    ("assertion:as_1", "assertion", "as_1", None),
    ("entity:R1", "entity", "R1", None),
    ("source:restaurant", "source", "restaurant", None),
    ("source:restaurant@u1", "source", "restaurant", "u1"),
])
def test_selectors_parse_and_print(text: str, kind: str, value: str, scope: str | None) -> None:
    selector = Selector.parse(text)
    assert (selector.kind, selector.value, selector.scope) == (kind, value, scope)
    assert str(selector) == text


def test_a_category_selector_names_scope_subject_predicates_and_project() -> None:
    selector = Selector.parse("category:acme/j17/report_*@c1")
    assert (selector.scope, selector.subject, selector.predicates, selector.project) == (
        "acme", "j17", "report_*", "c1")
    assert Selector.parse("category:acme/j17/report_*").project is None


@pytest.mark.parametrize("text", ["episode", "episode:", "thing:x", "category:a/b",
                                  "category:a//c", "category:/b/c@p"])
def test_malformed_selectors_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="selector"):
        Selector.parse(text)


def test_the_view_keeps_a_nodes_first_kind_and_one_link_per_relation() -> None:
    """The view the service builds: a node seen again keeps its kind, a link drawn twice (from
    each end's edges, by the relation or its value) is one link, and the plan reads it so."""
    view = LineageView()
    view.add_node("f0", "assertion")
    view.add_node("f0", "episode")
    view.add_node("e0", "episode")
    view.add_link("f0", "e0", EdgeType.SUPPORTS)
    view.add_link("f0", "e0", EdgeType.SUPPORTS.value)
    assert view.kinds == {"f0": "assertion", "e0": "episode"}
    assert view.targets("f0", EdgeType.SUPPORTS) == {"e0"}
    assert view.sources("e0", EdgeType.SUPPORTS) == {"f0"}
    assert view.targets("f0", EdgeType.DERIVED_FROM) == set()
    assert view.sources("f0", EdgeType.SUPPORTS) == set()
    plan = plan_forget(view, SELECTOR, episodes={"e0"}, assertions=set())
    assert (plan.delete, plan.erase, plan.retain) == (("f0",), ("e0",), ())
