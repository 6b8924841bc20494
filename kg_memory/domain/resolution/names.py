"""Person names: normalisation, parsing into given and family name, nicknames, a phonetic key,
edit distance, and how common a name is.

Given and family names are compared *separately* (:func:`compare_given`, :func:`compare_family`),
because "Jo Park" vs "Jo Lee" shares a given name and nothing else, and a single string
similarity would call them 60% alike.

>>> parse_name("Dr. Joanna  Park-Lee").model_dump()
{'given': 'joanna', 'family': 'park-lee'}
>>> compare_given("jo", "joanna"), compare_given("jo", "bob"), compare_given("paula", "paulo")
(<Level.CLOSE: 'close'>, <Level.DIFFERENT: 'different'>, <Level.DIFFERENT: 'different'>)
>>> soundex("Smyth") == soundex("Smith")
True
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

from pydantic import BaseModel, ConfigDict
from rapidfuzz.distance import OSA

from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.name_tables import (
    FAMILY_NAME_FREQUENCY,
    GIVEN_NAME_FREQUENCY,
    NICKNAME_GROUPS,
    given_name_facts,
)

__all__ = [
    "PARTICLES",
    "PersonName",
    "compare_family",
    "compare_given",
    "edit_distance",
    "format_name",
    "initial_of",
    "name_commonness",
    "nickname_groups",
    "normalize_text",
    "parse_name",
    "soundex",
]

_PER = 100_000  # the frequency tables count people per 100,000
_DEFAULT_GIVEN = 30  # a given name missing from the table: uncommon but not unique
_DEFAULT_FAMILY = 10
_COMMON_LOG10 = -4.0  # one person in 10,000 shares the full name: fully common
_RARE_LOG10 = -7.0  # one in 10,000,000: effectively unique

_VOWELS = frozenset("aeiouy")
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame"})
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "phd", "md"})
#: Words that belong to the family name they precede: "van der Hoek", "de la Cruz", "bin Ismail".
PARTICLES = frozenset(
    {
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "dos",
        "das",
        "du",
        "la",
        "le",
        "ten",
        "ter",
        "bin",
        "binti",
        "bint",
        "ibn",
        "al",
        "el",
        "st",
        "mac",
        "ap",
        "ben",
    }
)
_NOT_NAME = re.compile(r"[^a-z0-9\- ]+")


@lru_cache(maxsize=65536)
def normalize_text(text: str) -> str:
    """Fold case and accents, drop punctuation except inner hyphens, squeeze spaces.

    Accents are folded because people type "Zoe" for "Zoë"; apostrophes vanish so that
    "O'Brien" and "OBrien" meet.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_only = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    cleaned = _NOT_NAME.sub(" ", ascii_only.replace("'", "").replace("\u2019", ""))
    tokens = (t.strip("-") for t in cleaned.split())
    return " ".join(t for t in tokens if t)


class PersonName(BaseModel):
    """A parsed person name. Either part may be unknown ("Jo" has no family name)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    given: str | None = None
    family: str | None = None

    @property
    def is_empty(self) -> bool:
        return self.given is None and self.family is None

    @property
    def is_partial(self) -> bool:
        """Only one part is known: a given-only ("Jo") or family-only ("Dr Okafor") mention."""
        return (self.given is None) != (self.family is None)

    @property
    def family_core(self) -> str | None:
        """The family name without its particles: ``hoek`` for ``van der hoek``."""
        if self.family is None:
            return None
        words = self.family.split()
        while len(words) > 1 and words[0] in PARTICLES:
            words.pop(0)
        return " ".join(words)


def format_name(given: str | None, family: str | None) -> str:
    """A display name that :func:`parse_name` reads back into the same parts, including a
    family-only record ("Waller,") that would otherwise be read as a given name.

    >>> format_name("Lachlan", "Berry"), format_name(None, "Waller"), format_name("Jo", None)
    ('Lachlan Berry', 'Waller,', 'Jo')
    >>> parse_name(format_name(None, "van der Hoek")).model_dump()
    {'given': None, 'family': 'van der hoek'}
    """
    given = given.strip() if given and given.strip() else None
    family = family.strip() if family and family.strip() else None
    if family is None:
        return given or ""
    return f"{family}," if given is None else f"{given} {family}"


@lru_cache(maxsize=65536)
def parse_name(text: str) -> PersonName:
    """Split a display name into given and family name.

    "Family, Given" is understood, and "Family," alone is a family-only name; titles and
    suffixes are dropped; middle names are ignored (they are too often omitted to count against
    a match). Particles stay with the family name they precede ("Jan van der Hoek" has family
    name "van der hoek"). A single token is a given name, because that is how people are
    mentioned in conversation ("Jo said..."), unless a title says otherwise ("Dr Okafor").
    Initials are kept as one-letter given names ("J. Park"), which compare CLOSE to any given
    name with that initial.
    """
    if "," in text:
        family_part, _, given_part = text.partition(",")
        family_words = [t for t in normalize_text(family_part).split() if t not in _TITLES]
        given_words = [t for t in normalize_text(given_part).split() if t not in _TITLES]
        if family_words and not given_words:
            return PersonName(family=" ".join(family_words))
        text = f"{given_part} {family_part}"
    words = normalize_text(text).split()
    tokens = [t for t in words if t not in _TITLES]
    while len(tokens) > 1 and tokens[-1] in _SUFFIXES:
        tokens.pop()
    if not tokens:
        return PersonName()
    if len(tokens) == 1:
        # "Dr Okafor" names a family; a bare "Jo" is a given name.
        if len(words) > len(tokens):
            return PersonName(family=tokens[0])
        return PersonName(given=tokens[0])
    start = len(tokens) - 1
    while start > 1 and tokens[start - 1] in PARTICLES:
        start -= 1
    family = " ".join(tokens[start:])
    if start == 1 and tokens[0] in PARTICLES and len(words) > len(tokens):
        # "Dr van Dijk": a title, then a family name that starts with a particle.
        return PersonName(family=" ".join(tokens))
    return PersonName(given=tokens[0], family=family)


def _build_groups() -> dict[str, frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for formal, variants in NICKNAME_GROUPS.items():
        for name in (formal, *variants):
            groups.setdefault(name, set()).add(formal)
    return {name: frozenset(g) for name, g in groups.items()}


_GROUPS = _build_groups()


def nickname_groups(given: str) -> frozenset[str]:
    """The formal names ``given`` can stand for; a name outside the table stands for itself.

    >>> sorted(nickname_groups("jo"))
    ['joanna', 'joseph', 'josephine']
    """
    return _GROUPS.get(given, frozenset((given,)))


_SOUNDEX_CODES = {
    **dict.fromkeys("bfpv", "1"),
    **dict.fromkeys("cgjkqsxz", "2"),
    **dict.fromkeys("dt", "3"),
    "l": "4",
    **dict.fromkeys("mn", "5"),
    "r": "6",
}


def soundex(word: str) -> str:
    """American Soundex: the first letter and three digits for the consonant sounds that follow.

    A phonetic key for blocking, so that "Smyth" finds "Smith" and "Jonson" finds "Johnson".
    It is never used as evidence on its own: "Jim" and "Jon" share a code.
    """
    letters = [c for c in normalize_text(word) if "a" <= c <= "z"]
    if not letters:
        return ""
    first = letters[0]
    digits: list[str] = []
    previous = _SOUNDEX_CODES.get(first, "")
    for c in letters[1:]:
        code = _SOUNDEX_CODES.get(c, "")
        if code and code != previous:
            digits.append(code)
        # "h" and "w" do not separate equal codes; vowels do.
        if c not in "hw":
            previous = code
    return (first.upper() + "".join(digits) + "000")[:4]


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent
    transpositions each cost one ("Jonh" is one edit from "John")."""
    # RapidFuzz's OSA, the same integer as the textbook table (a property test holds them
    # equal): the table in Python ran for every name, date and postcode pair compared, and
    # cost more than a memo of it saved.
    return OSA.distance(a, b)


def _typo(a: str, b: str) -> bool:
    """A small edit distance, scaled to length: short names differ by one letter all the time
    ("Jon", "Jan", "Jen" are different people), so they never count as typos."""
    shortest = min(len(a), len(b))
    if shortest < 4 or max(len(a), len(b)) > 128:  # fuzzy matching is quadratic: bounded
        return False
    allowed = 2 if shortest >= 8 else 1
    # No alignment is shorter than the difference in length: skip the quadratic table.
    return abs(len(a) - len(b)) <= allowed and edit_distance(a, b) <= allowed


def _gendered_pair(a: str, b: str) -> bool:
    """Names that differ only in a final vowel are usually two names, not a typo:
    Paula/Paulo, Daniel/Daniela, Louis/Louise, Julian/Juliana."""
    short, long_ = sorted((a, b), key=len)
    if len(long_) == len(short) + 1:
        return long_.startswith(short) and long_[-1] in _VOWELS
    return len(a) == len(b) and a[:-1] == b[:-1] and a[-1] in _VOWELS and b[-1] in _VOWELS


def _two_names(a: str, b: str) -> bool:
    """Both spellings are registered given names: two names, not one name mistyped. Under
    eight letters, where a typo is one edit, always: the short pairs are other names ("mary",
    "mark"). From eight letters on, two edits apart, many pairs are spellings of one name
    ("jonathan", "johnathan"), so the list's other columns decide: two names when they belong
    to different sexes ("christina", "christian"; "alexander", "alexandra") or do not sound
    alike ("angelica", "angelina")."""
    first, second = given_name_facts(a), given_name_facts(b)
    if first is None or second is None:
        return False
    if min(len(a), len(b)) < 8:
        return True
    return {first.sex, second.sex} == {"f", "m"} or first.sound != second.sound


def initial_of(a: str, b: str) -> bool:
    return (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b))


@lru_cache(maxsize=65536)
def compare_given(a: str | None, b: str | None, *, names_apart: bool = True) -> Level:
    """Given names: exact, close (nickname, initial or typo), different, or missing.

    A final-vowel difference is not a typo: "Paula" and "Paulo" are different names. Nor is
    a difference between two names people are registered under ("Mary" and "Mark", "John" and
    "Joan"): one letter apart, yet a sister and a brother, which is what a twin looks like
    (issue 29). A typo of a name is rarely a name itself, so real typos stay close.
    ``names_apart=False`` reads such a pair as a typo anyway: whether a listener *could* take
    one for the other (the generated corpus's test), not whether they are one name.
    """
    if a is None or b is None:
        return Level.MISSING
    if a == b:
        return Level.EXACT
    if initial_of(a, b) or nickname_groups(a) & nickname_groups(b):
        return Level.CLOSE
    if _typo(a, b) and not _gendered_pair(a, b) and not (names_apart and _two_names(a, b)):
        return Level.CLOSE
    return Level.DIFFERENT


@lru_cache(maxsize=65536)
def compare_family(a: str | None, b: str | None) -> Level:
    """Family names: exact, close (typo, initial, or one half of a double-barrelled name),
    different, or missing."""
    if a is None or b is None:
        return Level.MISSING
    if a == b:
        return Level.EXACT
    if initial_of(a, b) or _typo(a, b) or a in b.split("-") or b in a.split("-"):
        return Level.CLOSE
    # "van der Hoek" and "Hoek", "de la Cruz" and "Cruz": the same family, particles dropped.
    core_a, core_b = PersonName(family=a).family_core, PersonName(family=b).family_core
    if core_a == core_b or (core_a and core_b and _typo(core_a, core_b)):
        return Level.CLOSE
    return Level.DIFFERENT


def name_commonness(name: PersonName) -> float:
    """How common a full name is, from 0 (rare) to 1 (as common as "John Smith").

    The share of people carrying the name is estimated as the product of the given- and
    family-name shares (names absent from the tables get a modest default), then placed on a log
    scale between one in ten million (0) and one in ten thousand (1). A name without a family
    name is as unspecific as a given name can be, so "Jo" alone is fully common.

    >>> name_commonness(parse_name("John Smith")), name_commonness(parse_name("Ottoline Vance"))
    (1.0, 0.0)
    """
    if name.given is None and name.family is None:
        return 1.0
    given = GIVEN_NAME_FREQUENCY.get(name.given or "", _DEFAULT_GIVEN) / _PER
    if name.family is None:
        return 1.0
    family = FAMILY_NAME_FREQUENCY.get(name.family, _DEFAULT_FAMILY) / _PER
    share = given * family if name.given is not None else family
    scaled = (math.log10(share) - _RARE_LOG10) / (_COMMON_LOG10 - _RARE_LOG10)
    return min(1.0, max(0.0, scaled))
