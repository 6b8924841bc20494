"""What a batch of records will ask its store about, read before any of them is planned.

Both batch planners (:mod:`kg_memory.store.sqlite.plan`, :mod:`kg_memory.store.neo4j.plan`)
prefetch these keys in one statement or query per kind, then answer the write path's reads from
memory. Asking for more than a record ends up reading costs a few keys; asking for less costs a
read per miss, so the list errs on the side of more (a mention's entity, an entity a fact
depends on; the blocking keys of a ``resolve`` mention, which only the embedded planner
reads). A record whose keys cannot be encoded (a lone surrogate in a scope, an operation
id, a subject or an entity id) is skipped here: the write path refuses it with its line, and
nothing of it is read. Nothing here hashes a record's payload: the write path does
that once per record, and a second hash here cost about as much as the rest of this module.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kg_memory.domain.dependency import parse_fact_ref
from kg_memory.domain.forgetting import evidence_key, operation_key
from kg_memory.domain.ids import assertion_id_for, episode_id_for
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.resolution import lookup_keys, new_entity_id

__all__ = ["Touched", "touched"]

Pair = tuple[str, str]


@dataclass
class Touched:
    """The keys of a batch, by kind (scoped: an id names one thing per scope)."""

    operations: list[Pair] = field(default_factory=list)
    tombstones: list[str] = field(default_factory=list)
    entities: list[Pair] = field(default_factory=list)
    #: (scope, subject, predicate, project or "")
    slots: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: (scope, key) of event targets, whose dependents an event may retire
    dependents: list[Pair] = field(default_factory=list)
    #: the scopes whose active blocks are read (a record's with candidate facts)
    scopes: list[str] = field(default_factory=list)
    #: the assertion ids the records' episodes will mint
    minted: list[str] = field(default_factory=list)
    #: (scope, blocking key) of each ``resolve`` mention: the profiles its block holds (read
    #: only by the embedded planner, which plans identity documents)
    blocks: list[Pair] = field(default_factory=list)
    #: (scope, entity id) each ``resolve`` mention would found, were it no one known yet
    founded: list[Pair] = field(default_factory=list)
    #: (secret, scope, operation id): the tombstone key of each record's operation, hashed
    #: here once; the episode's own check asks its planned unit for it rather than hashing again
    operation_keys: dict[tuple[bytes, str, str], str] = field(default_factory=dict)


def touched(records: Iterable[IngestRecord], secret: bytes, *, identity: bool = True
            ) -> Touched:
    """Every key ``records`` will read, in record order (duplicates kept: the planners dedup).

    ``identity=False`` leaves :attr:`Touched.blocks` and :attr:`Touched.founded` empty: a
    planner that does not plan the identity documents (Neo4j's) would throw them away, and
    a mention's blocking keys are the costly part of its keys (normalised names, phonetic
    codes)."""
    t = Touched()
    for r in records:
        lists: tuple[list[Any], ...] = (t.operations, t.tombstones, t.entities, t.slots,
                                        t.dependents, t.scopes, t.minted, t.blocks, t.founded)
        marks = [len(keys) for keys in lists]
        try:
            _add(t, r, secret, identity)
            # Every key goes to the store as text: one that cannot be encoded would fail the
            # whole batch's prefetch (the Neo4j driver refuses to pack it) instead of its record.
            "\x1f".join(_strings(keys[mark:] for keys, mark in zip(lists, marks, strict=True))
                         ).encode()
        except UnicodeEncodeError:
            for keys, mark in zip(lists, marks, strict=True):
                del keys[mark:]  # what the record added before its key failed
    return t


def _strings(groups: Iterable[list[Any]]) -> Iterable[str]:
    for keys in groups:
        for key in keys:
            if isinstance(key, str):
                yield key
            else:
                yield from key


def _add(t: Touched, r: IngestRecord, secret: bytes, identity: bool) -> None:
    scope = r.scope
    episode_id = episode_id_for(scope, r.operation_id)
    t.operations.append((scope, r.operation_id))
    hashed = t.operation_keys[(secret, scope, r.operation_id)] = operation_key(
        secret, scope, r.operation_id)
    t.tombstones.append(hashed)
    if r.assertions:
        # Only a candidate fact is checked against its scope's blocks: a plain turn (the
        # commonest record) reads none, so its batch of one does not ask for them.
        t.scopes.append(scope)
    t.minted += [assertion_id_for(episode_id, i) for i in range(len(r.assertions))]
    t.entities += [(scope, e.entity_id) for e in r.entities]
    t.entities += [(scope, m) for m in r.mentions]
    for m in r.resolve if identity else ():
        t.founded.append((scope, new_entity_id(f"{episode_id}/{m.key}")))
        try:
            keys = lookup_keys(m.name, m.identifiers, m.context)
        except ValueError:
            continue  # refused by the write path, which says why
        t.blocks += [(scope, k) for k in sorted(keys)]
    for event in r.events:
        t.entities.append((scope, event.target))
        t.dependents.append((scope, event.target))
    for x in r.retractions:
        t.entities.append((scope, x.subject))
        t.slots.append((scope, x.subject, x.predicate, x.project or ""))
    for c in r.assertions:
        project = c.qualifiers.project
        t.tombstones.append(evidence_key(secret, scope, c.subject, c.predicate, project,
                                         r.occurred_at))
        if project:
            t.entities.append((scope, project))
        if not c.subject.startswith("@"):
            t.entities.append((scope, c.subject))
            t.slots.append((scope, c.subject, c.predicate, project or ""))
        for ref in c.depends_on:
            try:
                fact = parse_fact_ref(ref)
            except ValueError:
                continue  # refused by the write path, which says why
            if fact is None:
                t.entities.append((scope, ref))
            else:
                t.slots.append((scope, fact.subject, fact.predicate, fact.project or ""))
