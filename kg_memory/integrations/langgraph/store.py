"""``KgMemoryStore``: LangGraph's long-term store (``BaseStore``) over a kg-memory graph.

A LangGraph item becomes a fact (see :mod:`kg_memory.integrations.langgraph.items` for the
mapping), and every write goes the way every other write goes:

* a batch's puts and deletes are **one episode per scope** from the configured source and
  channel, so the writer gate, supersession and dependency retirement apply; a write the gate
  refuses is audited and raises :class:`~kg_memory.WriteRefused` once the batch is stored;
* ``delete`` is a **retraction** from now on: history keeps what was believed, and
  ``get(..., as_of=...)`` still answers for the past. :meth:`KgMemoryStore.forget` erases;
* reads are as-of reads: ``get`` and ``search`` serve what holds now as the store believes it
  now, or at any ``as_of`` / ``known_at`` (beyond LangGraph), and :meth:`KgMemoryStore.history`
  lists every revision of an item.

``search(query=...)`` ranks the eligible items with :meth:`Memory.recall` (BM25 within the
tenant, eligibility first) and fills ``SearchItem.score`` scaled to ``(0, 1]``; items that share
no searchable word with the query are not returned. Given LangGraph's ``index`` config
(:mod:`kg_memory.integrations.langgraph.index`), it ranks them as LangGraph's stores do: by the
cosine of the query's vector with each item's fields' vectors (``score``), items with nothing
indexed last; the eligible items are the same either way.
Without a query, items come most recently updated first. TTLs are not supported (an item ends
when it is deleted or superseded, never by a timer); without an ``index`` config, ``index``
arguments are accepted and ignored.

Someone else's words are never served as an item: claims, and facts qualified with a project
(which a LangGraph key cannot name), stay out of ``get``, ``search`` and ``list_namespaces``.
Every item says who wrote it and what kind of fact it is (``item.writer``, ``item.kind``; see
:mod:`kg_memory.integrations.langgraph.attributed`).
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from pydantic import BaseModel, ConfigDict

from kg_memory import (
    Channel,
    Clock,
    Fact,
    ForgetReport,
    HistoryEntry,
    IngestRecord,
    Kind,
    Memory,
    Selector,
    WriteRefused,
    parse_record,
    system_clock,
)
from kg_memory.integrations.langgraph.attributed import AttributedItem, AttributedSearchItem
from kg_memory.integrations.langgraph.guards import item_value, open_inlet
from kg_memory.integrations.langgraph.index import VectorIndex
from kg_memory.integrations.langgraph.items import (
    decode,
    encode,
    matches,
    namespace_matches,
    to_namespace,
    to_slot,
)
from kg_memory.integrations.langgraph.ranking import ranked as ranked_by_recall

__all__ = ["ItemRevision", "KgMemoryStore"]

_SAME_AS = "same_as"  # identity merges are kg-memory's bookkeeping, not an agent's items


class ItemRevision(BaseModel):
    """One revision of an item in :meth:`KgMemoryStore.history`, with both time axes."""

    model_config = ConfigDict(frozen=True)

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    assertion_id: str
    revision: int
    writer: str
    valid_from: datetime
    valid_to: datetime | None
    known_since: datetime
    known_until: datetime | None
    created_because: str
    close_reason: str | None


def _glob_literal(text: str) -> str:
    """``text`` as an fnmatch pattern that matches only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _addressable(op: GetOp | PutOp) -> None:
    """Refuse in a batch what ``get`` and ``put`` refuse on their own: an item has a scope (the
    namespace's first label), and ``"langgraph"`` is LangGraph's reserved root."""
    if not op.namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    if isinstance(op, PutOp) and op.namespace[0] == "langgraph":
        raise InvalidNamespaceError(
            f'Root label for namespace cannot be "langgraph". Got: {op.namespace}')


class KgMemoryStore(BaseStore):
    """LangGraph's ``BaseStore`` over a :class:`~kg_memory.Memory`.

    ``source`` and ``channel`` say who the graph's writes are from (by default the agent,
    recording what the user said in the conversation); ``kind`` is the kind of fact a put writes.
    ``scope`` pins the store to one tenant: every namespace must then start with it.
    ``index`` is LangGraph's ``{"dims", "embed", "fields"}``: ``search(query=...)`` then ranks by
    meaning (see :mod:`kg_memory.integrations.langgraph.index`).
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        *,
        source: str = "agent",
        channel: Channel | str = Channel.CHAT,
        kind: Kind | str = Kind.STATED,
        scope: str | None = None,
        clock: Clock = system_clock,
        index: Mapping[str, Any] | None = None,
    ) -> None:
        self.memory = memory
        self.index = VectorIndex(index) if index is not None else None
        self.source = source
        self.channel = Channel(channel)
        self.kind = Kind(kind)
        self.scope = scope
        self._clock = clock
        # The deployment's channel policy decides now whether this source may use this channel.
        open_inlet(memory, source, self.channel)
        # One batch at a time through this store (the Memory itself is thread-safe): a batch's
        # reads must see the state before its own writes, not another thread's half-done batch.
        self._lock = threading.RLock()

    # -- BaseStore ---------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp | PutOp):
                _addressable(op)
                self._own(op.namespace)
            if isinstance(op, PutOp):
                item_value(op.namespace, op.key, op.value)
            elif isinstance(op, SearchOp) and op.namespace_prefix:
                self._own(op.namespace_prefix)
        with self._lock:
            now = self._clock()
            results: list[Result] = []
            for op in ops:
                if isinstance(op, GetOp):
                    results.append(self._get(op.namespace, op.key, now, now))
                elif isinstance(op, SearchOp):
                    results.append(self._search(op, now))
                elif isinstance(op, ListNamespacesOp):
                    results.append(self._list(op, now))
                elif isinstance(op, PutOp):
                    results.append(None)
                else:
                    raise TypeError(f"unknown store operation {type(op).__name__}")
            puts = [op for op in ops if isinstance(op, PutOp)]
            if self.index is not None:
                self.index.index_puts(puts)
            self._write(puts, now)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, ops)

    @property
    def index_config(self) -> dict[str, Any] | None:
        """The ``index`` config as given (None: no vector search), as LangGraph's stores have
        it."""
        return None if self.index is None else dict(self.index.config)

    @property
    def embeddings(self) -> Any:
        """The LangChain ``Embeddings`` the ``index`` config's ``embed`` became (None: no index,
        or a kg-memory embedder, which ``index.embedder`` holds)."""
        return getattr(self.index.embedder, "embeddings", None) if self.index else None

    # -- beyond LangGraph --------------------------------------------------------------------

    def get(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> Item | None:
        """The item as it held at ``as_of`` (default now), as the store believed it at
        ``known_at`` (default now)."""
        if as_of is None and known_at is None:
            return super().get(namespace, key, refresh_ttl=refresh_ttl)
        validate_op_namespace(GetOp(namespace, key))
        self._own(namespace)
        with self._lock:
            now = self._clock()
            return self._get(namespace, str(key), as_of or now, known_at or now)

    async def aget(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> Item | None:
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: self.get(namespace, key, refresh_ttl=refresh_ttl, as_of=as_of,
                                   known_at=known_at))

    def history(self, namespace: tuple[str, ...], key: str) -> list[ItemRevision]:
        """Every revision of the item, oldest first: values, writers, both intervals, and why
        each revision exists and ended (a put supersedes, a delete retracts)."""
        validate_op_namespace(GetOp(namespace, key))
        self._own(namespace)
        scope, subject = to_slot(namespace)
        with self._lock:
            entries = self.memory.history(subject, key, scope=scope)
        return [self._revision(namespace, key, e) for e in entries
                if e.version.qualifiers.project is None and e.version.kind is not Kind.CLAIM]

    def forget(self, namespace: tuple[str, ...], key: str | None = None, *,
               dry_run: bool = False) -> ForgetReport:
        """Erase an item (or every item of ``namespace``) and all it was derived into: no
        ``get`` at any ``as_of`` or ``known_at`` returns it afterwards. ``dry_run`` shows the
        plan."""
        validate_op_namespace(GetOp(namespace, key or "*"))
        self._own(namespace)
        scope, subject = to_slot(namespace)
        glob = "*" if key is None else _glob_literal(key)
        selector = Selector(kind="category", value=f"{scope}/{subject}/{glob}", scope=scope,
                            subject=subject, predicates=glob)
        with self._lock:
            return self.memory.forget(selector, dry_run=dry_run)

    # -- reads -------------------------------------------------------------------------------

    def _own(self, namespace: Sequence[str]) -> None:
        if self.scope is not None and namespace and namespace[0] != self.scope:
            raise InvalidNamespaceError(
                f"this store serves scope {self.scope!r} only; namespaces start with it, "
                f"got {tuple(namespace)}")

    @staticmethod
    def _servable(fact: Fact) -> bool:
        return (fact.kind is not Kind.CLAIM and fact.qualifiers.project is None
                and fact.predicate != _SAME_AS)

    def _created(self, fact: Fact, known_at: datetime) -> datetime:
        """When the item's current unbroken run of values began (in valid time)."""
        live = [e.version for e in self.memory.history(fact.subject, fact.predicate,
                                                       scope=fact.scope)
                if e.version.qualifiers.project is None
                and e.version.system.start <= known_at
                and (e.version.system.end is None or known_at < e.version.system.end)]
        start = fact.valid.start
        ends = {v.valid.end: v.valid.start for v in live if v.valid.end is not None}
        while start in ends:
            start = ends.pop(start)
        return start

    def _item(self, fact: Fact, known_at: datetime, score: float | None = None,
              search: bool = False) -> Item:
        updated = max(fact.valid.start, fact.last_confirmed or fact.valid.start)
        fields: dict[str, Any] = {
            "namespace": to_namespace(fact.scope, fact.subject), "key": fact.predicate,
            "value": decode(fact.value), "created_at": self._created(fact, known_at),
            "updated_at": updated, "writer": fact.writer, "kind": fact.kind,
        }
        if search:
            return AttributedSearchItem(**fields, score=score)
        return AttributedItem(**fields)

    def _get(self, namespace: tuple[str, ...], key: str, valid_at: datetime,
             known_at: datetime) -> Item | None:
        scope, subject = to_slot(namespace)
        answer = self.memory.asof(valid_at, known_at, subject=subject, predicate=key,
                                  scope=scope)
        for fact in answer.facts:
            if fact.subject == subject and self._servable(fact):
                return self._item(fact, answer.known_at)
        return None

    def _facts(self, prefix: tuple[str, ...], now: datetime) -> list[Fact]:
        scope = prefix[0] if prefix else self.scope
        answer = self.memory.asof(now, now, scope=scope)
        return [f for f in answer.facts if self._servable(f)
                and to_namespace(f.scope, f.subject)[: len(prefix)] == prefix]

    def _search(self, op: SearchOp, now: datetime) -> list[SearchItem]:
        facts = [f for f in self._facts(tuple(op.namespace_prefix), now)
                 if matches(decode(f.value), op.filter)]
        ranked: list[tuple[float | None, Fact]]
        if op.query and self.index is not None:
            ranked = self.index.ranked(op.query, facts)
        elif op.query:
            ranked = ranked_by_recall(self.memory, op.query, facts, now,
                                      max(op.offset, 0) + max(op.limit, 0))
        else:
            ranked = [(None, f) for f in facts]
            ranked.sort(key=lambda p: (to_namespace(p[1].scope, p[1].subject), p[1].predicate))
            ranked.sort(key=lambda p: max(p[1].valid.start, p[1].last_confirmed
                                          or p[1].valid.start), reverse=True)
        chosen = ranked[op.offset: op.offset + op.limit] if op.offset >= 0 and op.limit >= 0 \
            else []
        items = [self._item(f, now, score, search=True) for score, f in chosen]
        return [i for i in items if isinstance(i, SearchItem)]

    def _list(self, op: ListNamespacesOp, now: datetime) -> list[tuple[str, ...]]:
        conditions = [(c.match_type, tuple(c.path)) for c in op.match_conditions or ()]
        found = {to_namespace(f.scope, f.subject) for f in self._facts((), now)}
        kept = {ns if op.max_depth is None else ns[: op.max_depth]
                for ns in found if namespace_matches(ns, conditions)}
        return sorted(kept)[op.offset: op.offset + op.limit]

    # -- writes ------------------------------------------------------------------------------

    def _write(self, puts: list[PutOp], now: datetime) -> None:
        latest: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in puts:  # within a batch the last write of a key wins, as in LangGraph
            latest.pop((tuple(op.namespace), op.key), None)
            latest[(tuple(op.namespace), op.key)] = op
        by_scope: dict[str, list[PutOp]] = {}
        for op in latest.values():
            by_scope.setdefault(op.namespace[0], []).append(op)
        # Every scope's episode is built and checked before any is written, and all are written
        # in one commit: a batch that raises has stored none of its puts (docs/agents.md).
        records = [self._episode(scope, ops, now) for scope, ops in by_scope.items()]
        refused: list[str] = []
        with self.memory.store.batch():
            for record in records:
                report = self.memory.inlet(self.source, self.channel,
                                           scope=record.scope).ingest(record)
                refused += [f"{e.key} ({e.detail})" if e.detail else e.key
                            for e in report.effects if e.action == "refused"]
        if refused:
            raise WriteRefused(
                f"the writer gate refused {'; '.join(refused)} (written as {self.source!r} "
                f"over {self.channel.value}; audited in refusals)")

    def _episode(self, scope: str, ops: list[PutOp], now: datetime) -> IngestRecord:
        """The episode of one scope's puts, checked but not written."""
        assertions, retractions, content = [], [], []
        for op in ops:
            _, subject = to_slot(op.namespace)
            value = None if op.value is None else dict(op.value)
            content.append({"namespace": list(op.namespace), "key": op.key, "value": value})
            if value is None:
                retractions.append({"subject": subject, "predicate": op.key})
            else:
                assertions.append({"subject": subject, "predicate": op.key,
                                   "value": encode(value), "kind": self.kind.value})
        return parse_record({
            # Each batch is a new episode: LangGraph has no operation ids to replay.
            "operation_id": f"langgraph-{uuid.uuid4().hex}", "source": self.source,
            "channel": self.channel.value, "occurred_at": now.isoformat(), "scope": scope,
            "content": json.dumps(content, sort_keys=True, ensure_ascii=False, default=str),
            "assertions": assertions, "retractions": retractions,
        })

    @staticmethod
    def _revision(namespace: tuple[str, ...], key: str, entry: HistoryEntry) -> ItemRevision:
        v = entry.version
        return ItemRevision(
            namespace=namespace, key=key, value=decode(v.value), assertion_id=v.assertion_id,
            revision=v.revision, writer=v.writer, valid_from=v.valid.start,
            valid_to=v.valid.end, known_since=v.system.start, known_until=v.system.end,
            created_because=entry.created_because.value,
            close_reason=entry.close_reason.value if entry.close_reason else None,
        )
