"""What recall indexes and searches: one tokeniser for documents, queries and the reference.

Both backends index the *terms* this module produces, joined by single spaces, so the index's
own tokenizer (SQLite FTS5 ``unicode61``, Lucene's ``whitespace`` analyzer) only has to split on
spaces. That keeps the term a backend matches identical to the term the ranking counts, and lets
a brute-force reference recompute every score from the stored rows alone.

A term is a token (letters and digits, lower-cased, accents removed) stemmed by Snowball's
English stemmer, then with a final ``i`` dropped from a stem longer than four letters, so a
word and its derivations meet: "allergic", "allergy" and "allergies" all become ``allerg``,
"deposit" finds "pre-approves deposits" and "booking" finds "booked". A fact's subject and
predicate are identifiers, so they are also split where their case changes ("homeCity" is
"home city"). Stopwords leave questions only, never documents.

>>> terms("Jo prefers CONCISE reports, except for audits (Cedar-only)")
['jo', 'prefer', 'concis', 'report', 'except', 'for', 'audit', 'cedar', 'onli']
>>> query_terms("What is the user allergic to?")
('user', 'allerg')

Changing any of this changes what every store holds: bump :data:`TERMS`, and the stores re-index
(the embedded store by ``kg-memory migrate`` to a new schema, Neo4j on its next connect).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache
from typing import Protocol

import Stemmer

__all__ = [
    "STOPWORDS",
    "TERMS",
    "FactText",
    "episode_document",
    "fact_document",
    "fact_words",
    "identifier_words",
    "query_terms",
    "stem",
    "terms",
    "tokens",
]

# Runs of letters and digits; "_" and every other mark separates ("report_format" is two terms,
# so a question about "format" finds the predicate).
_WORD = re.compile(r"[^\W_]+")
#: Where an identifier's case changes: "homeCity" -> "home City", "HTTPServer" -> "HTTP Server".
_CASE_CHANGE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")

#: The version of the terms below, recorded by each store that indexed with them: a store whose
#: index holds another version's terms is re-indexed (see the module docstring).
TERMS = "snowball-english-1"

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


# A stemmer object is not safe to share between threads; stemming is fast and cached, so a lock.
_STEMMER = Stemmer.Stemmer("english")
_STEMMER_LOCK = threading.Lock()


@lru_cache(maxsize=1 << 16)  # every episode and fact is tokenised on the write path
def stem(token: str) -> str:
    """Snowball English, then a final ``i`` off a stem longer than four letters (where Snowball
    spelt a ``y``), so derivations meet: "allergy" and "allergic", "memory" and "memorize".

    >>> [stem(t) for t in ("deposits", "booked", "booking", "stories", "class", "bus")]
    ['deposit', 'book', 'book', 'stor', 'class', 'bus']
    >>> [stem(t) for t in ("allergic", "allergy", "allergies", "memories", "memorize", "happy")]
    ['allerg', 'allerg', 'allerg', 'memor', 'memor', 'happ']
    >>> [stem(t) for t in ("approves", "approved", "approve", "tea", "prefer", "running")]
    ['approv', 'approv', 'approv', 'tea', 'prefer', 'run']
    """
    with _STEMMER_LOCK:
        stemmed: str = _STEMMER.stemWord(token)
    return stemmed[:-1] if len(stemmed) > 4 and stemmed.endswith("i") else stemmed


def identifier_words(identifier: str) -> str:
    """An identifier as words: split where its case changes (``_``, ``.``, ``-`` and digits
    already separate tokens).

    >>> identifier_words("homeCity"), identifier_words("HTTPServer"), identifier_words("allergy")
    ('home City', 'HTTP Server', 'allergy')
    """
    return _CASE_CHANGE.sub(" ", identifier)


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


def fact_words(fact: FactText, project: str | None, exceptions: tuple[str, ...],
               names: tuple[str, ...] = ()) -> str:
    """A fact revision in words, as written: subject and predicate split into words, value,
    project, exceptions, and the ``names`` of its subject and project entities. What an
    embedding model reads: it was trained on words, and a stem ("approv", "budget") is not one.

    >>> from types import SimpleNamespace as Fact
    >>> fact_words(Fact(subject="c1", predicate="budgetApprover", value="Jo"), None, (),
    ...            ("Cedar",))
    'c1 budget Approver Jo Cedar'
    """
    parts = [identifier_words(fact.subject), identifier_words(fact.predicate), str(fact.value)]
    if project:
        parts.append(project)
    parts.extend(exceptions)
    parts.extend(names)
    return " ".join(parts)


def fact_document(fact: FactText, project: str | None, exceptions: tuple[str, ...],
                  names: tuple[str, ...] = ()) -> str:
    """The indexed text of a fact revision: the terms of :func:`fact_words` (so "Jo" finds
    ``j17.report_style`` and "Cedar" its ``c1`` project, by the entities' names as known when
    it was written).

    Writer, kind and times are not text: they are eligibility and ranking inputs, and indexing
    them would let a query for "user" match every fact the user stated.
    """
    return " ".join(terms(fact_words(fact, project, exceptions, names)))


def episode_document(content: str) -> str:
    """The indexed text of an episode: its content as received, tokenised."""
    return " ".join(terms(content))
