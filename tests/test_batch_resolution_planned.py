"""A batch of episodes with ``resolve`` mentions is planned like any other (issue 29, "resolution
at ingest speed"): the profiles in the mentions' blocks, the decisions about their entities and
the entities themselves are read in a few set-based statements before the batch runs, a later
episode sees the profiles an earlier one of the same batch grew, and the batch writes each
table once. Before, such an episode was its own unit of work: about twelve statements a
mention, and every episode after it in the batch ran statement by statement too.

That the planned batch writes what one-by-one ingest writes is
``tests/test_batch_equivalence.py``'s (its scripts resolve mentions into shared profiles) and
``tests/test_resolution_store_path_equivalence.py``'s (FEBRL 3 against main's fixture)."""

from __future__ import annotations

from pathlib import Path

from kg_memory import IngestRecord, Memory
from kg_memory.store.sqlite import driver
from tests.conftest import EPOCH


def _line(n: int, name: str) -> IngestRecord:
    return IngestRecord.model_validate({
        "operation_id": f"op-{n}", "source": "registry", "channel": "document",
        "occurred_at": EPOCH.isoformat(), "scope": "u1",
        "resolve": [{"key": "p", "name": name, "identifiers": {"email": f"{name[:2]}@x.org"},
                     "context": {"birth_date": "1981-02-03", "city": "Oslo"}}]})


NAMES = ("Jo Park", "Joanne Park", "Sam Lee", "Samuel Lee", "Ana Ruiz")


def test_a_batch_of_resolve_mentions_reads_in_sets(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as memory:
        memory.ingest_many([_line(n, NAMES[n % 5]) for n in range(10)])  # profiles to meet
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        try:
            reports = memory.ingest_many([_line(n, NAMES[n % 5]) for n in range(10, 70)])
        finally:
            conn.set_trace_callback(None)
    assert {r.status for r in reports} == {"accepted"}
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    # Sixty mentions, each meeting the profiles of its block (stored, and grown earlier in
    # the batch): a fixed number of reads for the batch, none per mention (over 300 before).
    assert len(reads) <= 12, "\n".join(s[:120] for s in reads)
    profiles = [s for s in statements if "INTO documents" in s]
    # Each document written once, with its last body (a profile grew several times).
    written = [tuple(s.split("VALUES (")[1].split(", ")[:2]) for s in profiles]
    assert len(written) == len(set(written))


def test_a_later_episode_of_the_batch_meets_the_profile_an_earlier_one_grew(
        tmp_path: Path) -> None:
    """Two mentions of one person with the same email in one batch: one entity, as one by one."""
    with Memory.open(tmp_path / "batch.db") as memory:
        batch = memory.ingest_many([_line(1, "Jo Park"), _line(2, "Jo Park")])
        together = {e.entity_id for e in memory.store.entities("u1")}
    with Memory.open(tmp_path / "single.db") as memory:
        single = [memory.ingest(_line(1, "Jo Park")), memory.ingest(_line(2, "Jo Park"))]
        apart = {e.entity_id for e in memory.store.entities("u1")}
    assert len(together) == 1
    assert together == apart
    assert [r.status for r in batch] == [r.status for r in single]
