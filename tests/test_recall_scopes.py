"""Recall keeps tenants apart whatever their scope's text: the Neo4j index finds a tenant by a
phrase of its scope's words (so a scope can match a longer one that contains it, or carry
Lucene's quote and backslash), the embedded index by a hash; either way only the asking
scope's records come back, and every scope's own records do."""

from __future__ import annotations

from kg_memory import Memory
from tests.conftest import ManualClock, day, episode, fact

#: Scopes whose words overlap, with Lucene syntax, and one of whitespace only.
SCOPES = ["acme corp", "big acme corp", "acme", 'a "quoted" \\ scope\\', "a quoted scope",
          "scope:acme OR *", " ", "ACME CORP"]


def test_each_scope_recalls_its_own_records_and_no_other_scopes(
    memory: Memory, clock: ManualClock
) -> None:
    for n, scope in enumerate(SCOPES):
        memory.ingest(episode(f"op-{n}", "user", day(0), scope=scope,
                              content=f"moving to Porto, note {n}",
                              assertions=[fact(f"who{n}", "city", "porto")]))
    clock.now = day(1)
    for n, scope in enumerate(SCOPES):
        answer = memory.recall("porto", scope=scope)
        assert {h.scope for h in answer.results} == {scope}, scope
        assert {h.subject for h in answer.results if h.type == "fact"} == {f"who{n}"}, scope
        assert [h.content for h in answer.results if h.type == "episode"] == [
            f"moving to Porto, note {n}"], scope
