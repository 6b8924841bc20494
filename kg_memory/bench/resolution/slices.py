"""Which records of a labelled dataset fall in the benchmark's slices, from the labels alone.

Computed once per dataset, before any system runs, so every system is scored on the same
records and no system's decisions shape the slice it is judged on:

* **same-name**: an earlier record of a *different* person carried the identical given and
  family names (merging it is the failure a memory cannot undo silently);
* **twin-like**: a duplicate (an earlier record of the *same* person was read) whose given name
  compares DIFFERENT with everything that person's earlier records said. Field for field that
  is what a twin is, so kg-memory leaves it for a person (REVIEW) by design; recall is judged
  on the other duplicates (issue 29's decision, docs/resolution.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_memory.bench.resolution.febrl import Record
from kg_memory.domain.resolution.comparison import compare
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.names import parse_name
from kg_memory.domain.resolution.profile import EntityProfile, grow_profile

__all__ = ["full_name", "same_name_flags", "twin_like_flags"]


def full_name(mention: Mention) -> str | None:
    """``"given family"`` of the mention's name, or None when either part is missing."""
    name = parse_name(mention.name)
    return f"{name.given} {name.family}" if name.given and name.family else None


def same_name_flags(records: Sequence[Record]) -> list[bool]:
    """For each record: did an earlier record of a different person carry the same name?"""
    seen: dict[str, set[str]] = {}
    flags: list[bool] = []
    for record in records:
        full = full_name(record.mention)
        people = seen.setdefault(full, set()) if full else set()
        flags.append(bool(people - {record.person}))
        people.add(record.person)
    return flags


def twin_like_flags(records: Sequence[Record]) -> list[bool]:
    """For each record: is it a duplicate whose given name differs from every given name its
    person's earlier records carried (near misses included: "sma" for "sam" is a typo to a
    reader, and as far from the record as a twin's name to the resolver)?"""
    people: dict[str, EntityProfile] = {}
    flags: list[bool] = []
    for record in records:
        mention, known = record.mention, people.get(record.person)
        twin_like = False
        if known is not None:
            given = next(c for c in compare(mention, known, single_valued=())
                         if c.field is Field.GIVEN_NAME)
            twin_like = given.level is Level.DIFFERENT
        flags.append(twin_like)
        people[record.person] = grow_profile(known, record.person, mention)
    return flags
