"""Optimistic preconditions on a slot (HTTP If-Match semantics), as pure rules.

A writer reads a slot, decides, and writes "if the slot is still as I read it". The tag of a
slot is the tag of its *current record*: the latest open-ended revision the store believes
(``ASSERTION_ID#REVISION``), or ``"absent"`` when there is none. Any write to the slot makes a
new revision and so a new tag, which is why a writer holding an old tag cannot overwrite an
update it never saw (no lost update). The store checks the rule inside the write transaction,
where writers are serialised.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_memory.domain.consolidation import etag
from kg_memory.domain.model import Assertion

__all__ = ["ABSENT", "current_record", "precondition_failure", "slot_tag"]

#: The tag of a slot with no current record.
ABSENT = "absent"


def current_record(live: Sequence[Assertion], at_end: bool = True) -> Assertion | None:
    """The open-ended live revision of a slot (the one new readers get), latest last.

    ``live`` is the slot's believed revisions ordered by valid start, as the store returns
    them; with ``at_end=False`` the last of them, open-ended or not.
    """
    candidates = [v for v in live if v.valid.end is None] if at_end else list(live)
    return candidates[-1] if candidates else None


def slot_tag(live: Sequence[Assertion]) -> str:
    """The If-Match tag of a slot whose believed revisions are ``live``."""
    return etag(current_record(live)) or ABSENT


def precondition_failure(live: Sequence[Assertion], expected: str) -> str | None:
    """Why a write conditional on ``expected`` must not happen, or ``None`` if it may."""
    found = slot_tag(live)
    if found == expected:
        return None
    return f"precondition failed: the slot's current revision is {found}, not {expected}"
