"""Blocking: which profiles a mention is compared with at all.

Comparing a mention with every profile is slow and, worse, invites spurious matches. A
:class:`BlockingIndex` maps *blocking keys* to profiles, and a mention is only compared with the
profiles that share a key with it. Every key is prefixed by the scope, so resolution can never
cross scopes (tenants): a profile in another scope shares no key with the mention.

Keys of a person name ``given family`` (each given name expands to its nickname groups, so "Bob"
and "Robert" share ``robert``):

* ``name:<given> <family>``: the normalised full name;
* ``given+family:<group>|<family>``: nickname-aware ("Bob Tables" finds "Robert Tables");
* ``initial+family:<g>|<family>``: a typo in the given name, or an initial ("J. Park");
* ``given+family-initial:<group>|<f>``: a typo in the family name ("Jo Prak");
* ``phonetic:<soundex given>|<soundex family>``: sound-alike spellings of both ("Jon Smyth");
* ``given:<group>``: for mentions that give only a first name ("Jo");
* ``given-only:<group>`` / ``family:<family>``: profiles known by one part of their name;
* ``<identifier kind>:<value>``: strong identifiers, whatever the name;
* ``born:<yyyymmdd>`` and ``address:<postcode>|<house number>``: person-record fields, so a
  record whose name was mangled, swapped or changed is still compared.

>>> from datetime import UTC, datetime
>>> index = BlockingIndex([EntityProfile(entity_id="p1", names=("Robert Tables",)),
...                        EntityProfile(entity_id="p2", names=("Robert Tables",), scope="other")])
>>> bob = Mention(mention_id="m1", name="Bob Tables", episode_id="e1",
...               at=datetime(2026, 1, 5, tzinfo=UTC))
>>> [(c.profile.entity_id, c.keys) for c in index.candidates(bob)]
[('p1', ('given+family-initial:robert|t', 'given+family:robert|tables'))]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.errors import ResolutionError
from kg_memory.domain.resolution.field import Field
from kg_memory.domain.resolution.mention import (
    IdentifierKind,
    Mention,
    birth_date_digits,
    normalize_identifier,
)
from kg_memory.domain.resolution.names import (
    PersonName,
    nickname_groups,
    normalize_text,
    parse_name,
    soundex,
)
from kg_memory.domain.resolution.profile import AttributeValue, EntityProfile

__all__ = ["BlockingIndex", "Candidate", "grown_profile_keys", "lookup_keys", "mention_keys",
           "profile_keys"]


def _full_name_keys(name: PersonName) -> Iterator[str]:
    given, family = name.given, name.family
    if given is not None and family is not None:
        yield f"name:{given} {family}"
        for group in sorted(nickname_groups(given)):
            yield f"given+family:{group}|{family}"
            yield f"given+family-initial:{group}|{family[0]}"
        yield f"initial+family:{given[0]}|{family}"
        yield f"phonetic:{soundex(given)}|{soundex(family)}"
        core = name.family_core
        if core is not None and core != family:
            # "Jan Hoek" finds "Jan van der Hoek", and the other way round.
            yield from _full_name_keys(PersonName(given=given, family=core))


def _record_keys(field: Field, value: str) -> Iterator[str]:
    """A record whose name was mistyped beyond the name keys, swapped or changed is still
    found by its date of birth (a full one: a year alone blocks half a city together)."""
    if field is Field.BIRTH_DATE:
        digits = birth_date_digits(value)
        if digits is not None and len(digits) == 8:
            yield f"born:{digits}"


def _address_key(postcode: str, number: str) -> str:
    return f"address:{normalize_text(postcode).replace(' ', '')}|{normalize_text(number)}"


def _address_keys(values: Sequence[AttributeValue]) -> set[str]:
    """``address:<postcode>|<number>`` for each postcode and house number among ``values`` that
    came together (from the same episode: a number from one address and a postcode from
    another name no place)."""
    numbers = {(a.episode_id, a.value) for a in values if a.attribute is Field.STREET_NUMBER}
    return {
        _address_key(code.value, number)
        for code in values if code.attribute is Field.POSTCODE
        for episode, number in numbers
        if episode == code.episode_id
    }


def _alias_keys(keys: set[str], alias: str) -> None:
    """Add the keys a profile is filed under for one of its names."""
    name = parse_name(alias)
    keys.update(_full_name_keys(name))
    if name.given is not None:
        groups = nickname_groups(name.given)
        keys.update(f"given:{g}" for g in groups)
        if name.family is None:
            keys.update(f"given-only:{g}" for g in groups)
    if name.family is not None:
        keys.add(f"family:{name.family}")


def profile_keys(profile: EntityProfile) -> frozenset[str]:
    """The keys a profile is filed under (without the scope prefix)."""
    keys: set[str] = set()
    for alias in profile.names:
        _alias_keys(keys, alias)
    keys.update(f"{i.kind.value}:{i.key}" for i in profile.identifiers)
    for value in profile.attributes:
        keys.update(_record_keys(value.attribute, value.value))
    keys.update(_address_keys(profile.attributes))
    return frozenset(keys)


def grown_profile_keys(before: frozenset[str], grown: EntityProfile, mention: Mention
                       ) -> frozenset[str]:
    """:func:`profile_keys` of ``grown``, the profile whose keys were ``before`` grown by
    ``mention`` (:func:`~kg_memory.domain.resolution.profile.grow_profile`), from what the
    mention added alone: growing only adds a name, identifiers and values of the mention's
    episode, so every other key is among ``before`` (``frozenset()`` for a new profile).

    The address keys are the one pairing across mentions: a postcode and a house number pair
    when they came from one episode, and a second mention of an episode pairs with the
    first's values. So they are taken from every value of the grown profile from the
    mention's episode, not from the mention's alone."""
    keys = set(before)
    _alias_keys(keys, mention.name)
    keys.update(f"{i.kind.value}:{i.key}" for i in mention.identifiers)
    episode = mention.episode_id
    ours = [a for a in grown.attributes if a.episode_id == episode]
    for value in ours:
        keys.update(_record_keys(value.attribute, value.value))
    keys.update(_address_keys(ours))
    return frozenset(keys)


def mention_keys(mention: Mention) -> frozenset[str]:
    """The keys a mention is looked up by (without the scope prefix)."""
    context = mention.context
    filed = tuple(f"{i.kind.value}:{i.key}" for i in mention.identifiers)
    return _mention_keys(mention.name, filed, context.birth_date, context.postcode,
                         context.street_number)


def lookup_keys(name: str, identifiers: Mapping[str, str], context: Mapping[str, str]
                ) -> frozenset[str]:
    """The keys of the mention an ingest line's ``resolve`` entry becomes (its ``name``,
    ``identifiers`` and flat ``context``), without building the mention: a batch planner reads
    every record's blocks ahead. The same keys as :func:`mention_keys` of that mention (an
    identifier of an unknown kind, or an entry the write path refuses, raises ``ValueError``)."""
    filed = tuple(f"{kind}:{normalize_identifier(IdentifierKind(kind), value)}"
                  for kind, value in sorted(identifiers.items()))

    def said(key: str) -> str | None:  # blank is unknown, as Context has it
        value = context.get(key)
        return value if value is not None and value.strip() else None

    return _mention_keys(name, filed, said("birth_date"), said("postcode"),
                         said("street_number"))


@lru_cache(maxsize=4096)
def _mention_keys(said: str, identifiers: tuple[str, ...], birth_date: str | None,
                  postcode: str | None, street_number: str | None) -> frozenset[str]:
    # Memoised on the only parts of a mention its keys depend on: the store path asks once to
    # fetch the blocks and the index again to find the candidates in them.
    name = parse_name(said)
    keys = set(_full_name_keys(name))
    if name.given is not None:
        groups = nickname_groups(name.given)
        if name.family is None:
            keys.update(f"given:{g}" for g in groups)
        else:
            # A profile known only as "Jo" may be the "Jo Park" of this mention.
            keys.update(f"given-only:{g}" for g in groups)
    elif name.family is not None:
        keys.add(f"family:{name.family}")
    keys.update(identifiers)
    if birth_date is not None:
        keys.update(_record_keys(Field.BIRTH_DATE, birth_date))
    if postcode and street_number:
        keys.add(_address_key(postcode, street_number))
    return frozenset(keys)


class Candidate(BaseModel):
    """A profile the blocking index proposes for a mention, with the keys it was found by."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    profile: EntityProfile
    keys: tuple[str, ...]


class BlockingIndex:
    """An immutable in-memory index of profiles by ``(scope, key)``.

    Build it once from the profiles (``BlockingIndex(profiles)``); :meth:`with_profiles` returns
    a new index rather than changing this one, so a decision can always be replayed against the
    index it was made with.
    """

    __slots__ = ("_by_key", "_profiles")

    def __init__(self, profiles: Iterable[EntityProfile] = ()) -> None:
        self._fill((p, None) for p in profiles)

    @classmethod
    def filed(cls, profiles: Iterable[tuple[EntityProfile, frozenset[str]]], *,
              only: frozenset[str] | None = None) -> BlockingIndex:
        """The index of ``profiles`` whose keys are known already (each with its
        :func:`profile_keys`): the store path computes a profile's keys once, when it files
        it, rather than again for every mention whose block it lands in.

        ``only``: index these keys alone (the store path's one mention's
        :func:`mention_keys`). A block's profiles carry thirty keys each and the mention looks
        up a dozen, so indexing the rest was most of building the index; the candidates of a
        mention whose keys are all in ``only`` are the same as the whole index's."""
        index = cls.__new__(cls)
        index._fill(profiles, only)
        return index

    def _fill(self, profiles: Iterable[tuple[EntityProfile, frozenset[str] | None]],
              only: frozenset[str] | None = None) -> None:
        by_id: dict[tuple[str, str], tuple[EntityProfile, frozenset[str] | None]] = {}
        for profile, keys in profiles:
            ident = (profile.scope, profile.entity_id)
            if ident in by_id:
                raise ResolutionError(
                    f"two profiles with id {profile.entity_id!r} in scope {profile.scope!r}"
                )
            by_id[ident] = (profile, keys)
        by_key: dict[tuple[str, str], list[str]] = {}
        for (scope, entity_id), (profile, keys) in sorted(by_id.items(), key=lambda i: i[0]):
            known = profile_keys(profile) if keys is None else keys
            for key in known if only is None else known & only:
                by_key.setdefault((scope, key), []).append(entity_id)
        # Plain dicts, private: this class never changes them after construction (replayable
        # decisions rely on that); UpdatableIndex is the subclass that does, in place.
        self._profiles: dict[tuple[str, str], EntityProfile] = {
            ident: profile for ident, (profile, _) in by_id.items()}
        self._by_key: dict[tuple[str, str], tuple[str, ...]] = {
            k: tuple(v) for k, v in by_key.items()
        }

    def __len__(self) -> int:
        return len(self._profiles)

    def profiles(self, scope: str | None = None) -> tuple[EntityProfile, ...]:
        """Every indexed profile (of one scope, if given), ordered by scope and id."""
        return tuple(
            p for (s, _), p in sorted(self._profiles.items()) if scope is None or s == scope
        )

    def profile(self, scope: str, entity_id: str) -> EntityProfile | None:
        return self._profiles.get((scope, entity_id))

    def with_profiles(self, profiles: Iterable[EntityProfile]) -> BlockingIndex:
        """A new index with ``profiles`` added, replacing any with the same scope and id."""
        merged = dict(self._profiles)
        merged.update(((p.scope, p.entity_id), p) for p in profiles)
        return BlockingIndex(merged.values())

    def candidates(self, mention: Mention, *, exclude: Iterable[str] = ()) -> tuple[Candidate, ...]:
        """The profiles in the mention's scope sharing at least one key with it, by entity id.

        ``exclude`` drops entity ids (a REVIEW's own provisional entity when re-scoring).
        Only the mention's keys are looked up: the cost is the size of its blocks, never the
        size of the store.
        """
        skip = frozenset(exclude)
        found: dict[str, set[str]] = {}
        for key in mention_keys(mention):
            for entity_id in self._by_key.get((mention.scope, key), ()):
                if entity_id not in skip:
                    found.setdefault(entity_id, set()).add(key)
        return tuple(
            Candidate(profile=self._profiles[(mention.scope, entity_id)], keys=tuple(sorted(keys)))
            for entity_id, keys in sorted(found.items())
        )
