"""A forgotten low-entropy value cannot be recovered from the store by guessing.

Rule protected (issue 25, finding 4): the tombstone key of a forgotten fact was an HMAC over
its scope, subject, predicate, project and value, under a secret kept in the same store, so
anyone holding the file (embedded) or able to read the database (Neo4j) could try every PIN
and confirm the forgotten one in 10,000 guesses. Now no stored tombstone is made from a value:
the evidence tombstone names the slot and the instant the evidence occurred
(:func:`kg_memory.domain.forgetting.evidence_key`), and the stores hold nothing that differs
with the forgotten value. ``kg-memory migrate`` (schema 9) drops the value-derived tombstones an
older store holds, with every copy of their keys; Neo4j drops them on connect.

The replay guard still refuses what it must: the forgotten operation id, and the forgotten
message sent again under another operation id (same slot, same instant), whatever value it
carries; evidence dated after the forget, and other slots, pass.

The brute force and the value-independence tests failed on the main of 2026-12-05 (5fd1482):
the guess found "4821".
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kg_memory import ForgottenError, Memory
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact

PIN = "4821"
CANDIDATES = [f"{n:04d}" for n in range(10_000)]
_HEX = re.compile(rb"[0-9a-f]{20,}")


def _forget_pin(memory: Memory, clock: ManualClock, pin: str = PIN) -> None:
    clock.now = day(1)
    report = memory.ingest(episode("card", "user", day(1), content="My new card.",
                                   assertions=[fact("u1", "card_pin", pin),
                                               fact("u1", "card_bank", "Nordbank")]))
    clock.now = day(2)
    memory.ingest(episode("city", "user", day(2), content="I live in Oslo.",
                          assertions=[fact("u1", "city", "Oslo")]))
    pin_id = next(e.assertion_id for e in report.effects if e.key == "u1.card_pin")
    clock.now = day(3)
    assert memory.forget(f"assertion:{pin_id}@u1").status == "complete"


def _windows(blob: bytes) -> set[str]:
    """Every run of 20 lowercase hex digits in ``blob``, at every offset (a key, the 20-digit
    prefix in a tombstone node's id, or either inside a longer run)."""
    found: set[str] = set()
    for run in _HEX.findall(blob):
        text = run.decode()
        found |= {text[i:i + 20] for i in range(len(text) - 19)}
    return found


def _whole_store(memory: Memory, backend: str, where: Path) -> bytes:
    """Everything the attacker holds: every byte of the store's files (free pages and WAL
    included), or every property of every node and relationship of the database."""
    if backend == "embedded":
        return b"".join(p.read_bytes() for p in sorted(where.iterdir()))
    rows: list[Any] = []
    with memory.store._driver.session() as session:  # type: ignore[attr-defined]
        rows += [r.values() for r in session.run("MATCH (n) RETURN labels(n), properties(n)")]
        rows += [r.values() for r in session.run("MATCH ()-[r]->() RETURN type(r), "
                                                  "properties(r)")]
    return json.dumps(rows, default=str).encode()


def _value_keys(secret: bytes, value: str) -> list[str]:
    """What a guesser computes for ``value``: the value-derived key every kg-memory before
    schema 9 stored, under the store's own secret."""
    canonical = json.dumps(["u1", "u1", "card_pin", None, value], separators=(",", ":"))
    return [hmac.new(secret, b"content\x00" + canonical.encode(), hashlib.sha256).hexdigest()]


def _confirmed(secret: bytes, held: bytes) -> list[str]:
    windows = _windows(held)
    return [v for v in CANDIDATES if any(k[:20] in windows for k in _value_keys(secret, v))]


def test_a_brute_force_over_10000_pins_fails_given_the_whole_store(
    backend: str, make_memory: MemoryFactory, clock: ManualClock, tmp_path: Path
) -> None:
    memory = make_memory(clock)
    _forget_pin(memory, clock)
    secret = memory.store.secret  # the attacker has it: it is in the file
    held = _whole_store(memory, backend, tmp_path)
    # The guesser works: a value stored as a tombstone would be found (PIN 0000's key).
    assert _confirmed(secret, held + _value_keys(secret, "0000")[0].encode()) == ["0000"]
    assert _confirmed(secret, held) == []


def _tombstone_rows(memory: Memory) -> set[str]:
    return set(memory.store.integrity_snapshot().tombstones)


def _same_secret(memory: Memory, backend: str, db: Path) -> None:
    """Give a fresh store a fixed tombstone secret (before anything reads it), so two stores
    differ only in what was written to them."""
    fixed = "ab" * 32
    if backend == "embedded":
        with driver.connect(db) as raw:
            raw.execute("UPDATE meta SET value = ? WHERE key = 'tombstone_secret'", [fixed])
        return
    with memory.store._driver.session() as session:  # type: ignore[attr-defined]
        session.run("MERGE (m:Meta {key: 'tombstone_secret'}) SET m.value = $v",
                    v=fixed).consume()


def test_no_tombstone_depends_on_the_forgotten_value(
    backend: str, make_memory: MemoryFactory, tmp_path: Path
) -> None:
    """Whatever key function a guesser tries, a tombstone that is the same for every value
    confirms none of them: two stores forgetting different PINs hold the same tombstones."""
    keys = []
    for n, pin in enumerate((PIN, "1234")):
        clock = ManualClock()
        memory = make_memory(clock)
        _same_secret(memory, backend, tmp_path / f"memory-{n}.db")
        _forget_pin(memory, clock, pin)
        keys.append(_tombstone_rows(memory))
        memory.close()
    assert keys[0] == keys[1]
    assert keys[0]  # the run did leave tombstones (node, operation, evidence)


def test_the_replay_guard_still_refuses_the_forgotten_evidence(
    memory: Memory, clock: ManualClock
) -> None:
    _forget_pin(memory, clock)
    original = episode("card", "user", day(1), content="My new card.",
                       assertions=[fact("u1", "card_pin", PIN),
                                   fact("u1", "card_bank", "Nordbank")])
    with pytest.raises(ForgottenError, match="operation 'card' was forgotten"):
        memory.ingest(original)
    # The same message under another operation id: refused, whatever value it carries now.
    for n, pin in enumerate((PIN, "9999")):
        copy = episode(f"card-again-{n}", "user", day(1), content="My new card.",
                       assertions=[fact("u1", "card_pin", pin)])
        with pytest.raises(ForgottenError, match="late write is refused"):
            memory.ingest(copy)
    # Said again after the forget: a new statement, accepted. Another slot of the same
    # instant, and the slot at another instant before the forget, were never forgotten.
    clock.now = day(4)
    for op, when, what in (("card-new", day(4), fact("u1", "card_pin", PIN)),
                           ("bank", day(1), fact("u1", "card_colour", "blue")),
                           ("older", day(0), fact("u1", "card_pin", "1111"))):
        assert memory.ingest(episode(op, "user", when, assertions=[what])).status == "accepted"
    report = memory.check()
    assert report.ok, [v.model_dump() for v in report.violations]


def test_a_schema_8_store_loses_its_value_derived_tombstones_on_migrate(
    tmp_path: Path,
) -> None:
    """Migration: the value-derived tombstone an older kg-memory wrote, its stored edge and its
    outbox row are dropped, zeroed in the file; the other tombstones stay and still refuse."""
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    where = tmp_path / "store"
    db = where / "m.db"
    clock = ManualClock()
    with Memory.open(db, clock=clock) as memory:
        _forget_pin(memory, clock)
        secret = memory.store.secret
        kept = _tombstone_rows(memory)
    [old] = _value_keys(secret, PIN)
    with driver.connect(db) as raw:  # as schema 10 and before wrote it
        raw.execute("INSERT INTO tombstones (key, scope, kind, generation, activity_id, "
                    "created_at) SELECT ?, scope, 'content', generation, activity_id, "
                    "created_at FROM tombstones LIMIT 1", [old])
        raw.execute("INSERT INTO edges (scope, src, type, dst, since) SELECT scope, ?, "
                    "'INVALIDATED_BY', activity_id, created_at FROM tombstones WHERE key = ?",
                    ["tomb_" + old[:20], old])
        raw.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    assert _confirmed(secret, _whole_store(memory, "embedded", where)) == [PIN]
    assert migrate(db) == ("8", SCHEMA_VERSION)
    assert _confirmed(secret, _whole_store(memory, "embedded", where)) == []
    with Memory.open(db, clock=clock, create=False) as memory:
        assert _tombstone_rows(memory) == kept
        report = memory.check()
        assert report.ok, [v.model_dump() for v in report.violations]
        with pytest.raises(ForgottenError):
            memory.ingest(episode("card", "user", day(1), assertions=[
                fact("u1", "card_pin", PIN)]))
    assert migrate(db) == (SCHEMA_VERSION, SCHEMA_VERSION)


@pytest.mark.neo4j
def test_neo4j_drops_value_derived_tombstones_on_connect(clock: ManualClock) -> None:
    import os

    from kg_memory.store.neo4j import Neo4jStore
    from kg_memory.store.neo4j.store import _SCHEMA_READY

    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    memory = Memory(Neo4jStore.connect(uri, clock=clock), clock=clock)
    try:
        memory.store.wipe()  # type: ignore[attr-defined]
        _forget_pin(memory, clock)
        secret = memory.store.secret
        kept = _tombstone_rows(memory)
        [old] = _value_keys(secret, PIN)
        with memory.store._driver.session() as session:  # type: ignore[attr-defined]
            session.run("MATCH (a:Activity) WITH a LIMIT 1 "
                        "CREATE (t:Node:Tombstone {scope: 'u1', id: 'tomb_' + substring($key, 0, "
                        "20), key: $key, kind: 'content', generation: 1, activity_id: "
                        "a.activity_id, created_at: a.started_at})-[:INVALIDATED_BY]->(a)",
                        key=old).consume()
        assert _confirmed(secret, _whole_store(memory, "neo4j", Path())) == [PIN]
    finally:
        memory.close()
    _SCHEMA_READY.clear()  # a new process: the connect-time upgrade runs
    memory = Memory(Neo4jStore.connect(uri, clock=clock), clock=clock)
    try:
        assert _confirmed(secret, _whole_store(memory, "neo4j", Path())) == []
        assert _tombstone_rows(memory) == kept
        report = memory.check()
        assert report.ok, [v.model_dump() for v in report.violations]
    finally:
        memory.close()
