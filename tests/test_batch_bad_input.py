"""Bad input inside a planned batch: the planner reads ahead for the whole batch, and a record
it cannot even name (a lone surrogate in its scope or operation id, which no id or key can be
made from) must not cost the episodes before it; the write path refuses it, typed."""

from __future__ import annotations

import pytest

from kg_memory import IngestError, IngestRecord, Memory
from tests.conftest import ManualClock, day, episode, fact


@pytest.mark.parametrize("field", ["operation_id", "scope", "value", "subject"])
def test_a_lone_surrogate_mid_batch_is_refused_and_the_episodes_before_it_stay(
    memory: Memory, clock: ManualClock, field: str
) -> None:
    clock.now = day(0)
    good = episode("g", "user", day(0), assertions=[fact("ana", "diet", "veg")])
    candidate = good.assertions[0].model_copy(update={
        "value": "x\udc80" if field == "value" else "fish",
        "subject": "s\udc80" if field == "subject" else "ana"})
    # Built without validation, as a caller's own code may: the write path checks it.
    bad = IngestRecord.model_construct(**{
        **dict(good), "operation_id": "b\udc80" if field == "operation_id" else "b",
        "scope": "u\udc80" if field == "scope" else "u1", "assertions": (candidate,)})
    acknowledged: list[str] = []
    with pytest.raises(IngestError, match="lone surrogate"):
        memory.ingest_many([good, bad], on_report=lambda r: acknowledged.append(r.operation_id))
    assert acknowledged == ["g"]
    clock.now = day(1)
    assert memory.asof(subject="ana", scope="u1").values() == ["veg"]
