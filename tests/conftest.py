"""Shared fixtures: a store on a real file with a clock the test moves by hand."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

from kg_memory import Clock, IngestRecord, Memory

if TYPE_CHECKING:
    from kg_memory.store.neo4j import Neo4jStore

# pytest-xdist's workers run with COLUMNS=80 and LINES=24 in their environment; rich reads
# COLUMNS once when the CLI's console is made (at import), which would pin every CLI test to 80
# columns whatever width its CliRunner asks for. Without them the console reads each run's.
for _name in ("COLUMNS", "LINES"):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop(_name, None)

EPOCH = datetime(2026, 1, 5, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]

# Memory.open's embedder is $KG_MEMORY_EMBEDDER, else the shipped model when the embed extra is
# installed (CI installs it). A test that recalls by meaning names its embedder; the rest run on
# words alone, as written (and fast). tests/test_embedders.py covers the default itself.
os.environ["KG_MEMORY_EMBEDDER"] = "none"


def day(n: float, hour: int = 9) -> datetime:
    return EPOCH + timedelta(days=n, hours=hour)


class ManualClock:
    def __init__(self, now: datetime = EPOCH) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


BACKENDS = [b for b in os.environ.get("KG_TEST_BACKENDS", "embedded,neo4j").split(",") if b]
MemoryFactory = Callable[..., Memory]


NEO4J_URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")


def _neo4j_memory(clock: Clock) -> Memory:
    """A Neo4j-backed memory on the server .ci/run started; unreachable is a failure."""
    from kg_memory.store.neo4j import Neo4jStore

    store = Neo4jStore.connect(NEO4J_URI, clock=clock)
    store.wipe()  # tests share the one database Community offers
    return Memory(store, clock=clock)


@pytest.fixture
def neo4j() -> Iterator[Neo4jStore]:
    """A store on the server .ci/run started, wiped first; for a test that needs the store
    itself (its sync target, its batches), not a memory. Only for tests marked ``neo4j``."""
    from kg_memory.store.neo4j import Neo4jStore

    store = Neo4jStore.connect(NEO4J_URI)
    store.wipe()
    yield store
    store.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``neo4j`` mark is the one switch: without ``neo4j`` in ``KG_TEST_BACKENDS`` every
    test carrying it is skipped, said so in the summary, instead of failing to connect (so a
    marked test needs no skipif of its own). ``tests/test_architecture.py`` checks that every
    test reaching the server carries the mark; CI names both backends, so it skips nothing.
    The mark also splits CI's run in two (``-m neo4j`` in one process, since those tests share
    the one database Community offers and each wipes it; ``-m "not neo4j"`` over xdist workers).
    """
    if "neo4j" in BACKENDS:
        return
    skip = pytest.mark.skip(reason="KG_TEST_BACKENDS leaves out neo4j")
    for item in items:
        if item.get_closest_marker("neo4j") is not None:
            item.add_marker(skip)


@pytest.fixture(
    params=[pytest.param(b, marks=pytest.mark.neo4j) if b == "neo4j" else b for b in BACKENDS]
)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_memory(backend: str, tmp_path: Path) -> Iterator[MemoryFactory]:
    """Open a fresh memory on the backend under test: the contract suite's entry point."""
    opened: list[Memory] = []

    def make(clock: Clock) -> Memory:
        if backend == "neo4j":
            mem = _neo4j_memory(clock)
        else:
            mem = Memory.open(tmp_path / f"memory-{len(opened)}.db", clock=clock)
        opened.append(mem)
        return mem

    yield make
    for mem in opened:
        mem.close()


@pytest.fixture
def memory(make_memory: MemoryFactory, clock: ManualClock) -> Memory:
    return make_memory(clock)


def episode(op: str, source: str, when: datetime, **fields: Any) -> IngestRecord:
    """A valid ingest record with sensible defaults for the envelope."""
    channel = fields.pop("channel", "chat" if source in ("user", "agent") else "webhook")
    return IngestRecord.model_validate(
        {
            "operation_id": op,
            "source": source,
            "channel": channel,
            "occurred_at": when.isoformat(),
            "scope": fields.pop("scope", "u1"),
            **fields,
        }
    )


def fact(
    subject: str, predicate: str, value: object, kind: str = "stated", **fields: Any
) -> dict[str, Any]:
    for key in ("valid_from", "valid_to"):
        if isinstance(fields.get(key), datetime):
            fields[key] = fields[key].isoformat()
    return {"subject": subject, "predicate": predicate, "value": value, "kind": kind, **fields}


# .ci/mutation.py runs each mutant's tests under this profile: the same examples every time, so
# a mutant's outcome does not depend on the luck of a draw.
settings.register_profile("mutation", derandomize=True)
settings.load_profile(os.environ.get("KG_HYPOTHESIS_PROFILE", "default"))
