"""The finer kinds of name agreement the name weights are learned over.

:func:`~kg_memory.domain.resolution.names.compare_given` and ``compare_family`` give a name part
a :class:`~kg_memory.domain.resolution.field.Level`, and the merge rules read only that. The
*weight* of a name part reads its kind (:data:`NAME_KINDS`): an initial says less than an exact
name, a name one typo off more than a different name, and a wholly replaced given name
(FEBRL's "sam glass" for "jayden glass") is not the same evidence as a near one ("brinaa" for
"brianna"). Each kind has its own m/u, learned by EM like any field level
(:mod:`kg_memory.bench.resolution.training`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from kg_memory.domain.resolution.field import Level
from kg_memory.domain.resolution.names import edit_distance, initial_of, nickname_groups
from kg_memory.domain.resolution.similarity import MAX_FUZZY_LENGTH, jaro_winkler_at_least

__all__ = ["NAME_KINDS", "SWAPPED", "name_kind"]

SWAPPED: Final = "swapped"

#: Each kind and the level it is a finer reading of.
NAME_KINDS: Final[Mapping[str, Level]] = MappingProxyType(
    {
        "exact": Level.EXACT,
        "initial": Level.CLOSE,  # "j" for "jane"
        "nickname": Level.CLOSE,  # "bob" for "robert"
        "typo": Level.CLOSE,  # within a length-scaled edit distance, or a particle dropped
        SWAPPED: Level.CLOSE,  # given and family name in each other's place
        "near": Level.DIFFERENT,  # too far for a typo: Jaro-Winkler 0.85 or two edits
        "replaced": Level.DIFFERENT,  # another name altogether
    }
)

#: Jaro-Winkler similarity from which a DIFFERENT name part is "near" rather than "replaced".
NEAR_JARO_WINKLER: Final = 0.85


def name_kind(a: str | None, b: str | None, level: Level, *, given: bool) -> str | None:
    """The kind of ``level`` that name parts ``a`` and ``b`` came out at (``None``: MISSING).

    >>> name_kind("bob", "robert", Level.CLOSE, given=True)
    'nickname'
    >>> name_kind("sam", "jayden", Level.DIFFERENT, given=True)
    'replaced'
    """
    if a is None or b is None or level is Level.MISSING:
        return None
    if level is Level.EXACT:
        return "exact"
    if level is Level.CLOSE:
        if initial_of(a, b):
            return "initial"
        if given and nickname_groups(a) & nickname_groups(b):
            return "nickname"
        return "typo"
    if max(len(a), len(b)) <= MAX_FUZZY_LENGTH and (
        jaro_winkler_at_least(a, b, NEAR_JARO_WINKLER) or edit_distance(a, b) <= 2
    ):
        return "near"
    return "replaced"
