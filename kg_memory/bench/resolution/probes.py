"""Probes: the benchmark's records with people added that a public dataset lacks, so that a
false merge its labels cannot show becomes countable.

* :func:`with_twins`: a twin of every person (the same surname, birth date and address,
  another given name): what a duplicate with a replaced given name looks like.
* :func:`with_near_twins`: the same, the twin's given name a registered name one edit from the
  sibling's ("mark" for "mary"), when the file offers one: what a typo looks like to a reader.
* :func:`with_juniors`: a namesake of every person in the same household, a generation
  younger (John Smith junior): what a duplicate with a replaced birth date looks like.

Each returns the records with the additions and which records were added; the benchmark
(:mod:`~kg_memory.bench.resolution.dataset`) counts the added ones merged as false merges.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from kg_memory.bench.resolution.febrl import Record
from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.name_tables import known_given_name
from kg_memory.domain.resolution.names import (
    compare_given,
    edit_distance,
    format_name,
    nickname_groups,
    parse_name,
)

__all__ = ["with_juniors", "with_near_twins", "with_twins"]


def with_twins(records: Sequence[Record], *, seed: int = 15) -> tuple[list[Record], list[bool]]:
    """``records`` with a twin of every person added, and which records are twins.

    FEBRL has no twins, yet a twin is what a duplicate with a replaced given name looks like:
    the same surname, date of birth and address, another given name, and (when filed) another
    national id. Each twin gets the given name of another person of the file, one that compares
    DIFFERENT with the sibling's, and is read after the sibling's first record, so merging it is
    a false merge the same-name slice cannot show.
    """
    rng = random.Random(seed)
    givens = sorted({g for r in records if (g := parse_name(r.mention.name).given)})

    def twin(record: Record) -> Record | None:
        sibling = parse_name(record.mention.name)
        if not sibling.given or not sibling.family:
            return None
        other = rng.choice(givens)
        while compare_given(other, sibling.given) is not Level.DIFFERENT:
            other = rng.choice(givens)
        return _twin(record, other, sibling.family)

    return _after_firsts(records, twin)


def with_near_twins(records: Sequence[Record], *, seed: int = 15
                    ) -> tuple[list[Record], list[bool]]:
    """``records`` with a twin added for every person whose given name has a registered
    neighbour one edit away among the file's given names ("mark" for "mary", "joan" for
    "john"), and which records are twins.

    :func:`with_twins` draws names that compare DIFFERENT, so it never tries the siblings a
    typo rule could mistake for one name mistyped; this probe tries only those. Both names
    are on the shipped given-name list (``known_given_name``), four letters or more (the typo
    rule's own floor) and not spellings of one name in the nickname table ("isabella" and
    "isabelle", "alex" and "alec" are one name by design), so a merge here is a twin read as
    a typo.
    """
    rng = random.Random(seed)
    givens = sorted({g for r in records if (g := parse_name(r.mention.name).given)
                     and len(g) >= 4 and known_given_name(g)})
    by_key: dict[str, set[str]] = {}
    for given in givens:  # one edit apart -> a shared one-deletion key (then checked exactly)
        for key in {given, *(given[:i] + given[i + 1:] for i in range(len(given)))}:
            by_key.setdefault(key, set()).add(given)

    def twin(record: Record) -> Record | None:
        sibling = parse_name(record.mention.name)
        if not sibling.given or not sibling.family:
            return None
        name = sibling.given
        keys = {name, *(name[:i] + name[i + 1:] for i in range(len(name)))}
        near = sorted({g for k in keys for g in by_key.get(k, ())
                       if g != name and edit_distance(g, name) == 1
                       and not nickname_groups(g) & nickname_groups(name)})
        if not near or not known_given_name(name):
            return None
        return _twin(record, rng.choice(near), sibling.family)

    return _after_firsts(records, twin)


def _after_firsts(records: Sequence[Record], make: Callable[[Record], Record | None]
                  ) -> tuple[list[Record], list[bool]]:
    """``records`` with what ``make`` returns for each person's first record read right after
    it, and which records were added."""
    firsts: dict[str, Record] = {}
    for record in records:
        firsts.setdefault(record.person, record)
    out: list[Record] = []
    flags: list[bool] = []
    for record in records:
        out.append(record)
        flags.append(False)
        added = make(record) if firsts[record.person] is record else None
        if added is not None:
            out.append(added)
            flags.append(True)
    return out, flags


def _twin(record: Record, given: str, family: str) -> Record:
    """The sibling's first record under ``given``, with a national id of its own."""
    mention = record.mention
    identifiers = tuple(
        i.model_copy(update={"value": i.value[::-1] + "9"}) for i in mention.identifiers
    )
    twin = mention.model_copy(update={
        "mention_id": f"{mention.mention_id}-twin",
        "episode_id": f"{mention.episode_id}-twin",
        "name": format_name(given, family),
        "identifiers": identifiers,
    })
    return Record(mention=twin, person=f"{record.person}-twin")


def with_juniors(records: Sequence[Record]) -> tuple[list[Record], list[bool]]:
    """``records`` with a namesake of every person added in the same household, and which
    records are those: the person's first record with the birth year 28 years later (a son
    named after his father), read right after it. Merging one is a same-name false merge that
    FEBRL, whose namesakes live apart, cannot show."""
    def junior(record: Record) -> Record | None:
        born = record.mention.context.birth_date
        if not born or len(born) < 8:
            return None
        mention = record.mention
        younger = f"{int(born[:4]) + 28:04d}{born[4:]}"
        return Record(mention=mention.model_copy(update={
            "mention_id": f"{mention.mention_id}-junior",
            "episode_id": f"{mention.episode_id}-junior",
            "identifiers": tuple(
                i.model_copy(update={"value": i.value[::-1] + "7"}) for i in mention.identifiers),
            "context": mention.context.model_copy(update={"birth_date": younger}),
        }), person=f"{record.person}-junior")

    return _after_firsts(records, junior)
