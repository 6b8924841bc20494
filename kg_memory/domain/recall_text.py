"""What recall indexes and searches: one tokeniser for documents, queries and the reference.

Both backends index the *tokens* this module produces, joined by single spaces, so the index's
own tokenizer (SQLite FTS5 ``unicode61``, Lucene's ``whitespace`` analyzer) only has to split on
spaces. That keeps the term a backend matches identical to the term the ranking counts, and lets
a brute-force reference recompute every score from the stored rows alone.

Terms are stemmed lightly (plural and verb endings), on both sides, so "deposit" finds
"pre-approves deposits" and "booking" finds "booked":

>>> terms("Jo prefers CONCISE reports, except for audits (Cedar-only)")
['jo', 'pref', 'concis', 'report', 'except', 'for', 'audit', 'cedar', 'only']
>>> query_terms("What does Jo prefer for the Cedar reports?")
('jo', 'pref', 'cedar', 'report')
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Protocol

__all__ = [
    "STOPWORDS",
    "FactText",
    "episode_document",
    "fact_document",
    "query_terms",
    "stem",
    "terms",
    "tokens",
]

# Runs of letters and digits; "_" and every other mark separates ("report_format" is two terms,
# so a question about "format" finds the predicate).
_WORD = re.compile(r"[^\W_]+")

#: Words that carry no subject matter in an agent's question. Dropped from queries only, never
#: from documents, so removing one changes no stored index.
_STOPWORD_TEXT = (
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its me my of on or our she he her his so that the their them then there these "
    "they this to was we were what when where which who whom why will with would you your "
    "about any all know remember tell us"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def tokens(text: str) -> list[str]:
    """Lower-cased, accent-free word tokens of ``text``, in order (repeats kept: they are tf)."""
    if text.isascii():
        # Most text: ASCII has nothing to decompose and no accents, and lower() is its casefold.
        return _WORD.findall(text.lower())
    folded = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _WORD.findall(bare)


@lru_cache(maxsize=1 << 16)  # every episode and fact is tokenised on the write path
def stem(token: str) -> str:
    """Strip one plural or verb ending (a deliberately small, predictable rule set).

    >>> [stem(t) for t in ("deposits", "booked", "booking", "stories", "class", "bus")]
    ['deposit', 'book', 'book', 'story', 'class', 'bus']
    >>> [stem(t) for t in ("approves", "approved", "approver", "approve", "tea", "prefer")]
    ['approv', 'approv', 'approv', 'approv', 'tea', 'pref']
    """
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 5 and token.endswith("ing"):
        token = token[:-3]
    elif len(token) > 4 and token.endswith("ed"):
        token = token[:-2]
    elif len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        token = token[:-1]
    # Then an agent's -er and a final e, so "approves", "approved" and "approver" meet at
    # "approv" (and "prefer", "prefers" at "pref").
    if len(token) > 5 and token.endswith("er"):
        token = token[:-2]
    return token[:-1] if len(token) > 4 and token.endswith("e") else token


def terms(text: str) -> list[str]:
    """The indexed terms of ``text``: its tokens, stemmed, in order (repeats are tf)."""
    return [stem(t) for t in tokens(text)]


def query_terms(query: str) -> tuple[str, ...]:
    """The distinct searchable terms of a question, in first-seen order."""
    return tuple(dict.fromkeys(stem(t) for t in tokens(query) if t not in STOPWORDS))


class FactText(Protocol):
    """The parts of a fact revision that recall indexes."""

    @property
    def subject(self) -> str: ...

    @property
    def predicate(self) -> str: ...

    @property
    def value(self) -> object: ...


def fact_document(fact: FactText, project: str | None, exceptions: tuple[str, ...],
                  names: tuple[str, ...] = ()) -> str:
    """The indexed text of a fact revision: subject, predicate, value, project, exceptions,
    and the ``names`` of its subject and project entities as known when it was written (so
    "Jo" finds ``j17.report_style`` and "Cedar" its ``c1`` project).

    Writer, kind and times are not text: they are eligibility and ranking inputs, and indexing
    them would let a query for "user" match every fact the user stated.
    """
    parts = [fact.subject, fact.predicate, str(fact.value)]
    if project:
        parts.append(project)
    parts.extend(exceptions)
    parts.extend(names)
    return " ".join(terms(" ".join(parts)))


def episode_document(content: str) -> str:
    """The indexed text of an episode: its content as received, tokenised."""
    return " ".join(terms(content))
