"""The Neo4j store: the same bitemporal memory as the embedded one, as a graph you can explore.

The graph (every query is a file in ``cypher/``; ``schema.cypher`` holds the constraints):

* ``(:Episode:Node)``, ``(:Entity:Node)``, ``(:Activity:Node)``, ``(:Tombstone:Node)``: one node
  each, ``id`` = the protocol id. Every node an edge can point at is a ``:Node``; an id named by
  an edge before it exists (an entity only mentioned, a tombstone's id) is a bare ``:Node``
  placeholder that takes on its labels when written.
* ``(:Fact:Node {id: assertion_id})``: one hub per logical assertion. Edges point at assertion
  ids, not revisions, so the typed edges (SUPPORTS, MENTIONS, ABOUT, DERIVED_FROM, ...; see
  :class:`~kg_memory.domain.model.EdgeType`) are real relationships between these nodes, each with
  ``since`` (system time). ``(:Fact)-[:NEEDS]->(:Node)`` records the dependencies.
* ``(:Assertion)-[:REVISION_OF_FACT]->(:Fact)``: one node per revision, with both intervals as
  integer microseconds (``sys_to`` null while believed), labelled by kind (``:Stated``, ``:World``,
  ``:Claim``, ``:Derived``) and ``:Current`` while its system interval is open. A revision is never
  changed: the store only sets ``sys_to`` (and ``closed_by``, ``close_reason``) once.
* ``(:Episode)-[:REFUSED]->(:Refusal)``, ``(:Block)``, ``(:Meta {key, value})``, and the
  identity documents: ``(:LookupKey {kind, scope, key})-[:FINDS]->(:Document {kind, key})``.

Writes: one explicit Neo4j transaction per :meth:`Neo4jStore.transaction`; its first query takes
the system-time lock, so writers are serialised and system time strictly increases. Reads made
while that transaction is open (the forget run reads through the store) run inside it and see
its writes, as on the embedded store's connection.

Threads share a store: see :mod:`kg_memory.store.neo4j.sessions`.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from neo4j import Driver, GraphDatabase, Session
from neo4j import Transaction as DriverTransaction
from neo4j.exceptions import DriverError, Neo4jError

from kg_memory.domain.errors import StoreBusy, StoreNeedsMigration, StoreUnavailable
from kg_memory.domain.instant import Clock
from kg_memory.store.clock import system_clock
from kg_memory.store.neo4j.audit import Audits
from kg_memory.store.neo4j.auth import credentials, public_uri, redact, split_uri
from kg_memory.store.neo4j.batching import Batching
from kg_memory.store.neo4j.buffered import BufferedUnit
from kg_memory.store.neo4j.bulk_reads import BulkReads
from kg_memory.store.neo4j.cypher import statements
from kg_memory.store.neo4j.graph_reads import GraphReads
from kg_memory.store.neo4j.migrate import MigrationReport, migrate
from kg_memory.store.neo4j.pipelining import Neo4jPipeline
from kg_memory.store.neo4j.plan import BatchPlan
from kg_memory.store.neo4j.recall import RecallReads, backfill, reterm, vector_indexes
from kg_memory.store.neo4j.rows import (
    instant,
    time_of,
)
from kg_memory.store.neo4j.sessions import Sessions
from kg_memory.store.neo4j.tx import Neo4jTransaction, run_query

__all__ = ["MIGRATES_FROM", "SCHEMA_VERSION", "Neo4jStore"]

SCHEMA_VERSION = "3"
#: The one older version ``kg-memory neo4j migrate`` converts (instants as integers).
MIGRATES_FROM = "2"
#: The scope of the mirror's own units of work: it replays rows of every scope, each row
#: carrying its own scope, so the unit's scope names none of them.
MIRROR_SCOPE = "kg-memory-mirror"
#: (uri, database) pairs whose schema this process already ensured (it survives wipe()).
_SCHEMA_READY: set[tuple[str, str]] = set()
#: Tries at the metadata constraint when openers of a new database race for it.
_META_TRIES = 5


class Neo4jStore(Sessions, Batching, RecallReads, Audits, GraphReads, BulkReads):
    """A store on a Neo4j 5 server. Open with :meth:`connect`; close with :meth:`close`."""

    def __init__(self, driver: Driver, uri: str, database: str, clock: Clock) -> None:
        self._driver = driver
        self._uri = public_uri(uri)
        self._database = database
        self._clock = clock
        self._lock = threading.RLock()
        self._bookmarks = GraphDatabase.bookmark_manager()
        self._session: Session | None = driver.session(database=database,
                                                       bookmark_manager=self._bookmarks)
        self._active: DriverTransaction | None = None
        self._secret: bytes | None = None
        # What forget runs erased through this store object, until a scrub verifies it.
        self._erased: set[str] = set()
        self._erased_entities: set[tuple[str, str]] = set()
        self._redacted: set[str] = set()
        self._found = SCHEMA_VERSION
        self._in_batch = False
        self._solo_next = False
        self._plan: BatchPlan | None = None
        self._piped: Neo4jPipeline | None = None  # the pipeline of the batch open, if any
        self._replan = False

    @classmethod
    def connect(
        cls,
        uri: str,
        *,
        user: str | None = None,
        password: str | None = None,
        database: str = "neo4j",
        clock: Clock = system_clock,
        migrating: bool = False,
    ) -> Neo4jStore:
        """Connect to ``uri`` (``bolt://127.0.0.1:7687``) and make sure the schema is there.

        Credentials come from the arguments, ``$NEO4J_USER`` / ``$NEO4J_PASSWORD`` or the private
        file ``$KG_NEO4J_CONFIG`` (see :mod:`kg_memory.store.neo4j.auth`); with no password the
        driver connects without auth. Raises :class:`StoreUnavailable` when the
        server cannot be reached or holds a store of another schema version
        (:class:`StoreNeedsMigration` for the previous one, unless ``migrating``: then only
        :meth:`migrate` may be called before the store is used).
        """
        public, uri_user, uri_password = split_uri(uri)
        auth = credentials(user or uri_user, password or uri_password)
        try:
            # Notifications off: schema-less property reads ("created_at does not exist yet") are
            # expected on an empty store, and the server need not send them.
            driver = GraphDatabase.driver(public, auth=auth, notifications_min_severity="OFF")
        except (DriverError, Neo4jError, ValueError) as exc:
            # Not chained: a driver error may quote what it was given.
            raise StoreUnavailable(
                f"cannot connect to Neo4j at {public}: {redact(str(exc), auth)}") from None
        store = cls(driver, public, database, clock)
        try:
            store._found = store._ensure_schema(migrating=migrating)
        except BaseException:
            store.close()
            raise
        return store

    @property
    def location(self) -> str:
        return self._uri

    def __enter__(self) -> Neo4jStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ensure_schema(self, *, migrating: bool = False) -> str:
        """Check the schema version, then create the constraints and indexes; returns the
        version found. ``migrating``: accept the previous version (``kg-memory neo4j
        migrate`` converts it)."""
        key = (self._uri, self._database)
        with self._lock:
            session = self._target()
            # Checked before the schema runs: schema 1 keyed ids across scopes, and its data
            # cannot be given scopes after the fact without guessing whose each node was.
            failed = None if key in _SCHEMA_READY else self._meta_constraint()
            rows = self._read("schema_version", version=SCHEMA_VERSION)
            if len(rows) != 1:
                raise StoreUnavailable(
                    f"{self._uri} holds {len(rows)} kg-memory schema versions; keep the one the "
                    "data was written with: MATCH (m:Meta {key: 'schema_version'}) (Neo4j Browser)")
            if failed is not None:
                raise failed
            found = str(rows[0]["version"])
            if found == MIGRATES_FROM and not migrating:
                raise StoreNeedsMigration(
                    f"{self._uri} holds kg-memory schema {found} (instants as integers); this "
                    f"version reads schema {SCHEMA_VERSION}: run `kg-memory neo4j migrate "
                    f"--uri {self._uri}` to convert it in place")
            if found not in (SCHEMA_VERSION, MIGRATES_FROM):
                raise StoreUnavailable(
                    f"{self._uri} has kg-memory schema {found}, this version needs "
                    f"{SCHEMA_VERSION} (tenancy: ids keyed by scope); re-ingest its JSONL into "
                    "a new database, or wipe it")
            if key not in _SCHEMA_READY:
                for statement in statements("schema"):
                    try:
                        session.run(statement).consume()
                    except (DriverError, Neo4jError) as exc:
                        raise StoreUnavailable(
                            f"cannot prepare the Neo4j store at {self._uri}: {exc}") from exc
                backfill(self._read)  # a store written before recall: its recall text, once
                reterm(self._read)  # recall text of older terms: written again, once
                vector_indexes(self._read)  # episodes' vector index, beside the revisions'
                self._read("envelope_backfill")  # episodes' decisions, from the audit, once
                self._read("drop_value_tombstones")  # an older kg-memory's (security.md)
                _SCHEMA_READY.add(key)
            return found

    def _meta_constraint(self) -> StoreBusy | StoreUnavailable | None:
        # Processes opening a new database at once all create the constraint; the losers of
        # that schema race fail (a deadlock the server broke, or "already exists": IF NOT
        # EXISTS checks before it locks), and a later try finds the constraint. The last
        # failure is returned, for the caller to name first the duplicate versions an older
        # kg-memory may have left (which make the constraint impossible).
        # Only those races are tried again: an unreachable server or refused credentials
        # fail at once (a retry would multiply the connect timeout, or trip the server's
        # lockout of repeated failed logins).
        failure: StoreBusy | StoreUnavailable | None = None
        for attempt in range(_META_TRIES):
            try:
                self._read("schema_meta")
                return None
            except StoreBusy as exc:
                failure = exc
            except StoreUnavailable as exc:
                cause = exc.__cause__
                if not (isinstance(cause, Neo4jError) and ".Schema." in (cause.code or "")):
                    return exc
                failure = exc
            if attempt + 1 < _META_TRIES:  # no pause after the last: the caller reports it
                time.sleep(0.05 * (attempt + 1))
        return failure

    def migrate(self, *, batch_size: int = 5000) -> MigrationReport:
        """Convert a schema 2 database to this version in place (see
        :mod:`kg_memory.store.neo4j.migrate`); a no-op on a current one."""
        with self._lock:
            if self._active is not None:
                raise RuntimeError("cannot migrate the store inside a transaction")
            target = self._target()
            report = migrate(
                lambda name, **params: run_query(target, name, params, where=self._uri,
                                                 reads=False),
                self._uri, found=self._found, target=SCHEMA_VERSION, batch_size=batch_size)
            self._found = SCHEMA_VERSION
            return report

    def wipe(self) -> None:
        """Delete every node and relationship (tests share Community's one database), and the
        vector index, whose dimensions were the last embedder's."""
        with self._lock:
            if self._active is not None:
                raise RuntimeError("cannot wipe the store inside a transaction")
            self._read("wipe")
            self._read("recall_vector_drop")
            self._read("recall_episode_vector_drop")
            self._secret = None
            self._vector_space = None
            self._erased.clear()
            self._erased_entities.clear()
            self._redacted.clear()
            self._read("schema_version", version=SCHEMA_VERSION)

    # -- writes ----------------------------------------------------------------------------

    def run_many(self, steps: Sequence[tuple[str, dict[str, Any]]]) -> list[list[dict[str, Any]]]:
        """Run named cypher/ queries in one explicit transaction (all or nothing): the mirror
        applies a slice of the outbox and its cursor together."""
        with self.transaction(MIRROR_SCOPE) as unit:
            return [unit.run(name, params) for name, params in steps]

    def _begin(self) -> DriverTransaction:
        session = self._target()
        assert isinstance(session, Session)
        return self._begin_on(session)

    def _begin_on(self, session: Session) -> DriverTransaction:
        try:
            return session.begin_transaction()
        except (DriverError, Neo4jError) as exc:
            raise StoreUnavailable(f"cannot write to Neo4j at {self._uri}: {exc}") from exc

    @contextmanager
    def transaction(self, scope: str) -> Iterator[Neo4jTransaction | BufferedUnit]:
        with self._lock:
            if self._in_batch and not self._solo_next:
                with self._planned(scope) as planned:
                    yield planned
                return
            self._solo_next = False
            if self._active is not None:
                raise RuntimeError("a transaction is already open on this Neo4jStore")
            tx = self._begin()
            self._active = tx
            try:
                [row] = run_query(
                    tx, "system_time", {"clock": instant(self._asked_time())},
                    where=self._uri, reads=False,
                )
                unit = Neo4jTransaction(tx, time_of(row["now"]), self._uri, scope)
                yield unit
                unit.finish()
            except BaseException:
                self._active = None
                # The server rolls back by itself a transaction whose connection went away.
                with suppress(DriverError, Neo4jError):
                    tx.rollback()
                raise
            self._active = None
            try:
                tx.commit()
            except (DriverError, Neo4jError) as exc:
                raise StoreUnavailable(f"cannot commit to Neo4j at {self._uri}: {exc}") from exc
            self._erased.update(unit.erased)
            self._erased_entities.update(unit.erased_entities)
            self._redacted.update(unit.redacted)

    @property
    def secret(self) -> bytes:
        """The key of this store's tombstone hashes, created once and kept in the database.

        Always read and created in its own auto-commit transaction: an episode that rolls back
        must not take the key of every tombstone with it.
        """
        with self._lock:
            if self._secret is None:
                if self._session is None:
                    raise StoreUnavailable(f"the Neo4j store at {self._uri} is closed")
                if self._active is not None:
                    # A separate session: the key must outlive a rollback of the open unit.
                    with self._driver.session(database=self._database,
                                              bookmark_manager=self._bookmarks) as own:
                        rows = run_query(own, "secret", {"fresh": secrets.token_hex(32)},
                                         where=self._uri, reads=True)
                else:
                    rows = self._read("secret", fresh=secrets.token_hex(32))
                self._secret = bytes.fromhex(rows[0]["value"])
            return self._secret
