"""Reads a forget plan repeats, each made once.

Planning a forget walks the same neighbourhood several times: lineage, the residue search and
the orphan search each load the revisions of every fact the plan deletes (1,000 rows, five
times, for a source with 1,000 derivatives) and the edges of each subject. The plan is computed
from one state of the store before its transaction begins, so within one planning pass every
read of a node gives the same answer: :class:`PlanReads` keeps the first one. It is made per
plan and dropped after it; nothing it holds outlives the pass, and it never serves a read made
inside the forget's transaction (those see the transaction's own writes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from kg_memory.domain.model import Assertion, Edge, Episode
from kg_memory.store.link_reads import Link, Revision
from kg_memory.store.protocol import Store

__all__ = ["PlanReads", "plan_reads"]

_T = TypeVar("_T")
_R = TypeVar("_R", Assertion, Revision)


class PlanReads:
    """A :class:`Store` whose ``versions`` (and ``revisions``), ``edges`` (and ``edges_of``,
    ``links_of``), ``history``, ``subject_assertions`` and ``episodes`` reads are remembered per
    id; every other attribute is the store's own."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._versions: dict[str, list[Assertion]] = {}
        self._edges: dict[tuple[str, str | None], list[Edge]] = {}
        self._history: dict[tuple[str, str | None, str | None], list[Assertion]] = {}
        self._episodes: dict[str, Episode | None] = {}
        self._about: dict[tuple[str, str | None], frozenset[str]] = {}
        self._links: dict[tuple[str, str | None], list[Link]] = {}
        self._answers: dict[tuple[str, ...], list[Assertion]] = {}
        self._revisions: dict[str, list[Revision]] = {}
        self._revision_answers: dict[tuple[str, ...], list[Revision]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def versions(self, assertion_ids: Sequence[str]) -> list[Assertion]:
        # The same list is asked for again and again (the plan's deletions: by the residue
        # search, the orphan search, the run), and its answer cannot change within the pass.
        # The store's order: system time, then valid time (stable, so ties keep id order).
        return _rows_of(assertion_ids, self._answers, self._versions, self._store.versions,
                           lambda v: (v.system.start, v.valid.start))

    def revisions(self, assertion_ids: Sequence[str]) -> list[Revision]:
        # As versions, for the plan's records (the orphan and residue searches and the run
        # ask for the deletions' again).
        return _rows_of(assertion_ids, self._revision_answers, self._revisions,
                           self._store.revisions, lambda v: (v.sys_from, v.valid_from))

    def edges(self, node_id: str, scope: str | None = None) -> list[Edge]:
        key = (node_id, scope)
        if key not in self._edges:
            self._edges[key] = self._store.edges(node_id, scope)
        return list(self._edges[key])

    def edges_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Edge]]:
        found = _remembered(self._edges, self._store.edges_of, node_ids, scope)
        return {i: list(v) for i, v in found.items()}

    def links_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Link]]:
        found = _remembered(self._links, self._store.links_of, node_ids, scope)
        return {i: list(v) for i, v in found.items()}

    def subject_assertions(self, subjects: Sequence[str], scope: str | None = None
                           ) -> dict[str, frozenset[str]]:
        return _remembered(self._about, self._store.subject_assertions, subjects, scope)

    def history(self, subject: str, predicate: str | None = None, scope: str | None = None
                ) -> list[Assertion]:
        key = (subject, predicate, scope)
        if key not in self._history:
            self._history[key] = self._store.history(subject, predicate, scope)
        return list(self._history[key])

    def episodes(self, episode_ids: Sequence[str]) -> list[Episode]:
        missing = [i for i in dict.fromkeys(episode_ids) if i not in self._episodes]
        if missing:
            for i in missing:
                self._episodes[i] = None
            for episode in self._store.episodes(missing):
                self._episodes[episode.episode_id] = episode
        found = [e for i in dict.fromkeys(episode_ids) if (e := self._episodes[i]) is not None]
        found.sort(key=lambda e: e.recorded_at)
        return found


def _remembered(memo: dict[tuple[str, str | None], _T],
                read: Callable[[Sequence[str], str | None], Mapping[str, _T]],
                ids: Sequence[str], scope: str | None) -> dict[str, _T]:
    """``read(ids, scope)`` answered per id from ``memo``, the store asked only for the ids
    not read before in this pass (the store answers every id it is asked, in one read)."""
    asked = list(dict.fromkeys(ids))
    missing = [i for i in asked if (i, scope) not in memo]
    if missing:
        for node, found in read(missing, scope).items():
            memo[(node, scope)] = found
    return {i: memo[(i, scope)] for i in asked}


def plan_reads(store: Store) -> Store:
    """``store`` with its planning reads remembered (see the module docstring)."""
    return cast(Store, PlanReads(store))


def _rows_of(assertion_ids: Sequence[str], answers: dict[tuple[str, ...], list[_R]],
                by_id: dict[str, list[_R]], read: Callable[[list[str]], list[_R]],
                order: Callable[[_R], Any]) -> list[_R]:
    """The rows of ``assertion_ids`` in the store's ``order``, each id read from the store at
    most once per pass and each list answered at most once."""
    asked = tuple(assertion_ids)
    if asked in answers:
        return list(answers[asked])
    missing = [i for i in dict.fromkeys(asked) if i not in by_id]
    if missing:
        for i in missing:
            by_id[i] = []
        for row in read(missing):
            by_id[row.assertion_id].append(row)
    found = [v for i in dict.fromkeys(asked) for v in by_id[i]]
    found.sort(key=order)
    answers[asked] = found
    return list(found)
