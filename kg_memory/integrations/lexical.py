"""A small lexical ranking, the stand-in for ``Memory.recall`` until recall lands.

It ranks texts that are *already eligible* (the as-of answer of one scope), so it can never
surface a fact the as-of path excluded; it only orders them. The score of a text is the share of
the query's inverse document frequency that it covers, in ``[0, 1]``:

>>> texts = ["ana diet vegetarian", "u1 favourite Chez Lili", "u1 next dinner R1 Fri"]
>>> [round(s, 2) for s in scores("what is Ana's diet?", texts)]
[1.0, 0.0, 0.0]
>>> [round(s, 2) for s in scores("Ana at Chez Lili", texts)]
[0.33, 0.67, 0.0]

Tokens are lower-cased runs of letters and digits, with a plural ``s`` dropped ("eats" matches
"eat"), and words that carry no meaning in a question ("what", "is") ignored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

__all__ = ["scores", "tokens"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "did", "for", "from", "has",
    "have", "how", "i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "our", "s",
    "the", "their", "them", "they", "this", "to", "was", "we", "were", "what", "when", "where",
    "which", "who", "why", "will", "with", "you", "your",
})


def tokens(text: str) -> set[str]:
    """The distinct search tokens of ``text``."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if word in _STOP:
            continue
        found.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return found


def scores(query: str, texts: Sequence[str]) -> list[float]:
    """One score per text: the idf-weighted share of the query's tokens the text contains."""
    wanted = tokens(query)
    docs = [tokens(t) for t in texts]
    if not wanted or not docs:
        return [0.0 for _ in texts]
    n = len(docs)
    idf = {
        w: math.log(1 + (n - df + 0.5) / (df + 0.5))
        for w in wanted
        for df in [sum(1 for d in docs if w in d)]
    }
    total = sum(idf.values())
    return [sum(idf[w] for w in wanted & d) / total for d in docs]
