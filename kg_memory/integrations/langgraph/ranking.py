"""``search(query=...)`` ranked by recall over exactly the items the search may return.

The namespace prefix and the filter decide which items are candidates; recall ranks only those.
They reach recall as an eligibility rule (:class:`Candidates`), so an item outside them is
excluded before anything is scored and never takes the place of one inside: the answer does not
depend on how many other items the tenant holds. Recall returns at most 100 results a call, so
a page beyond that is read by asking again without the items already ranked (scores do not
depend on which candidates are left: BM25's statistics are the tenant's corpus).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kg_memory import Assertion, EmbedderMismatch, Episode, Fact, Memory, RecallError

__all__ = ["RECALL_PAGE", "Candidates", "ranked"]

#: The most results one recall returns.
RECALL_PAGE = 100


class Candidates:
    """An eligibility rule: only these fact revisions (``(assertion_id, revision)``), no
    messages."""

    name = "outside_namespace_or_filter"

    def __init__(self, keys: frozenset[tuple[str, int]]) -> None:
        self._keys = keys

    def excludes_fact(self, fact: Assertion, context: object) -> bool:
        return (fact.assertion_id, fact.revision) not in self._keys

    def excludes_episode(self, episode: Episode, context: object) -> bool:
        return True


def _scope_hits(memory: Memory, query: str, scope: str, facts: dict[tuple[str, int], Fact],
                wanted: int, now: datetime) -> list[tuple[float, Fact]]:
    hits: list[tuple[float, Fact]] = []
    left = frozenset(facts)
    while left and len(hits) < wanted:
        asked = min(RECALL_PAGE, wanted - len(hits))
        answer = memory.recall(query, scope=scope, at=now, known_at=now,
                               include_episodes=False, limit=asked, rules=[Candidates(left)])
        page = [(h.score.score, facts[(h.id, h.revision)]) for h in answer.results
                if h.type == "fact" and h.revision is not None and (h.id, h.revision) in left]
        hits += page
        left -= {(f.assertion_id, f.revision) for _, f in page}
        if len(answer.results) < asked:
            break  # every candidate sharing a word with the query is ranked
    return hits


def ranked(memory: Memory, query: str, facts: Sequence[Fact], now: datetime, wanted: int
           ) -> list[tuple[float | None, Fact]]:
    """The first ``wanted`` of ``facts`` by recall's ranking of ``query`` (per scope), scores
    scaled to ``(0, 1]`` as LangGraph's are. A fact sharing no searchable word with the query
    is left out; a query with no searchable word matches nothing."""
    hits: list[tuple[float, Fact]] = []
    for scope in sorted({f.scope for f in facts}):
        mine = {(f.assertion_id, f.revision): f for f in facts if f.scope == scope}
        try:
            hits += _scope_hits(memory, query, scope, mine, wanted, now)
        except EmbedderMismatch:
            raise  # the store's vectors are another model's: an error, never "no match"
        except RecallError:
            # The request is well formed (a scope, a limit within bounds, every kind), so
            # this is recall's "no searchable term": nothing bears on the query.
            return []
    top = max((s for s, _ in hits), default=0.0)
    result: list[tuple[float | None, Fact]] = [
        (round(s / top, 4) if top > 0 else None, f) for s, f in hits]
    result.sort(key=lambda p: (-(p[0] or 0.0), -p[1].valid.start.timestamp()))
    return result
