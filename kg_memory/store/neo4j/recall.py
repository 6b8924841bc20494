"""The Neo4j store's recall index: two full-text indexes (``schema.cypher``), written in the
episode's transaction by :class:`~kg_memory.store.neo4j.tx.Neo4jTransaction`, read here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from neo4j import Transaction as DriverTransaction
from neo4j.exceptions import ClientError

from kg_memory.domain.errors import EmbedderMismatch, StoreUnavailable
from kg_memory.domain.model import Episode
from kg_memory.domain.ranking import CorpusStats
from kg_memory.domain.recall_text import TERMS, episode_document, fact_document, fact_words
from kg_memory.store.neo4j.rows import episode_from_props, instant, version_from_props
from kg_memory.store.protocol import (
    ConversationQuery,
    RecallCandidates,
    RecallProbe,
    VectorCandidates,
    VectorDoc,
    VectorProbe,
)

__all__ = [
    "MAX_TERMS",
    "RecallReads",
    "backfill",
    "conversations",
    "index_report",
    "lucene_query",
    "put_vectors",
    "recall_candidates",
    "reterm",
    "vector_backlog",
    "vector_candidates",
    "vector_indexes",
]

Read = Callable[..., list[dict[str, Any]]]

#: Lucene refuses more than 1,024 clauses; a longer question is cut to its first terms.
MAX_TERMS = 64


def lucene_query(scope: str, terms: Sequence[str]) -> str:
    """The full-text query for ``terms`` in ``scope``: any term in ``recall_text``, and the
    scope in the ``scope`` field (an empty string when there is no term).

    Terms are letters and digits only (recall_text.tokens): no Lucene syntax to escape. The
    scope is any text, so it is a quoted phrase with its quote and backslash escaped; the
    index splits it on whitespace as it does the query, so the phrase matches the scope's own
    node (and possibly a longer scope containing it: the query's exact test removes those). A
    scope of whitespace only has no word to require, so only the exact test applies.
    """
    if not terms:
        return ""
    query = f"recall_text:({' OR '.join(terms[:MAX_TERMS])})"
    if not scope.split():
        return query
    phrase = scope.replace("\\", "\\\\").replace('"', '\\"')
    return f'scope:"{phrase}" AND {query}'


def recall_candidates(_read: Read, probe: RecallProbe) -> RecallCandidates:
    query = lucene_query(probe.scope, probe.terms)
    known = instant(probe.known_at)
    found: dict[str, Any] = {}
    if probe.facts and query:
        [row] = _read("recall_facts", query=query, scope=probe.scope, known=known)
        found["facts"] = tuple(version_from_props(v) for v in row["versions"])
        found["fact_texts"] = tuple(v["recall_text"] for v in row["versions"])
        found["fact_corpus"] = CorpusStats(int(row["documents"]), int(row["tokens"]))
    if probe.episodes and query:
        [row] = _read("recall_episodes", query=query, scope=probe.scope, known=known)
        found["episodes"] = tuple(episode_from_props(e) for e in row["episodes"])
        found["episode_texts"] = tuple(e["recall_text"] for e in row["episodes"])
        found["episode_corpus"] = CorpusStats(int(row["documents"]), int(row["tokens"]))
    return RecallCandidates(**found)


def conversations(_read: Read, queries: Sequence[ConversationQuery]) -> list[list[Episode]]:
    """Every query's neighbours in one round trip (``known_at`` and ``size`` are one answer's,
    so shared; queries that differ in them are grouped)."""
    answers: list[list[Episode]] = [[] for _ in queries]
    groups: dict[tuple[Any, int], list[int]] = {}
    for i, q in enumerate(queries):
        groups.setdefault((instant(q.known_at), q.size), []).append(i)
    for (known, size), members in groups.items():
        rows = _read("recall_conversations", known=known, size=size, queries=[
            {"i": i, "scope": queries[i].scope, "channel": queries[i].channel,
             "source": queries[i].source, "around": instant(queries[i].around),
             "episode_id": queries[i].episode_id} for i in members])
        for r in rows:
            answers[int(r["i"])].append(episode_from_props(r["episode"]))
    return answers


def index_report(_read: Read, location: str) -> dict[str, Any]:
    """Recall's full-text indexes (and its vector index, once made) as a destination of erasure.

    What can be verified from a client: both indexes are online and transactional, so a node
    the forget run deleted or redacted left them when it committed (and the ``neo4j``
    destination's check found no such node). What cannot: Lucene keeps a deleted document's
    bytes in its segment files until it merges them, on the server's schedule.
    """
    report: dict[str, Any] = {"destination": "neo4j-fulltext", "location": location}
    try:
        rows = _read("recall_indexes")
    except StoreUnavailable as exc:
        return {**report, "status": "incomplete", "reason": str(exc)}
    report["indexes"] = {r["name"]: r["state"] for r in rows}
    bad = sorted(r["name"] for r in rows if r["state"] != "ONLINE" or r["eventual"])
    missing = sorted({"recall_facts_scoped", "recall_episodes_scoped"} - set(report["indexes"]))
    if bad or missing:
        return {**report, "status": "incomplete",
                "reason": f"index not online or eventually consistent: {bad + missing}"}
    return {**report, "status": "complete", "reason": (
        "transactional full-text indexes: the nodes the forget run deleted or redacted left "
        "them when it committed, and no such node remains. Lucene drops deleted documents "
        "from its segment files when it next merges them.")}


def _length(text: str) -> int:
    return text.count(" ") + 1 if text else 0


def backfill(_read: Read, batch: int = 1000) -> int:
    """Give every revision and episode of a store written before recall its recall text (what
    the embedded store's ``kg-memory migrate`` does), once per store: a ``Meta`` mark records
    it. Run on connect, after the schema; returns how many nodes it indexed."""
    [row] = _read("recall_backfill_done", mark=False)
    if row["done"]:
        return 0
    done = 0
    while True:
        facts = _read("recall_backfill_facts", limit=batch)
        episodes = _read("recall_backfill_episodes", limit=batch)
        if not facts and not episodes:
            break
        fact_rows = [_fact_row(r) for r in facts]
        episode_rows = []
        for r in episodes:
            text = episode_document(r["content"])
            episode_rows.append({"episode_id": r["episode_id"], "text": text or None,
                                 "length": _length(text)})
        _read("recall_backfill_write", facts=fact_rows, episodes=episode_rows)
        done += len(fact_rows) + len(episode_rows)
    _read("recall_backfill_done", mark=True)
    return done


def _fact_row(r: dict[str, Any]) -> dict[str, Any]:
    v = version_from_props(r["version"])
    text = fact_document(v, v.qualifiers.project, v.qualifiers.exceptions, tuple(r["names"]))
    return {"assertion_id": v.assertion_id, "revision": v.revision, "text": text or None,
            "length": _length(text)}


def reterm(_read: Read, batch: int = 1000) -> int:
    """Index every revision and episode again when the store's recall text holds another
    version of recall's terms than :data:`~kg_memory.domain.recall_text.TERMS` (what the
    embedded store's ``kg-memory migrate`` to schema 12 does), once: a ``Meta`` mark names the
    version. Run on connect, after :func:`backfill`; returns how many nodes it rewrote. The
    corpus statistics are summed from the nodes' lengths, so they follow; a revision whose text
    changed loses its vector, embedded from that text, until its scope's next hybrid recall."""
    [row] = _read("recall_terms_done", terms=TERMS, mark=False)
    if row["done"]:
        return 0
    done, after, revision = 0, "", 0
    while facts := _read("recall_reterm_facts", after=after, revision=revision, limit=batch):
        rows = sorted((_fact_row(r) for r in facts),
                      key=lambda f: (f["assertion_id"], f["revision"]))
        _read("recall_reterm_write", facts=rows, episodes=[])
        after, revision = rows[-1]["assertion_id"], rows[-1]["revision"]
        done += len(rows)
    last = ""
    while episodes := _read("recall_reterm_episodes", after=last, limit=batch):
        texts = [(r["episode_id"], episode_document(r["content"])) for r in episodes]
        _read("recall_reterm_write", facts=[], episodes=[
            {"episode_id": e, "text": text or None, "length": _length(text)}
            for e, text in texts])
        last = episodes[-1]["episode_id"]
        done += len(episodes)
    _read("recall_terms_done", terms=TERMS, mark=True)
    return done


#: The native index's global shortlist: this many per requested neighbour (at least 100).
SHORTLIST_FACTOR = 4


def _space(_read: Read, space: str, *, create: bool = False) -> bool:
    """Whether the store holds vectors in ``space`` (``create``: claim it, and make the vector
    index with its dimensions); another space is refused, never mixed."""
    [row] = (_read("recall_vector_space_set", space=space) if create
             else _read("recall_vector_space"))
    held = row["space"]
    if held is not None and held != space:
        raise EmbedderMismatch(
            f"this store's vectors were made by {held}, not {space}: recall with that embedder "
            "(vectors of two models are not comparable)")
    if create:
        dimensions = int(space.rsplit("/", 1)[1])
        _index(lambda: _read("recall_vector_index", dimensions=dimensions))
        _index(lambda: _read("recall_episode_vector_index", dimensions=dimensions))
        _read("recall_vector_await")
        _read("recall_episode_vector_await")
    return held is not None


#: What the server answers the second of two concurrent ``CREATE ... IF NOT EXISTS`` of one
#: index: each checked before the other committed.
_ALREADY_MADE = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"


def _index(make: Callable[[], object]) -> None:
    """Run ``make``, an index statement; another thread (a memory's vector worker beside a
    recall, two recalls) that made the same index at the same moment is success, not an
    error."""
    try:
        make()
    except (StoreUnavailable, ClientError) as exc:
        if _ALREADY_MADE not in (getattr(exc, "code", None),
                                 getattr(exc.__cause__, "code", None)):
            raise


def vector_indexes(_read: Read) -> None:
    """Make the episode vector index of a store whose vectors predate it (once, at open): an
    episode probe must find the index even before the store's next vector is written."""
    [row] = _read("recall_vector_space")
    if row["space"] is not None:
        dimensions = int(row["space"].rsplit("/", 1)[1])
        _index(lambda: _read("recall_episode_vector_index", dimensions=dimensions))
        _read("recall_episode_vector_await")


#: Whether the store holds vectors in a space (``create``: claim it): :func:`_space`, or a
#: store object's memo of it (:meth:`RecallReads._holds`).
Holds = Callable[[str, bool], bool]


def vector_backlog(_read: Read, scope: str, space: str, limit: int,
                   holds: Holds) -> list[VectorDoc]:
    holds(space, False)
    docs = []
    for r in _read("recall_vector_backlog", scope=scope, limit=limit):
        v = version_from_props(r["version"])
        # The revision's own words, not its recall_text's stems: the model reads words.
        docs.append(VectorDoc(assertion_id=v.assertion_id, revision=v.revision, text=fact_words(
            v, v.qualifiers.project, v.qualifiers.exceptions, tuple(r["names"])),
            indexed=r["version"]["recall_text"]))
    if len(docs) < limit:
        docs += [VectorDoc(episode_id=r["episode_id"], text=r["text"]) for r in _read(
            "recall_episode_vector_backlog", scope=scope, limit=limit - len(docs))]
    return docs


def put_vectors(_read: Read, scope: str, space: str,
                vectors: Sequence[tuple[VectorDoc, Sequence[float]]],
                holds: Holds) -> None:
    if not vectors:
        return
    holds(space, True)
    rows = [{"assertion_id": d.assertion_id, "revision": d.revision,
             "text": d.text if d.indexed is None else d.indexed,
             "vector": [float(x) for x in v]} for d, v in vectors if d.episode_id is None]
    episodes = [{"episode_id": d.episode_id, "text": d.text, "vector": [float(x) for x in v]}
                for d, v in vectors if d.episode_id is not None]
    if rows:
        _read("recall_vector_put", scope=scope, rows=rows)
    if episodes:
        _read("recall_episode_vector_put", scope=scope, rows=episodes)


def vector_candidates(_read: Read, probe: VectorProbe,
                      holds: Holds) -> VectorCandidates:
    """The probe's nearest eligible-by-interval revisions (or episodes), as cosine
    similarities: scored by ``vector.similarity.cosine`` when ``exact`` or when the scope holds
    at most ``exact_below`` vectors, else the native index's global shortlist of the scope's."""
    if not holds(probe.space, False):
        return VectorCandidates()
    params: dict[str, Any] = {"vector": list(probe.vector), "scope": probe.scope,
                              "known": instant(probe.known_at), "at": instant(probe.at)}
    facts = probe.corpus == "facts"
    if probe.exact:
        params["limit"] = limit = probe.k or 2**62
        [found] = (_read("recall_vector_exact", **params) if facts
                   else _read("recall_episode_vector_exact", **params))
        exact = True
    else:
        params["fetch"] = fetch = max(100, SHORTLIST_FACTOR * probe.k)
        params["k"] = limit = probe.k or fetch
        params["below"] = probe.exact_below
        # One statement either way: it counts the scope's vectors (up to `below`) and scores a
        # small scope exactly, a large one by the index's shortlist.
        [found] = (_read("recall_vector_query", **params) if facts
                   else _read("recall_episode_vector_query", **params))
        exact = bool(found["exact"])
    rows: list[dict[str, Any]] = found["rows"]
    method, complete = ("exact", len(rows) < limit) if exact else ("hnsw", False)
    # Neo4j scores cosine as (1 + cosine) / 2; the ranking fuses by rank, but the answer shows
    # the cosine itself, as on the embedded store.
    similarities = tuple(2 * float(r["score"]) - 1 for r in rows)
    if not facts:
        return VectorCandidates(
            episodes=tuple(episode_from_props(r["episode"]) for r in rows),
            similarities=similarities, method=method, complete=complete)
    return VectorCandidates(
        facts=tuple(version_from_props(r["version"]) for r in rows),
        similarities=similarities, method=method, complete=complete)


class RecallReads:
    """The store protocol's recall reads, for :class:`~kg_memory.store.neo4j.store.Neo4jStore`
    (its ``_read`` runs one named query inside the open transaction, if any)."""

    #: The vector space this store object found held or claimed (None: not yet, or wiped). A
    #: store's space is set once and only a wipe clears it, so a hybrid recall need not read it
    #: before each of its vector reads (five a recall, two index statements and two waits on
    #: each write of vectors).
    _vector_space: str | None = None
    _active: DriverTransaction | None

    def _read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _holds(self, space: str, create: bool) -> bool:
        if self._vector_space == space:
            return True
        held = _space(self._read, space, create=create)
        # Only what a committed statement read or claimed: a unit of work may roll back.
        if (held or create) and self._active is None:
            self._vector_space = space
        return held

    def recall_candidates(self, probe: RecallProbe) -> RecallCandidates:
        return recall_candidates(self._read, probe)

    def conversations(self, queries: Sequence[ConversationQuery]) -> list[list[Episode]]:
        return conversations(self._read, queries) if queries else []

    def vector_backlog(self, scope: str, space: str, limit: int) -> list[VectorDoc]:
        return vector_backlog(self._read, scope, space, limit, self._holds)

    def put_vectors(self, scope: str, space: str,
                    vectors: Sequence[tuple[VectorDoc, Sequence[float]]]) -> None:
        put_vectors(self._read, scope, space, vectors, self._holds)

    def vector_candidates(self, probe: VectorProbe) -> VectorCandidates:
        try:
            return vector_candidates(self._read, probe, self._holds)
        except StoreUnavailable:
            if self._vector_space is None:
                raise
            # Another store object may have wiped the database, and the vector indexes with
            # it: read the space again (a server that is down fails the second time too).
            self._vector_space = None
            return vector_candidates(self._read, probe, self._holds)
