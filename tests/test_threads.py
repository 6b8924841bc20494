"""Issue 25, finding 2: one ``Memory`` shared by threads and asyncio tasks.

Threads ingesting through ``memory.scoped(...)``, LangGraph stores (one per tenant) and MCP
servers (one per tenant) over one ``Memory``: every acknowledged write is stored, no thread
reads older than what it was just told was written, no write fails because another thread was
writing, and the store's integrity check is clean afterwards. The crash test kills a process
with several writer threads mid-run and checks the same after reopening. See tests/threaded.py
for the workload and docs/reliability.md for the model.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from kg_memory import Memory, StoreUnavailable
from kg_memory.store.clock import system_clock
from tests.conftest import MemoryFactory
from tests.procs import read_acks, spawn
from tests.threaded import missing, parse_ack, record, run_writers

SCOPES = ["u1", "u2", "u3"]


def _clean(memory: Memory) -> None:
    report = memory.check()
    assert report.ok, report.violations


def test_threads_sharing_one_memory_lose_no_acknowledged_write(
    make_memory: MemoryFactory, backend: str
) -> None:
    """4 threads x 3 tenants through ``memory.scoped``, single episodes and batches: on main
    the embedded store's threads began transactions inside each other's and acknowledged
    episodes that were never stored."""
    memory = make_memory(system_clock)
    count = 9 if backend == "neo4j" else 15
    outcome = run_writers(memory, 4, SCOPES, count)
    assert outcome.errors == []
    assert outcome.stale == []
    assert missing(memory, outcome.acked) == []
    for scope in SCOPES:
        for thread in range(4):
            assert outcome.acked[scope][thread] == list(range(count))
            assert memory.scoped(scope).asof(subject=f"w{thread}", predicate="n").values() \
                == [count - 1]
        # Every thread superseded the shared slot: exactly one value holds, the last written.
        assert len(memory.scoped(scope).asof(subject="shared", predicate="last").facts) == 1
    _clean(memory)


def test_a_reader_is_not_queued_behind_another_threads_batch(
    make_memory: MemoryFactory
) -> None:
    """While one thread holds a batch open (its write lock and, on Neo4j, the store's
    session), another thread's lookup answers with what was committed before it."""
    memory = make_memory(system_clock)
    memory.scoped("u1").ingest(record(0, 0, "u1"))
    inside, release = threading.Event(), threading.Event()
    answers: list[Any] = []

    def hold() -> None:
        with memory.store.batch(), memory.store.transaction("u1"):
            inside.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(30)
        reader = threading.Thread(target=lambda: answers.append(
            memory.scoped("u1").asof(subject="w0", predicate="n").values()))
        reader.start()
        reader.join(20)
        assert answers == [[0]], "the read waited for the other thread's batch"
    finally:
        release.set()
        holder.join()
    _clean(memory)


def test_langgraph_stores_per_tenant_over_one_memory_under_threads_and_tasks(
    make_memory: MemoryFactory
) -> None:
    """One ``KgMemoryStore`` per tenant over one ``Memory`` (as docs/agents.md suggests), used
    by threads (``put``/``get``) and by asyncio tasks (``aput``/``aget``) at once."""
    pytest.importorskip("langgraph", reason="needs the kg-memory[langgraph] extra")
    from kg_memory.integrations.langgraph import KgMemoryStore

    memory = make_memory(system_clock)
    stores = {s: KgMemoryStore(memory, scope=s) for s in SCOPES}
    rounds, stale, failed = 4, [], []

    def worker(name: str, scope: str) -> None:
        store = stores[scope]
        try:
            for i in range(rounds):
                store.put((scope, name), "n", {"value": i})
                got = store.get((scope, name), "n")
                if got is None or got.value != {"value": i}:
                    stale.append(f"{scope}/{name}: put {i}, got {got}")
        except Exception as exc:
            failed.append(f"{scope}/{name}: {type(exc).__name__}: {exc}")

    async def task(name: str, scope: str) -> None:
        store = stores[scope]
        for i in range(rounds):
            await store.aput((scope, name), "n", {"value": i})
            got = await store.aget((scope, name), "n")
            if got is None or got.value != {"value": i}:
                stale.append(f"{scope}/{name}: aput {i}, aget {got}")

    async def tasks() -> None:
        await asyncio.gather(*(task(f"task{t}", s) for t in range(2) for s in SCOPES))

    threads = [threading.Thread(target=worker, args=(f"thread{t}", s))
               for t in range(2) for s in SCOPES]
    for thread in threads:
        thread.start()
    asyncio.run(tasks())
    for thread in threads:
        thread.join()
    assert failed == []
    assert stale == []
    for scope in SCOPES:
        names = {item.namespace[1] for item in stores[scope].search((scope,), limit=100)}
        assert names == {"thread0", "thread1", "task0", "task1"}
        for name in names:
            revisions = stores[scope].history((scope, name), "n")
            # A supersession also closes the old value's valid time (one more revision of
            # it): every value put is there, in the order it was put.
            assert list(dict.fromkeys(r.value["value"] for r in revisions)) == \
                list(range(rounds))
    _clean(memory)


def test_mcp_servers_per_tenant_over_one_memory_under_concurrent_calls(
    make_memory: MemoryFactory
) -> None:
    """One MCP server per tenant over one ``Memory``, every client calling ``remember`` and
    ``asof`` from concurrent tasks: each remembered fact is there, in its tenant only."""
    pytest.importorskip("mcp", reason="needs the kg-memory[mcp] extra")
    from mcp import Client

    from kg_memory.integrations.mcp import build_server

    memory = make_memory(system_clock)
    servers = {s: build_server(memory, scope=s) for s in SCOPES}
    rounds = 3

    async def client(scope: str, writer: int) -> list[str]:
        problems = []
        async with Client(servers[scope]) as session:
            for i in range(rounds):
                done = await session.call_tool("remember", {
                    "content": f"writer {writer} counts {i}",
                    "facts": [{"subject": f"w{writer}", "predicate": "n", "value": i,
                               "kind": "stated"}]})
                if done.is_error:
                    problems.append(f"{scope}/w{writer} remember {i}: {done.content}")
                    continue
                seen = await session.call_tool("asof", {"subject": f"w{writer}"})
                values = [f["value"] for f in (seen.structured_content or {})["facts"]]
                if values != [i]:
                    problems.append(f"{scope}/w{writer}: remembered {i}, read {values}")
        return problems

    async def everyone() -> list[str]:
        found = await asyncio.gather(*(client(s, w) for s in SCOPES for w in range(3)))
        return [p for problems in found for p in problems]

    assert asyncio.run(everyone()) == []
    for scope in SCOPES:
        for writer in range(3):
            history = memory.history(f"w{writer}", "n", scope=scope)
            assert list(dict.fromkeys(h.version.value for h in history)) == list(range(rounds))
    _clean(memory)


def _target(backend: str, tmp_path: Path) -> str:
    if backend == "neo4j":
        return os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    return str(tmp_path / "m.db")


def test_a_killed_process_of_writer_threads_loses_no_acknowledged_write(
    make_memory: MemoryFactory, backend: str, tmp_path: Path
) -> None:
    """SIGKILL a process whose four threads write through one ``Memory``, at a random point
    after some acknowledgements, several times over the same store: every acknowledged
    episode is stored, no thread ever read older than its acknowledged write, and the check
    is clean after each reopening."""
    make_memory(system_clock).close()  # a fresh store (on Neo4j: wiped)
    target = _target(backend, tmp_path)
    rng = random.Random(int(os.environ.get("KG_CRASH_SEED") or 25))
    threads, kills = 4, 3 if backend == "neo4j" else 6
    acks = tmp_path / "acks.tsv"
    for kill in range(kills):
        child = spawn("threaded_writers", target, acks, threads, kill * threads,
                      rng.randrange(5, 40))
        assert child.stdout is not None
        problems = []
        for text in child.stdout:
            if text.startswith("problem "):
                problems.append(text.strip())
            if text.strip() == "ready":
                break
        else:
            raise AssertionError(f"child exited ({child.wait()}): {child.stderr}")
        time.sleep(rng.uniform(0, 0.5))
        child.send_signal(signal.SIGKILL)
        rest, err = child.communicate(timeout=60)
        problems += [t for t in rest.splitlines() if t.startswith("problem ")]
        assert problems == [], err
        acked: dict[str, dict[int, list[int]]] = {}
        for operation_id, status in read_acks(acks):
            assert status == "accepted", operation_id
            scope, thread, n = parse_ack(operation_id)
            acked.setdefault(scope, {}).setdefault(thread, []).append(n)
        with Memory.open(target, create=False) as memory:
            assert missing(memory, acked) == []
            _clean(memory)
    acknowledged = len(read_acks(acks))
    assert acknowledged >= kills * 5
    print(f"{backend}: {kills} kills of {threads} writer threads, {acknowledged} "
          "acknowledged episodes, 0 lost, check clean after each")


def _run_in_thread(fn: Any) -> Any:
    """``fn()`` on a thread of its own; its result, or its exception raised here."""
    out: list[Any] = []

    def body() -> None:
        try:
            out.append(("ok", fn()))
        except Exception as exc:
            out.append(("error", exc))

    worker = threading.Thread(target=body)
    worker.start()
    worker.join(60)
    kind, value = out[0]
    if kind == "error":
        raise value
    return value


def test_an_in_memory_store_is_one_store_for_every_thread() -> None:
    """``":memory:"`` used to be one SQLite connection's private database; with a connection
    per thread it is a scratch file every thread sees, removed when the store closes."""
    memory = Memory.open(":memory:")
    scratch = memory.store.location
    _run_in_thread(lambda: memory.scoped("u1").ingest(record(0, 0, "u1")))
    assert memory.scoped("u1").asof(subject="w0", predicate="n").values() == [0]
    assert _run_in_thread(
        lambda: memory.scoped("u1").asof(subject="w0", predicate="n").values()) == [0]
    memory.close()
    assert not Path(scratch).parent.exists()


def test_ended_threads_leave_no_connection_open(tmp_path: Path) -> None:
    """A pool's short-lived workers: the connection of a thread that ended is closed when
    another thread opens one, so the process does not accumulate open files."""
    db = tmp_path / "m.db"

    def open_files() -> int:
        fds = Path("/proc/self/fd")
        return sum(1 for fd in fds.iterdir()
                   if os.path.realpath(fd) == str(db.resolve()))

    with Memory.open(db) as memory:
        memory.scoped("u1").ingest(record(0, 0, "u1"))
        for _ in range(40):
            _run_in_thread(lambda: memory.scoped("u1").asof(subject="w0").values())
        assert open_files() <= 3  # the opener's, the last worker's, at most one in between
    assert open_files() == 0


def test_a_closed_store_refuses_a_new_thread(tmp_path: Path) -> None:
    memory = Memory.open(tmp_path / "m.db")
    memory.close()
    with pytest.raises(StoreUnavailable, match="closed"):
        _run_in_thread(lambda: memory.asof(subject="w0"))
