"""The review queue for a person at a terminal: the pairs in order, then each pair's fields side
by side with the facts a merge would put in conflict.

Tables are :class:`~kg_memory.cli.sheet.Sheet` s, so they fit the terminal (80 columns and up)
and ids are never cut: a pair's ids can always be pasted into ``--merge`` / ``--apart``.
"""

from __future__ import annotations

from kg_memory import ReviewPair
from kg_memory.cli.sheet import Column, Ident, Sheet

__all__ = ["pair_sheet", "queue_sheet"]

#: How each verdict reads in a table: the words a person scans for.
_VERDICTS = {"agree": "agree", "close": "close", "disagree": "DISAGREE",
             "only_provisional": "only left", "only_candidate": "only right"}


def queue_sheet(pairs: list[ReviewPair], *, shown: int) -> Sheet:
    """One row per pair, most impact first: ``#`` is the pair's number in the sheets below."""
    settled = sum(1 for p in pairs if p.settled is not None)
    caption = f"{len(pairs) - settled} open pair(s)" + (f", {settled} settled" if settled else "")
    if shown == 0 and pairs:
        caption += "; --limit N shows their fields"
    elif shown < len(pairs):
        caption += f"; fields of the first {shown} below (--limit)"
    sheet = Sheet(title="review queue: most a merge would change first", caption=caption,
                  columns=[
                      Column("#", justify="right"), Column("provisional (left)"),
                      Column("candidate (right)"), Column("mention", cut="middle"),
                      Column("pooled", justify="right"), Column("conflicts", justify="right"),
                      Column("posterior", justify="right", priority=2),
                      Column("settled", priority=1, cut="end"),
                      Column("scope", priority=3, cut="middle")])
    for rank, p in enumerate(pairs, 1):
        done = p.settled
        sheet.add_row(str(rank), Ident(p.provisional), Ident(p.candidate), p.mention,
                      str(p.impact.pooled), str(len(p.impact.conflicts)),
                      "" if p.posterior is None else f"{p.posterior:.3f}",
                      "" if done is None else f"{done.outcome.value} by {done.decided_by}",
                      p.scope)
    return sheet


def pair_sheet(rank: int, pair: ReviewPair) -> Sheet:
    """A pair's fields side by side (left: the mention as the resolver saw it; right: the
    candidate as its profile holds it now), then the facts both hold with other values."""
    sheet = Sheet(title=f"#{rank} {pair.mention}: left {pair.provisional}, right {pair.candidate}",
                  caption=f"merge pools {pair.impact.pooled} fact(s); resolver: {pair.reason}",
                  columns=[
                      Column("field", cut="end"), Column("left", cut="end", identifies=True),
                      Column("right", cut="end", identifies=True), Column("verdict"),
                      Column("detail", priority=1, cut="end")])
    for row in pair.fields:
        # The comparison's words only where the values alone do not say it ("transposed").
        detail = row.detail if row.verdict.value in ("close", "disagree") else ""
        sheet.add_row(row.field, ", ".join(row.provisional), ", ".join(row.candidate),
                      _VERDICTS[row.verdict.value], detail)
    for conflict in pair.impact.conflicts:
        where = f" ({conflict.project})" if conflict.project else ""
        sheet.add_row(f"fact {conflict.predicate}{where}", ", ".join(conflict.provisional),
                      ", ".join(conflict.candidate), "CONFLICT", "both would hold")
    return sheet
