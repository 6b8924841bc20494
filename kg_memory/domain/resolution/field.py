"""The vocabulary of comparison: which fields a mention and a profile are compared on, and the
four levels a comparison can come out at.

Every field compares to exactly one :class:`Level`. A level is *evidence*, not a verdict: its
weight comes from the config's m/u parameters (:mod:`kg_memory.domain.resolution.config`), and
``MISSING`` always weighs zero, because "we don't know her employer" says nothing either way.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

__all__ = [
    "ATTRIBUTE_FIELDS",
    "CONTEXT_FIELDS",
    "CORROBORATING_FIELDS",
    "DISTINGUISHING_FIELDS",
    "IDENTIFIER_FIELDS",
    "RECORD_FIELDS",
    "Field",
    "Level",
]


class Level(StrEnum):
    """How well one field agrees between a mention and a candidate profile."""

    EXACT = "exact"  # the same value (after normalisation)
    CLOSE = "close"  # compatible but not identical: a nickname, a typo, a former value
    DIFFERENT = "different"  # both sides have a value and they disagree
    MISSING = "missing"  # one side has no value: no evidence either way


class Field(StrEnum):
    """A comparison field. Names, identifiers and context attributes are compared separately so
    that a shared surname cannot masquerade as a shared employer."""

    GIVEN_NAME = "given_name"
    FAMILY_NAME = "family_name"
    USER_ID = "user_id"
    EMAIL = "email"
    PHONE = "phone"
    HANDLE = "handle"
    ENTITY_TYPE = "entity_type"
    EMPLOYER = "employer"
    ROLE = "role"
    CITY = "city"
    RELATION = "relation"
    PROJECT = "project"
    BIRTH_DATE = "birth_date"
    STREET_NUMBER = "street_number"
    STREET = "street"
    LOCALITY = "locality"
    POSTCODE = "postcode"
    STATE = "state"
    NATIONAL_ID = "national_id"
    CO_MENTIONS = "co_mentions"
    TEMPORAL = "temporal"


#: Strong identifiers, in the order they are compared.
IDENTIFIER_FIELDS: Final = (
    Field.USER_ID,
    Field.NATIONAL_ID,
    Field.EMAIL,
    Field.PHONE,
    Field.HANDLE,
)

#: Context attributes, in the order they are compared.
ATTRIBUTE_FIELDS: Final = (
    Field.EMPLOYER,
    Field.ROLE,
    Field.CITY,
    Field.RELATION,
    Field.PROJECT,
)

#: The fields of a person record (as registries and CRMs keep them), compared by
#: :mod:`~kg_memory.domain.resolution.record_fields`. A profile may hold several values of each
#: (people move); the best-agreeing one counts.
RECORD_FIELDS: Final = (
    Field.BIRTH_DATE,
    Field.STREET_NUMBER,
    Field.STREET,
    Field.LOCALITY,
    Field.POSTCODE,
    Field.STATE,
)

#: Every field a mention's context can carry, and a profile can hold values of.
CONTEXT_FIELDS: Final = (*ATTRIBUTE_FIELDS, *RECORD_FIELDS)

#: Fields whose agreement counts as "something other than the name agrees", which a MERGE
#: requires. The entity type is not one (every person is a person) and neither is the temporal
#: summary (it only re-reads the attributes).
CORROBORATING_FIELDS: Final = frozenset(
    (*IDENTIFIER_FIELDS, *ATTRIBUTE_FIELDS, *RECORD_FIELDS, Field.CO_MENTIONS)
)

#: Fields people use to tell namesakes apart ("John from Acme", "the Cedar John"): identifiers,
#: employer, project, co-mentioned entities, a date of birth and a street. Unlike a city, role
#: or relation (or a postcode, a state), which many people share, a contradiction here is only
#: outweighed by agreement on another of these.
DISTINGUISHING_FIELDS: Final = frozenset(
    (
        *IDENTIFIER_FIELDS,
        Field.EMPLOYER,
        Field.PROJECT,
        Field.CO_MENTIONS,
        Field.BIRTH_DATE,
        Field.STREET,
    )
)
