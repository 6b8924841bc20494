"""The labelled recall set: does recall bring back the right records, and never a wrong one?

``fixtures/recall/`` holds episodes (the dinner study, Jo/Cedar, same-name people, another
project, another tenant, a claim, an approval, a forgotten message) and questions, each with
the records that should come back (``expected``) and records that must never come back at any
rank (``never``: stale, forgotten, other tenant, a refused claim served as a statement).

Figures, over the questions: recall@5 (share of expected records in the top 5), precision@5
(share of the top 5 that are expected records, over questions that expect any), the number of
``never`` records returned at any rank (of 100), the number of hits from another scope, and the
number of claims or third-party messages returned as the user's own words. All must be exact:
the test asserts them, docs/recall.md reports them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from kg_memory.domain.gate import GateRule, WriterPolicy
from kg_memory.domain.instant import Clock, parse_instant
from kg_memory.domain.model import Kind
from kg_memory.domain.recall_answer import RecallHit
from kg_memory.domain.record import read_records
from kg_memory.services.memory import Memory

__all__ = ["QuestionResult", "RecallQuality", "evaluate"]


@dataclass
class QuestionResult:
    id: str
    expected: int
    found_in_top5: int
    top5: list[str]
    relevant_in_top5: int
    never_returned: list[str] = field(default_factory=list)


@dataclass
class RecallQuality:
    questions: list[QuestionResult]
    recall_at_5: float
    precision_at_5: float
    never_returned: int
    other_scope_hits: int
    mislabelled_words: int


def _matches(hit: RecallHit, ref: dict[str, Any], episodes: dict[str, str]) -> bool:
    if "episode" in ref:
        return hit.type == "episode" and hit.id == episodes.get(ref["episode"])
    want = ref["fact"]
    project = hit.qualifiers.project if hit.qualifiers else None
    return (hit.type == "fact" and hit.subject == want["subject"]
            and hit.predicate == want["predicate"] and hit.value == want["value"]
            and project == want.get("project"))


def _label(hit: RecallHit) -> str:
    if hit.type == "episode":
        return f"message:{hit.content[:30]}"
    return f"{hit.subject}.{hit.predicate}={hit.value}"


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def evaluate(directory: Path, open_memory: Callable[[Clock], Memory]) -> RecallQuality:
    """Ingest the set into a fresh memory from ``open_memory(clock)``, forget what it says,
    ask every question (the memory is closed afterwards)."""
    spec = json.loads((directory / "questions.json").read_text(encoding="utf-8"))
    records = list(read_records(directory / "episodes.jsonl"))
    clock = _Clock(records[0].occurred_at)
    policy = WriterPolicy(name="recall-set", rules=(
        *WriterPolicy.default().rules,
        GateRule(kind=Kind.CLAIM, writers=tuple(spec["claim_writers"]))))
    results: list[QuestionResult] = []
    other_scope = mislabelled = 0
    with open_memory(clock) as memory:
        memory.policy = policy
        episodes: dict[str, str] = {}
        scopes: dict[str, str] = {}
        for record in records:
            clock.now = max(clock.now, record.occurred_at)
            episodes[record.operation_id] = memory.ingest(record).episode_id
            scopes[record.operation_id] = record.scope
        clock.now = parse_instant(spec["now"], what="now")
        for op in spec["forget"]:
            memory.forget(f"episode:{episodes[op]}@{scopes[op]}")
        for q in spec["questions"]:
            at = parse_instant(q["at"], what="at") if "at" in q else None
            known = parse_instant(q["known_at"], what="known_at") if "known_at" in q else None
            answer = memory.recall(q["query"], scope=q["scope"], subject=q.get("subject"),
                                   project=q.get("project"), at=at, known_at=known, limit=100)
            hits = list(answer.results)
            top5 = hits[:5]
            found = sum(any(_matches(h, ref, episodes) for h in top5) for ref in q["expected"])
            # Relevant: an expected record, or a message that supports an expected fact (the
            # evidence behind the answer, as LoCoMo links answers to their turns).
            wanted = [h for h in hits if any(_matches(h, ref, episodes) for ref in q["expected"])]
            evidence = {s.episode_id for h in wanted if h.type == "fact" for s in h.supported_by}
            relevant = sum(h in wanted or (h.type == "episode" and h.id in evidence)
                           for h in top5)
            never = [_label(h) for h in hits for ref in q["never"]
                     if _matches(h, ref, episodes)]
            other_scope += sum(h.scope != q["scope"] for h in hits)
            mislabelled += sum(h.own_words and (h.kind is Kind.CLAIM or (
                h.type == "episode" and h.writer != "user")) for h in hits)
            results.append(QuestionResult(
                id=q["id"], expected=len(q["expected"]), found_in_top5=found,
                top5=[_label(h) for h in top5], relevant_in_top5=relevant,
                never_returned=never))
    asked = [r for r in results if r.expected]
    return RecallQuality(
        questions=results,
        recall_at_5=sum(r.found_in_top5 for r in asked) / sum(r.expected for r in asked),
        precision_at_5=sum(r.relevant_in_top5 for r in asked)
        / max(1, sum(len(r.top5) for r in asked)),
        never_returned=sum(len(r.never_returned) for r in results),
        other_scope_hits=other_scope,
        mislabelled_words=mislabelled,
    )
