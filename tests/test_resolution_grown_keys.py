"""A grown profile's keys from its stored keys and the mention's: the same as from all of it.

The store path files a grown profile under :func:`grown_profile_keys` (the keys it had, plus
what the mention added) instead of :func:`profile_keys` of the whole profile. The one key that
pairs values across mentions is the address (a postcode and a house number of one episode):
a second mention of an episode pairs with the first's values, which these tests make common.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory.domain.interval import Interval
from kg_memory.domain.resolution.blocking import grown_profile_keys, profile_keys
from kg_memory.domain.resolution.field import Field
from kg_memory.domain.resolution.mention import Context, Identifier, IdentifierKind, Mention
from kg_memory.domain.resolution.profile import AttributeValue, EntityProfile, grow_profile

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)

_NAMES = st.sampled_from(["Robert Tables", "Bob Tables", "Jo", "Park", "Jan van der Hoek",
                          "Joanna Park", "J. Park", "Ingrid Lindqvist", "Zoë Ng", ""])
_EPISODES = st.sampled_from(["e1", "e2", "e3"])
_CONTEXT = st.builds(
    Context,
    postcode=st.none() | st.sampled_from(["2600", "2 600", "3000"]),
    street_number=st.none() | st.sampled_from(["12", "12a", "7"]),
    birth_date=st.none() | st.sampled_from(["1981-02-03", "19810203", "1981", "1990-12-31"]),
    street=st.none() | st.sampled_from(["main st", "high st"]),
)
_IDENTIFIERS = st.lists(st.builds(
    Identifier, kind=st.sampled_from(list(IdentifierKind)),
    value=st.sampled_from(["1234", "12 34", "jo@x.org", "JO@X.ORG"])), max_size=2)
_MENTIONS = st.builds(
    lambda name, episode, context, identifiers, step: Mention(
        mention_id=f"m{step}", name=name, episode_id=episode, context=context,
        identifiers=tuple(identifiers), at=AT + timedelta(days=step), scope="s"),
    _NAMES, _EPISODES, _CONTEXT, _IDENTIFIERS, st.integers(0, 50))
#: Values a profile built elsewhere may hold (an unknown episode pairs only with its kind).
_STORED = st.lists(st.builds(
    AttributeValue,
    attribute=st.sampled_from([Field.POSTCODE, Field.STREET_NUMBER, Field.BIRTH_DATE]),
    value=st.sampled_from(["2600", "12", "1981-02-03"]),
    valid=st.none() | st.just(Interval(start=AT)),
    episode_id=st.none() | _EPISODES), max_size=4)


@settings(max_examples=300, deadline=None)
@given(start=st.none() | st.tuples(_NAMES.filter(bool), _STORED),
       mentions=st.lists(_MENTIONS, min_size=1, max_size=6))
def test_grown_keys_are_the_whole_profiles_keys(
    start: tuple[str, list[AttributeValue]] | None, mentions: list[Mention],
) -> None:
    profile = (None if start is None else
               EntityProfile(entity_id="p", scope="s", names=(start[0],),
                             attributes=tuple(start[1])))
    keys = frozenset[str]() if profile is None else profile_keys(profile)
    for mention in mentions:
        profile = grow_profile(profile, "p", mention)
        keys = grown_profile_keys(keys, profile, mention)
        assert keys == profile_keys(profile)


def test_a_second_mention_of_an_episode_pairs_with_the_firsts_address() -> None:
    first = Mention(mention_id="m1", name="Jo Park", episode_id="e1", at=AT, scope="s",
                    context=Context(postcode="2600"))
    second = Mention(mention_id="m2", name="Jo Park", episode_id="e1", at=AT, scope="s",
                     context=Context(street_number="12"))
    grown = grow_profile(None, "p", first)
    keys = grown_profile_keys(frozenset(), grown, first)
    assert not any(k.startswith("address:") for k in keys)
    grown = grow_profile(grown, "p", second)
    keys = grown_profile_keys(keys, grown, second)
    assert "address:2600|12" in keys
    assert keys == profile_keys(grown)
