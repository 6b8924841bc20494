"""The authority tiers read who made a stored decision, and for which entity, from the end of its
body (issue 29, "resolution at ingest speed"): the decision itself, every candidate's evidence,
is most of the body and none of what they need. The answer must be the whole parse's for every
body the store path writes, and for any body where the shortcut would not hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg_memory import IngestRecord, Memory
from kg_memory.services.declarations import Attribution, attribution
from kg_memory.services.identity import DECISION
from kg_memory.store.sqlite import driver
from tests.conftest import EPOCH

NAMES = ('Jo "entity_id": Park', 'Joanne Park', 'Sam ,"entity_id":"x"} Lee', "Samuel Lee",
         "Ana Ruiz")


def _line(n: int, name: str, source: str) -> IngestRecord:
    return IngestRecord.model_validate({
        "operation_id": f"op-{n}", "source": source, "channel": "document",
        "occurred_at": EPOCH.isoformat(), "scope": "u1",
        "resolve": [{"key": "p", "name": name, "identifiers": {"email": f"{n % 3}@x.org"},
                     "context": {"birth_date": "1981-02-03", "city": 'Os"lo'}}]})


def test_every_stored_decision_attributed_as_the_whole_parse(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as memory:
        memory.ingest_many([_line(n, NAMES[n % 5], "registry") for n in range(30)])
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        bodies = [b for (b,) in conn.execute(
            "SELECT body FROM documents WHERE kind = ?", (DECISION,))]
    assert len(bodies) == 30
    found = [attribution(b) for b in bodies]
    assert found == [Attribution.model_validate_json(b) for b in bodies]
    assert {a.source for a in found} == {"registry"}
    assert [a.entity_id for a in found] == [json.loads(b)["entity_id"] for b in bodies]
    # The shortcut holds for what the store path writes (else every body is parsed whole
    # again, correct and as slow as before): its attribution is the tail after the decision.
    tails = [json.loads("{" + b[b.rindex(',"entity_id":') + 1:]) for b in bodies]
    assert [set(t) for t in tails] == [{"entity_id", "source"}] * len(bodies)


@pytest.mark.parametrize("body", [
    # Written in another order: the last "entity_id" is nested, its tail does not parse.
    '{"entity_id":"top","source":"s","decision":{"a":1,"entity_id":"nested"}}',
    '{"entity_id":"top","source":"s","decision":{"entity_id":"nested"}}',
    '{"entity_id":"top","source":"s","decision":[{"a":1,"entity_id":"nested"}]}',
    # A key whose text ends in ,"entity_id: its quote is escaped, so it is no key of its own.
    '{"entity_id":"top","decision":{"k,\\"entity_id":1}}',
    # No source recorded (a body stored before sources were), or none at all.
    '{"decision":{"entity_id":"nested"},"entity_id":"top"}',
    '{"decision":{},"entity_id":"top","source":null}',
    # Spaced JSON: parsed whole.
    '{"decision": {}, "entity_id": "top", "source": "s"}',
])
def test_a_body_the_shortcut_does_not_fit_is_parsed_whole(body: str) -> None:
    assert attribution(body) == Attribution.model_validate_json(body)
    assert attribution(body).entity_id == "top"
