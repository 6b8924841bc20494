"""Residual copies: forgotten text that no lineage edge leads to.

A forget plan follows lineage, so it finds everything *derived* from the forgotten input. A copy
that nothing links back stays behind: the user's own deletion request quoting the content ("The
log drain endpoint is stream.example/aurora. Please delete that from your memory."), another
episode pasting the same sentence, an audit row, a profile. After planning, the service searches
the retained text of the same scope for each erased value and each sentence of erased content,
exactly and case/whitespace-normalised, and redacts the spans it finds, keeping the rest of the
text (and so whatever else that episode supports).

Short needles would redact common words everywhere ("yes", "veg"): a value counts from
:data:`MIN_VALUE_CHARS` characters, a sentence of content from :data:`MIN_SPAN_CHARS`.

>>> text = "The log drain endpoint is  STREAM.example/aurora. Please delete that."
>>> spans = find_spans(text, needles(["stream.example/aurora"], []))
>>> redact(text, spans)
'The log drain endpoint is  [forgotten]. Please delete that.'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "MARK",
    "MIN_SPAN_CHARS",
    "MIN_VALUE_CHARS",
    "Matcher",
    "Residue",
    "find_spans",
    "needles",
    "redact",
]

MIN_VALUE_CHARS = 8
MIN_SPAN_CHARS = 16
_GRAM = 6  # index width: under every needle's normalised length (8 characters or more)
_FEW = 16  # up to this many needles, one search per needle is faster than the index
#: What a redacted span becomes: visibly cut, and free of the content it replaces.
MARK = "[forgotten]"

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
#: Whitespace that normalising would change: any but a lone space (ASCII fast path below).
_ODD_SPACE = re.compile(r"[^\S ]| {2,}")


class Residue(BaseModel):
    """Where a residual copy was found (never the copy itself: that is what is forgotten).

    ``where`` is the kind of stored text, ``node`` its id (an episode or assertion id, a
    refusal's episode, a document's ``kind:key``), ``spans`` how many copies it holds.
    """

    model_config = ConfigDict(frozen=True)

    where: Literal["episode", "refusal", "document", "record"]
    node: str
    spans: int


def needles(values: Iterable[object], contents: Iterable[str],
            partial: Iterable[str] = ()) -> tuple[str, ...]:
    """What to search for, longest first (so a sentence that contains a value is cut as one
    span): erased string values, every sentence of erased ``contents``, and of ``partial``
    contents (episodes that also support retained facts) only the sentences quoting an erased
    value, since their other sentences may be what is kept."""
    found: set[str] = set()
    for value in values:
        if isinstance(value, str) and len(value.strip()) >= MIN_VALUE_CHARS:
            found.add(value.strip())
    quoted = Matcher(found)
    for content in contents:
        found.update(_sentences(content))
    for content in partial:
        found.update(s for s in _sentences(content) if quoted.spans(s))
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def _sentences(content: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(content) if len(s.strip()) >= MIN_SPAN_CHARS]


def _normalise(text: str) -> tuple[str, list[int]]:
    """Casefolded text with each whitespace run as one space, and for every character of it
    the index in ``text`` it came from (casefolding may lengthen: "ß" becomes "ss")."""
    if text.isascii() and _ODD_SPACE.search(text) is None:
        # Most values and sentences: ASCII casefolds to lower case, character for character,
        # and a lone space stays as it is, so nothing moves.
        return text.lower(), list(range(len(text)))
    out: list[str] = []
    where: list[int] = []
    in_space = False
    for index, char in enumerate(text):
        if char.isspace():
            if not in_space:
                out.append(" ")
                where.append(index)
            in_space = True
            continue
        in_space = False
        for folded in char.casefold():
            out.append(folded)
            where.append(index)
    return "".join(out), where


class Matcher:
    """Needles compiled once for many texts (a forget run searches a whole scope).

    Few needles are found one by one; many are indexed by their first :data:`_GRAM` normalised
    characters (every needle has at least that many), so each text is read once whatever the
    number of needles, instead of once per needle.
    """

    def __init__(self, search: Iterable[str]) -> None:
        targets = {_normalise(n.strip())[0] for n in search}
        self._targets = sorted((t for t in targets if t), key=len, reverse=True)
        self._by_gram: dict[str, list[str]] = {}
        # Decided once per run, not per text: a run searches every text of a scope, and
        # checking 900 needles' lengths for each of 40,000 texts was most of its cost.
        if len(self._targets) > _FEW and all(len(t) >= _GRAM for t in self._targets):
            for target in self._targets:
                self._by_gram.setdefault(target[:_GRAM], []).append(target)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Every ``[start, end)`` of ``text`` holding a needle, exactly or up to case and
        whitespace; overlapping spans merged."""
        if not self._targets:
            return []
        norm, where = _normalise(text)
        found: list[tuple[int, int]] = []
        if self._by_gram:
            for at in range(len(norm) - _GRAM + 1):
                for target in self._by_gram.get(norm[at:at + _GRAM], ()):
                    if norm.startswith(target, at):
                        found.append((at, at + len(target)))
        else:
            for target in self._targets:
                at = norm.find(target)
                while at != -1:
                    found.append((at, at + len(target)))
                    # From the next character, not past the copy: a copy may overlap the last
                    # ("aaaaaaaaa" holds "aaaaaaaa" twice), and the index finds both.
                    at = norm.find(target, at + 1)
        merged: list[tuple[int, int]] = []
        for start, end in sorted((where[a], where[b - 1] + 1) for a, b in found):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged


def find_spans(text: str, search: Iterable[str]) -> list[tuple[int, int]]:
    """Every ``[start, end)`` of ``text`` holding one of ``search`` (see :class:`Matcher`)."""
    return Matcher(search).spans(text)


def redact(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span replaced by :data:`MARK`."""
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(MARK)
        last = end
    out.append(text[last:])
    return "".join(out)
