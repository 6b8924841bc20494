"""The store path decides exactly as it did before it was made faster (issue 29, "Resolution at
ingest speed"): a slice of FEBRL 3's test half, both variants, ingested with a counting clock,
leaves the same decisions, profiles, lookup keys, entities and edges, byte for byte, as the
code before the speed-up left (``fixtures/resolution/store_path_febrl3.json``, written by that
code: ``python -m tests.test_resolution_store_path_equivalence``).

A change meant to change decisions regenerates the fixture in the same commit, and says so."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kg_memory.bench.resolution.dataset import ingest_line
from kg_memory.bench.resolution.febrl import Part, load_febrl
from kg_memory.services.memory import Memory

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures/resolution/store_path_febrl3.json"
PEOPLE = 60  # 230 records: blocks of several profiles, merges, reviews and copies


class _Tick:
    """A clock that moves one microsecond per read, so decision ids and times repeat."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)
        return self.now


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def store_digest(folder: Path, *, identifier: bool) -> dict[str, dict[str, str]]:
    """What the store path left: each document's body by kind and key, and the lookup keys,
    entities and edges as one digest each."""
    records = load_febrl("febrl3", part=Part.TEST, identifier=identifier, limit=PEOPLE)
    path = folder / f"store-{identifier}.db"
    with Memory.open(path, clock=_Tick(), embedder="none") as mem:
        mem.ingest_many([ingest_line(r) for r in records])
    connection = sqlite3.connect(path)
    try:
        documents = {f"{kind}/{key}": _sha(body) for kind, key, body in connection.execute(
            "SELECT kind, key, body FROM documents ORDER BY kind, key")}
        tables = {
            table: _sha("\n".join(sorted(map(repr, connection.execute(query)))))
            for table, query in (
                ("document_keys", "SELECT kind, scope, key, doc FROM document_keys"),
                ("entities", "SELECT entity_id, type, name, scope, owners FROM entities"),
                ("edges", "SELECT scope, src, type, dst FROM edges"),
            )
        }
    finally:
        connection.close()
    return {"documents": documents, "tables": {**tables, "records": str(len(records))}}


@pytest.mark.parametrize("identifier", [False, True])
def test_the_store_path_leaves_what_it_left_before(tmp_path: Path, identifier: bool) -> None:
    golden = json.loads(GOLDEN.read_text())[str(identifier).lower()]
    now = store_digest(tmp_path, identifier=identifier)
    before, after = golden["documents"], now["documents"]
    assert sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k)) == []
    assert now["tables"] == golden["tables"]

if __name__ == "__main__":  # regenerate the fixture (only with the code it should pin)
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        digest = {str(v).lower(): store_digest(Path(scratch), identifier=v) for v in (False, True)}
    GOLDEN.write_text(json.dumps(digest, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
