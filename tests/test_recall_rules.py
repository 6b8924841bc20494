"""Recall's pure rules: eligibility (blocks, the extension point) and ranking, without a store."""

from __future__ import annotations

from dataclasses import dataclass

from kg_memory import Memory
from kg_memory.domain.eligibility import BLOCKED, RecallContext, fact_exclusion
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, Block, Episode, Kind, Qualifiers
from kg_memory.domain.ranking import CorpusStats, Scored, rank
from tests.conftest import ROOT, ManualClock, day, episode, fact


def _fact(predicate: str, project: str | None = "c1") -> Assertion:
    return Assertion(
        assertion_id="as_1", revision=1, scope="acme", subject="j17", predicate=predicate,
        value="concise", qualifiers=Qualifiers(project=project), kind=Kind.STATED,
        writer="user", valid=Interval(start=day(0)), system=Interval(start=day(0)),
        recorded_by="ep_1")


def _context(*blocks: Block, known: int = 5, now: int = 9) -> RecallContext:
    return RecallContext(scope="acme", at=day(known), known_at=day(known), now=day(now),
                         blocks=blocks)


def test_a_block_excludes_its_category_at_known_at_and_now() -> None:
    block = Block(block_id="b1", scope="acme", subject="j17", predicates="report_*",
                  project="c1", created_at=day(3))
    assert fact_exclusion(_fact("report_style"), _context(block)) == BLOCKED
    assert fact_exclusion(_fact("report_style", "b2"), _context(block)) is None
    assert fact_exclusion(_fact("phone"), _context(block)) is None
    # Created after known_at but active now: the user's present instruction still holds.
    assert fact_exclusion(_fact("report_style"), _context(block, known=1)) == BLOCKED
    # Revoked since known_at: a replay at known_at still excludes it, a search now does not.
    revoked = block.model_copy(update={"revoked_at": day(7)})
    assert fact_exclusion(_fact("report_style"), _context(revoked, known=5)) == BLOCKED
    assert fact_exclusion(_fact("report_style"), _context(revoked, known=8)) is None


@dataclass(frozen=True)
class ConfidenceFloor:
    """A stand-in for the policies issue's decay floor."""

    floor: float
    name: str = "below_confidence_floor"

    def excludes_fact(self, fact: Assertion, context: RecallContext) -> bool:
        return fact.confidence < self.floor

    def excludes_episode(self, episode: Episode, context: RecallContext) -> bool:
        return False


def test_an_added_eligibility_rule_is_applied_and_counted_by_name(
    memory: Memory, clock: ManualClock
) -> None:
    memory.ingest(episode("op-1", "user", day(0), content="tea", assertions=[
        fact("u1", "drink", "tea", confidence=0.4), fact("u1", "snack", "tea biscuits")]))
    clock.now = day(1)
    answer = memory.recall("tea", scope="u1", include_episodes=False,
                           rules=[ConfidenceFloor(0.5)])
    assert [h.predicate for h in answer.results] == ["snack"]
    assert answer.excluded["below_confidence_floor"] == 1


def test_ranking_orders_by_relevance_then_boosts_and_never_invents_a_match() -> None:
    docs = [Scored("a", ["tea", "tea", "green"], 0.0, 0.0, 0.0),
            Scored("b", ["tea", "coffee", "milk", "sugar"], 0.0, 0.0, 0.0),
            Scored("c", ["coffee"], 1.0, 1.0, 1.0)]
    ranked = rank(docs, ("tea",), {"tea": 2}, CorpusStats(documents=3, tokens=8))
    assert [r.key for r in ranked] == ["a", "b"]  # c matches nothing: not ranked at all
    assert ranked[0].relevance == 1.0
    # Equally relevant: specificity, recency and evidence decide, by the documented weights.
    even = [Scored("a", ["tea", "green"], 0.0, 0.0, 0.0), Scored("b", ["tea", "milk"], 1.0,
                                                                  0.5, 1.0)]
    ranked = rank(even, ("tea",), {"tea": 2}, CorpusStats(documents=3, tokens=8))
    assert [r.key for r in ranked] == ["b", "a"]
    assert ranked[0].score == 1 + 0.3 * 1.0 + 0.1 * 0.5 + 0.2 * 1.0
    # A boost never outweighs relevance by more than its ceiling (1.6x here): "a" is over
    # twice as relevant as the fully boosted "b".
    far = [Scored("a", ["tea", "tea", "tea"], 0.0, 0.0, 0.0),
           Scored("b", ["tea", "x", "y", "z", "w", "v", "u"], 1.0, 1.0, 1.0)]
    ranked = rank(far, ("tea",), {"tea": 2}, CorpusStats(documents=3, tokens=10))
    assert ranked[1].relevance * 1.6 < 1.0
    assert [r.key for r in ranked] == ["a", "b"]


def test_the_shipped_recall_sql_is_what_the_generator_prints() -> None:
    from kg_memory.store.sqlite.recall_shards import ddl

    shipped = (ROOT / "kg_memory" / "store" / "sqlite" / "recall.sql").read_text(encoding="utf-8")
    assert ddl() in shipped, "regenerate: python -m kg_memory.store.sqlite.recall_shards"


def test_the_shard_of_a_scope_is_the_same_in_python_and_in_sqlite() -> None:
    import random

    from kg_memory.store.sqlite import driver
    from kg_memory.store.sqlite.recall_shards import shard, shard_expression

    rng = random.Random(7)
    alphabet = "abcXYZ019-_/ éß漢字😀"
    scopes = ["", "u1", "acme", *("".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
                                  for _ in range(2000))]
    conn = driver.connect(":memory:")
    query = "SELECT " + shard_expression("?1")
    assert [shard(s) for s in scopes] == [conn.execute(query, (s,)).fetchone()[0]
                                          for s in scopes]
