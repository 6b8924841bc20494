"""What an episode must pass before the write path changes anything: it is no replay of a
forgotten operation or late copy of forgotten evidence, and every ``if_match`` it carries
still holds. Both run inside the episode's transaction, so what they read cannot change
before the episode's own writes.
"""

from __future__ import annotations

from kg_memory.domain.errors import ConcurrencyError, ForgottenError
from kg_memory.domain.forgetting import evidence_key
from kg_memory.domain.precondition import precondition_failure
from kg_memory.domain.record import IngestRecord
from kg_memory.store.protocol import Slot, Transaction

__all__ = ["check_forgotten", "check_preconditions"]


def check_forgotten(tx: Transaction, record: IngestRecord, secret: bytes) -> None:
    """Refuse a replay of a forgotten operation, or a late copy of forgotten evidence.

    Evidence tombstones name a slot and the instant its forgotten evidence occurred, never the
    value (see :func:`~kg_memory.domain.forgetting.evidence_key`): the same message sent again
    under another operation id is refused, whatever it says for that slot. They only bind
    evidence older than the forget run: a user may say the same thing again afterwards (unless
    collection is blocked), but old evidence cannot come back.
    """
    operation = tx.operation_key(secret, record.operation_id)  # tx.scope is record.scope
    contents = {
        evidence_key(secret, record.scope, c.subject, c.predicate, c.qualifiers.project,
                     record.occurred_at): c
        for c in record.assertions
    }
    found = tx.tombstones([operation, *contents])
    if operation in found:
        raise ForgottenError(
            f"operation {record.operation_id!r} was forgotten; it cannot be ingested again")
    for key, candidate in contents.items():
        if key in found and record.occurred_at < found[key]:
            raise ForgottenError(
                f"{candidate.subject}.{candidate.predicate} from before "
                f"{found[key].isoformat()} was forgotten; this late write is refused")


def check_preconditions(tx: Transaction, record: IngestRecord) -> None:
    """Every ``if_match`` against its slot as it was before this episode, before any write.

    All or nothing: one stale tag fails the episode, so a writer never half-applies a decision
    it made on an outdated read.
    """
    for index, candidate in enumerate(record.assertions):
        if candidate.if_match is None:
            continue
        slot = Slot(scope=record.scope, subject=candidate.subject,
                    predicate=candidate.predicate, project=candidate.qualifiers.project)
        failure = precondition_failure(tx.live_versions(slot), candidate.if_match)
        if failure is not None:
            raise ConcurrencyError(
                f"operation {record.operation_id!r}, assertions.{index} "
                f"({candidate.subject}.{candidate.predicate}): {failure}")
