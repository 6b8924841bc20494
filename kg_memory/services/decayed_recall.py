"""Recall under decay: the one value memory would serve for a slot now, or an abstention.

Each live value is scored ``confidence * 0.5 ** (age / half_life)`` with age counted from its
last confirmation (the newest supporting episode: a restatement, a confirmation, a use the user
did not correct). Values whose decay factor fell below the floor are not served; when nothing is
left the answer *abstains* and says to ask again. Nothing is written: decay bounds trust, it
never rewrites what the store believed (as-of queries at earlier system times are unchanged).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.decay import Trust, judge
from kg_memory.domain.model import Value
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.store.protocol import AsOfQuery, Store

__all__ = ["Recalled", "recall_value"]


class Recalled(BaseModel):
    """``status``: served, abstain (there is a memory, too old to trust: ask again) or none."""

    model_config = ConfigDict(frozen=True)

    status: str
    value: Value | None = None
    assertion_id: str | None = None
    writer: str | None = None
    confidence: float | None = None
    last_confirmed: datetime | None = None
    trust: Trust | None = None
    reason: str = ""


def recall_value(store: Store, policy: WritePolicy, *, scope: str, subject: str,
                 predicate: str, now: datetime, project: str | None = None) -> Recalled:
    """What ``subject.predicate`` recalls to at ``now`` under ``policy``'s decay rule.

    Among several live values (the append baseline keeps them side by side) the best score wins;
    a tie goes to the most recently confirmed.
    """
    rule = policy.rule_for(predicate)
    live = [v for v in store.asof(AsOfQuery(valid_at=now, known_at=now, subject=subject,
                                            predicate=predicate, scope=scope))
            if v.qualifiers.project == project]
    if not live:
        return Recalled(status="none", reason="nothing remembered: ask")
    supports = store.supports([v.assertion_id for v in live], now)
    best: tuple[float, datetime, Recalled] | None = None
    stale: Recalled | None = None
    for version in live:
        seen = [s.occurred_at for s in supports.get(version.assertion_id, ())]
        confirmed = max(seen) if seen else version.valid.start
        trust = judge(rule, version.confidence, confirmed, now)
        found = Recalled(status="served" if trust.served else "abstain",
                         value=version.value if trust.served else None,
                         assertion_id=version.assertion_id, writer=version.writer,
                         confidence=version.confidence,
                         last_confirmed=confirmed, trust=trust, reason=trust.reason)
        if not trust.served:
            stale = found
            continue
        if best is None or (trust.score, confirmed) > (best[0], best[1]):
            best = (trust.score, confirmed, found)
    if best is not None:
        return best[2]
    assert stale is not None
    return stale
