"""The corpus slices: how each scope of the corpus is populated, one builder per slice.

Every builder adds people the memory knows (``stored``) and newcomers it does not, then mentions
of both, labelled with the truth. Bystanders (three unrelated people per scope) are added by
:func:`~kg_memory.bench.resolution.corpus.generate_corpus`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Final

from kg_memory.bench.resolution.corpus_pools import (
    CITIES,
    COMMON_NAMES,
    FAMILY_NAMES,
    FORMAL_GIVEN_NAMES,
    GIVEN_NAMES,
    NEAR_NAMES,
)
from kg_memory.bench.resolution.corpus_world import KNOWN_SINCE, MENTIONS_FROM, SimScope
from kg_memory.bench.resolution.labelled import Slice
from kg_memory.domain.resolution.field import Field
from kg_memory.domain.resolution.mention import Identifier, IdentifierKind
from kg_memory.domain.resolution.name_tables import NICKNAME_GROUPS

__all__ = ["SLICES"]


def _typo(rng: random.Random, word: str) -> str:
    """One slip of the keyboard, never on the first letter (people get that right) nor the
    last (where a vowel turns Paula into Paulo, a different name)."""
    i = rng.randrange(1, len(word) - 2)
    kind = rng.choice(("swap", "drop", "double", "vowel"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    vowels = [j for j in range(1, len(word) - 1) if word[j] in "aeiou"] or [i]
    j = rng.choice(vowels)
    return word[:j] + rng.choice([v for v in "aeiou" if v != word[j]]) + word[j + 1 :]


def _same_name(s: SimScope) -> None:
    rng = s.rng
    given, family = (
        rng.choice(COMMON_NAMES)
        if rng.random() < 0.5
        else (rng.choice(GIVEN_NAMES), rng.choice(FAMILY_NAMES))
    )
    namesakes = [s.person(given, family) for _ in range(rng.choice((2, 2, 3, 4)))]
    for p in namesakes:
        for _ in range(rng.choice((2, 3))):
            s.mention(p, Slice.SAME_NAME, truth=p.entity_id, name=s.name_form(p))
    for _ in range(rng.choice((2, 3))):
        twin = rng.choice(namesakes)
        new = s.person(given, family, stored=False)
        shared: tuple[Field, ...] = ()
        if rng.random() < 0.4:  # a hard negative: same name and one generic attribute
            f = rng.choice((Field.CITY, Field.ROLE, Field.RELATION))
            new.cities = [(twin.cities[0][0], KNOWN_SINCE)] if f is Field.CITY else new.cities
            new.role = twin.role if f is Field.ROLE else new.role
            new.relation = twin.relation if f is Field.RELATION else new.relation
            shared = (f,)
        s.mention(new, Slice.SAME_NAME, truth=None, force=shared, note="new namesake")


def _nicknames(s: SimScope) -> None:
    rng = s.rng
    family = rng.choice(FAMILY_NAMES)
    formal = rng.sample(FORMAL_GIVEN_NAMES, 2)
    if rng.random() < 0.3:  # "Jo Vance" could be Joanna or Joseph
        formal = ["joanna", "joseph"]
    people = [s.person(g.capitalize(), family) for g in formal]
    for p in people:
        nicks = NICKNAME_GROUPS[p.given.lower()]
        if rng.random() < 0.3:  # the memory already knows what they go by
            p.aliases.append(f"{rng.choice(nicks).capitalize()} {family}")
        for _ in range(3):
            nick = rng.choice(nicks).capitalize()
            name = nick if rng.random() < 0.15 else f"{nick} {family}"
            s.mention(p, Slice.NICKNAMES, truth=p.entity_id, name=name, note="nickname")
    stranger = s.person(rng.choice(NICKNAME_GROUPS[formal[0]]).capitalize(), family, stored=False)
    s.mention(stranger, Slice.NICKNAMES, truth=None, note="new person, nickname-compatible")


def _typos(s: SimScope) -> None:
    rng = s.rng
    people = [s.person(rng.choice(GIVEN_NAMES), rng.choice(FAMILY_NAMES)) for _ in range(2)]
    for p in people:
        for _ in range(3):
            if rng.random() < 0.5:
                name = f"{_typo(rng, p.given)} {p.family}"
            else:
                name = f"{p.given} {_typo(rng, p.family)}"
            s.mention(p, Slice.TYPOS, truth=p.entity_id, name=name, note="typo")
    near_a, near_b = rng.choice(NEAR_NAMES)
    family = rng.choice(FAMILY_NAMES)
    known = s.person(near_a, family)
    s.mention(known, Slice.TYPOS, truth=known.entity_id)
    other = s.person(near_b, family, stored=False)
    s.mention(other, Slice.TYPOS, truth=None, note="near-identical name, new person")


def _shared_identifiers(s: SimScope) -> None:
    rng = s.rng
    family = rng.choice(FAMILY_NAMES)
    a = s.person(rng.choice(GIVEN_NAMES), family)
    phone = Identifier(kind=IdentifierKind.PHONE, value=f"+44 20 {rng.randrange(10**8):08d}")
    a.identifiers.append(phone)
    housemate = s.person(rng.choice([g for g in GIVEN_NAMES if g != a.given]), family, stored=False)
    housemate.cities = a.cities
    s.mention(
        housemate,
        Slice.SHARED_IDENTIFIERS,
        truth=None,
        identifier=phone,
        note="household phone, another person",
    )
    inbox = Identifier(kind=IdentifierKind.EMAIL, value=f"team@{rng.randrange(10**4)}.example")
    b = s.person(rng.choice(GIVEN_NAMES), rng.choice(FAMILY_NAMES))
    b.identifiers.append(inbox)
    colleague = s.person(rng.choice(GIVEN_NAMES), rng.choice(FAMILY_NAMES), stored=False)
    colleague.employer = b.employer
    s.mention(
        colleague,
        Slice.SHARED_IDENTIFIERS,
        truth=None,
        identifier=inbox,
        force=(Field.EMPLOYER,),
        note="team inbox, another person",
    )
    for p in (a, b):
        for ident in p.identifiers:
            name = s.name_form(p)
            s.mention(
                p,
                Slice.SHARED_IDENTIFIERS,
                truth=p.entity_id,
                name=name,
                identifier=ident,
                note=f"known {ident.kind.value}",
            )
        second = Identifier(kind=IdentifierKind.EMAIL, value=f"{p.given.lower()}@home.example")
        s.mention(
            p, Slice.SHARED_IDENTIFIERS, truth=p.entity_id, identifier=second, note="a second email"
        )
    rival = s.person(a.given, a.family, stored=False)
    rival.identifiers = [Identifier(kind=IdentifierKind.USER_ID, value="u-rival")]
    a.identifiers.append(Identifier(kind=IdentifierKind.USER_ID, value=f"u-{a.entity_id}"))
    s.mention(
        rival,
        Slice.SHARED_IDENTIFIERS,
        truth=None,
        identifier=rival.identifiers[0],
        note="same name, another account",
    )


def _movers(s: SimScope) -> None:
    rng = s.rng
    for _ in range(2):
        p = s.person(rng.choice(GIVEN_NAMES), rng.choice(FAMILY_NAMES))
        moved = MENTIONS_FROM - timedelta(days=rng.randrange(30, 400))
        p.cities.append((rng.choice([c for c in CITIES if c != p.cities[0][0]]), moved))
        heard = rng.random() < 0.5
        p.known_moves = 2 if heard else 1
        note = "moved; the memory knows" if heard else "moved; the memory has not heard"
        for _ in range(3):
            s.mention(
                p,
                Slice.MOVERS,
                truth=p.entity_id,
                force=(Field.CITY,),
                note=note,
                k=rng.choice((2, 3)),
            )
        before = KNOWN_SINCE + timedelta(days=rng.randrange(30, 300))
        s.mention(
            p,
            Slice.MOVERS,
            truth=p.entity_id,
            force=(Field.CITY,),
            at=before,
            note="mentioned before the move",
            k=2,
        )
        new = s.person(p.given, p.family, stored=False)
        new.cities = [(p.cities[-1][0], KNOWN_SINCE)]
        s.mention(
            new, Slice.MOVERS, truth=None, force=(Field.CITY,), note="namesake in the new city"
        )


SLICES: Final[tuple[tuple[Slice, Callable[[SimScope], None], int], ...]] = (
    (Slice.SAME_NAME, _same_name, 80),
    (Slice.NICKNAMES, _nicknames, 40),
    (Slice.TYPOS, _typos, 40),
    (Slice.SHARED_IDENTIFIERS, _shared_identifiers, 40),
    (Slice.MOVERS, _movers, 40),
)
