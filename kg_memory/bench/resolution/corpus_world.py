"""The simulated world the corpus is drawn from: people as they really are, the scopes (users)
that know them, and how a conversation mentions them.

A :class:`SimPerson` is ground truth; :meth:`SimPerson.profile` is what the memory knows of it
(which can lag: a move the memory has not heard of). :meth:`SimScope.mention` is the mention
model, whose assumptions are the constants below, stated so that the benchmark's numbers can be
read against them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Final

from kg_memory.bench.resolution.corpus_pools import CITIES, EMPLOYERS, PROJECTS, RELATIONS, ROLES
from kg_memory.bench.resolution.labelled import LabelledMention, Slice
from kg_memory.domain.interval import Interval
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.mention import Context, Identifier, IdentifierKind, Mention
from kg_memory.domain.resolution.names import compare_family, compare_given, parse_name
from kg_memory.domain.resolution.profile import AttributeValue, EntityProfile

__all__ = ["KNOWN_SINCE", "MENTIONS_FROM", "SimPerson", "SimScope"]

#: When the memory first learnt about everyone.
KNOWN_SINCE: Final = datetime(2023, 1, 1, tzinfo=UTC)
#: Mentions happen during the year from here (except deliberately older ones).
MENTIONS_FROM: Final = datetime(2025, 1, 1, tzinfo=UTC)

#: How many context attributes a mention carries: none, one, two or three (relative weights).
CONTEXT_SIZE: Final = (2, 22, 44, 32)
#: Chance that one attribute is news the memory lacks (a new project, a stale city).
DRIFT: Final = 0.08
#: Chance that a mention carries one of the person's known identifiers.
WITH_IDENTIFIER: Final = 0.18
#: Chance that a mention comes with one or two entities the person is known to appear with.
WITH_CO_MENTIONS: Final = 0.45
#: Chance that a speaker says which person is meant when the name used could mean someone else
#: they know (when introducing a newcomer with such a name, the speaker always does).
CUE: Final = 0.85


def _could_confuse(given: str, family: str, other: SimPerson) -> bool:
    return other.family == family and (
        compare_given(other.given.lower(), given.lower(), names_apart=False)
        is not Level.DIFFERENT
    )


@dataclass
class SimPerson:
    """Ground truth about one person; the profile is what the memory knows of it."""

    entity_id: str
    given: str
    family: str
    employer: str
    role: str
    relation: str
    projects: list[str]
    cities: list[tuple[str, datetime]]  # (city, moved in), in order
    known_moves: int  # how many of the cities the memory has heard of
    identifiers: list[Identifier] = field(default_factory=list)
    co_mentions: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)

    def city_at(self, at: datetime) -> str:
        return [c for c, since in self.cities if since <= at][-1]

    def profile(self, scope: str) -> EntityProfile:
        source = f"{self.entity_id}/ep1"
        since = Interval(start=KNOWN_SINCE)
        known = self.cities[: self.known_moves]
        cities = [
            AttributeValue(
                attribute=Field.CITY,
                value=c,
                episode_id=source,
                valid=Interval(start=s, end=known[i + 1][1] if i + 1 < len(known) else None),
            )
            for i, (c, s) in enumerate(known)
        ]
        attributes = [
            AttributeValue(
                attribute=Field.EMPLOYER, value=self.employer, valid=since, episode_id=source
            ),
            AttributeValue(attribute=Field.ROLE, value=self.role, valid=since, episode_id=source),
            AttributeValue(attribute=Field.RELATION, value=self.relation, episode_id=source),
            *(
                AttributeValue(attribute=Field.PROJECT, value=p, episode_id=source)
                for p in self.projects
            ),
            *cities,
        ]
        return EntityProfile(
            entity_id=self.entity_id,
            scope=scope,
            names=(self.full_name, *self.aliases),
            identifiers=tuple(self.identifiers),
            attributes=tuple(attributes),
            co_mentions=tuple(self.co_mentions),
            episode_ids=(source, f"{self.entity_id}/ep2"),
        )

    @property
    def full_name(self) -> str:
        return f"{self.given} {self.family}"


class SimScope:
    """One scope under construction: a seeded random source and id counters."""

    def __init__(self, seed: int, name: str) -> None:
        self.name = name
        self.rng = random.Random(f"{seed}/{name}")
        self.people: list[SimPerson] = []
        self.mentions: list[LabelledMention] = []
        self._next = 0

    def next_id(self, prefix: str) -> str:
        self._next += 1
        return f"{self.name}/{prefix}{self._next}"

    def ambiguous(self, spoken: str, p: SimPerson) -> bool:
        """Whether ``spoken`` (the name as said) could also mean someone else in memory."""
        said = parse_name(spoken)
        return any(
            q is not p
            and compare_given(said.given, q.given.lower(), names_apart=False) is not Level.DIFFERENT
            and compare_family(said.family, q.family.lower()) is not Level.DIFFERENT
            for q in self.people
        )

    def person(self, given: str, family: str, *, stored: bool = True) -> SimPerson:
        """A new person. People who could be taken for each other (the same family name and a
        compatible given name: the same, a nickname, an initial) never share an employer or a
        project: those are what people (and the resolver) tell namesakes apart by, and in a
        world larger than these pools two John Smiths rarely share either. Cities, roles and
        relations may coincide."""
        rng = self.rng
        taken = [q for q in self.people if _could_confuse(given, family, q)]
        employers = {q.employer for q in taken}
        projects = {x for q in taken for x in q.projects}
        p = SimPerson(
            entity_id=self.next_id("p"),
            given=given,
            family=family,
            employer=rng.choice([e for e in EMPLOYERS if e not in employers]),
            role=rng.choice(ROLES),
            relation=rng.choice(RELATIONS),
            projects=rng.sample([x for x in PROJECTS if x not in projects], rng.choice((1, 1, 2))),
            cities=[(rng.choice(CITIES), KNOWN_SINCE)],
            known_moves=1,
        )
        if rng.random() < 0.5:
            local = f"{given}.{family}".lower()
            domain = p.employer.lower().replace(" ", "")
            p.identifiers.append(
                Identifier(
                    kind=IdentifierKind.EMAIL, value=f"{local}.{self._next}@{domain}.example"
                )
            )
        if rng.random() < 0.3:
            p.identifiers.append(
                Identifier(kind=IdentifierKind.PHONE, value=f"+44 7{rng.randrange(10**9):09d}")
            )
        if rng.random() < 0.3:
            p.identifiers.append(
                Identifier(kind=IdentifierKind.USER_ID, value=f"u{rng.randrange(10**6):06d}")
            )
        p.co_mentions = [f"project/{x.lower()}" for x in p.projects] + [
            self.next_id("e") for _ in range(rng.choice((1, 2, 3)))
        ]
        if stored:
            self.people.append(p)
        return p

    def mention(
        self,
        p: SimPerson,
        slice_: Slice,
        *,
        truth: str | None,
        name: str | None = None,
        note: str = "",
        force: tuple[Field, ...] = (),
        at: datetime | None = None,
        identifier: Identifier | None = None,
        k: int | None = None,
    ) -> None:
        """Mention ``p`` with what a conversation would reveal about them at ``at``."""
        rng = self.rng
        at = at or MENTIONS_FROM + timedelta(days=rng.randrange(365), hours=rng.randrange(24))
        true_values = {
            Field.EMPLOYER: p.employer,
            Field.ROLE: p.role,
            Field.CITY: p.city_at(at),
            Field.RELATION: p.relation,
            Field.PROJECT: rng.choice(p.projects),
        }
        if k is None:
            k = rng.choices((0, 1, 2, 3), weights=CONTEXT_SIZE)[0]
        # Speakers say whom they mean when the name they use could mean someone else they know:
        # always when introducing someone new ("another John Smith, from Acme"), usually when
        # meaning a known one.
        spoken = name or p.full_name
        known = any(q is p for q in self.people)
        cue = self.ambiguous(spoken, p) and (not known or rng.random() < CUE)
        if cue and not {Field.EMPLOYER, Field.PROJECT} & set(force):
            # Speakers tell namesakes apart: "John from Acme", "the Cedar John".
            force = (*force, rng.choice((Field.EMPLOYER, Field.PROJECT)))
            k = max(k, len(force))
        optional = [f for f in true_values if f not in force]
        chosen = [*force, *rng.sample(optional, max(0, k - len(force)))]
        context = {f: true_values[f] for f in chosen}
        free = [f for f in chosen if f not in force]
        if free and rng.random() < DRIFT:  # stale memory or news: a value the memory lacks
            drift = rng.choice(free)
            pool = {
                Field.EMPLOYER: EMPLOYERS,
                Field.ROLE: ROLES,
                Field.CITY: CITIES,
                Field.RELATION: RELATIONS,
                Field.PROJECT: PROJECTS,
            }[drift]
            context[drift] = rng.choice([v for v in pool if v != context[drift]])
        ids = (identifier,) if identifier else ()
        if not ids and p.identifiers and rng.random() < WITH_IDENTIFIER:
            ids = (rng.choice(p.identifiers),)
        with_co = rng.random() < WITH_CO_MENTIONS
        co = tuple(rng.sample(p.co_mentions, rng.choice((1, 2)))) if with_co else ()
        self.mentions.append(
            LabelledMention(
                mention=Mention(
                    mention_id=self.next_id("m"),
                    name=name or p.full_name,
                    scope=self.name,
                    identifiers=ids,
                    context=Context(**{f.value: v for f, v in context.items()}),
                    co_mentions=co,
                    episode_id=self.next_id("ep"),
                    at=at,
                ),
                truth=truth,
                slice=slice_,
                note=note,
            )
        )

    def name_form(self, p: SimPerson) -> str:
        """How people refer to someone: usually the full name, sometimes less."""
        form = self.rng.random()
        if form < 0.12:
            return p.given
        if form < 0.2:
            return f"{p.given[0]}. {p.family}"
        return p.full_name
