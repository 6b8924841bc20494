"""``kg-memory recall``: what the memory holds that bears on a question."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from kg_memory import Kind, RecallAnswer, RecallError, RecallUnavailable, parse_instant
from kg_memory.cli import render
from kg_memory.cli.options import EmbedderOption, JsonOption, StoreOption, open_memory
from kg_memory.cli.policies import WritePolicyOption, load_write_policy
from kg_memory.cli.sheet import Column, Ident, Sheet

__all__ = ["recall", "recall_notes", "recall_sheet"]


def _who(hit_kind: Kind | None, writer: str, own: bool, historical: bool) -> str:
    who = f"{hit_kind.value if hit_kind else 'message'}: {writer}"
    if not own:
        who += " (not the user's words)" if hit_kind in (Kind.CLAIM, None) else ""
    if historical:
        who += " · historical only"
    return who


def recall_sheet(answer: RecallAnswer) -> Sheet:
    """The ranked results, one line each: what the record is and says are cut last."""
    sheet = Sheet(
        title=f"recall {answer.query!r} in {answer.scope}",
        columns=[Column("#", justify="right"), Column("record", cut="middle", identifies=True),
                 Column("content", cut="end", identifies=True),
                 Column("said by", cut="end"), Column("score", justify="right"),
                 Column("id", priority=1)],
        caption=f"{answer.status}: {len(answer.results)} shown of {answer.eligible} eligible "
                f"({answer.candidates} matched)",
    )
    for n, hit in enumerate(answer.results, 1):
        if hit.type == "fact":
            record = f"{hit.subject}.{hit.predicate}"
            if hit.qualifiers and hit.qualifiers.project:
                record += f" @{hit.qualifiers.project}"
            ident = Ident(hit.id, f"#{hit.revision}")
        else:
            record = f"message {render.when(hit.valid.start)}"
            ident = Ident(hit.id)
        sheet.add_row(str(n), record, hit.content,
                      _who(hit.kind, hit.writer, hit.own_words, hit.historical_only),
                      f"{hit.score.score:.3f}", ident)
    return sheet


def recall_notes(answer: RecallAnswer) -> list[list[str]]:
    """What the table's title and caption leave out, as prose fitted to 80 columns: when the
    answer is for, what was excluded before ranking, and what to ask the user again."""
    excluded = [f"{k} {v}," for k, v in answer.excluded.items() if v]
    if excluded:
        excluded[-1] = excluded[-1].rstrip(",")
    # Decayed memories are not served, but the agent is told what to confirm with the user.
    return [
        ["at", render.when(answer.at), "·", "known at", render.when(answer.known_at)],
        ["excluded before ranking:", *(excluded or ["none"])],
        *([f"ask again: {a.subject}.{a.predicate},", "last confirmed",
           render.when(a.last_confirmed)] for a in answer.ask_again),
    ]


def recall(
    query: Annotated[str, typer.Argument(help="The question, in words.")],
    scope: Annotated[str, typer.Option(help="The tenant (user) whose memory to search.")],
    at: Annotated[str, typer.Option(help="When in the world (ISO 8601 with offset).")] = "now",
    known_at: Annotated[str, typer.Option(help="As the store believed it then.")] = "now",
    subject: Annotated[str | None, typer.Option(help="The request's subject (ranks).")] = None,
    project: Annotated[str | None, typer.Option(help="The request's project (ranks).")] = None,
    kind: Annotated[list[str] | None, typer.Option(
        help="Only these kinds (repeatable): stated, world, claim, derived.")] = None,
    no_episodes: Annotated[bool, typer.Option(
        "--no-episodes", help="Facts only, no messages.")] = False,
    limit: Annotated[int, typer.Option(help="At most this many results (1-100).")] = 10,
    write_policy: WritePolicyOption = None,
    embedder: EmbedderOption = None,
    store: StoreOption = None,
    json_out: JsonOption = False,
) -> None:
    """What the memory holds that bears on QUERY, eligible records only, best first.

    Stale, not-yet-known and blocked records are excluded before ranking and counted, and so
    are facts whose trust decayed below the write policy's floor (listed: ask again). An empty
    answer means the search ran and nothing eligible matched; a store that cannot be searched
    is an error (exit 3), never an empty answer. With an embedder (--embedder, by default
    the shipped model when installed) facts are also ranked by meaning; a store whose vectors
    another model made refuses it (exit 2).
    """
    with render.errors():
        when = None if at == "now" else parse_instant(at, what="--at")
        known = None if known_at == "now" else parse_instant(known_at, what="--known-at")
        kinds = list(Kind)
        if kind:
            try:
                kinds = [Kind(k) for k in kind]
            except ValueError:
                raise RecallError(
                    f"--kind must be one of {', '.join(k.value for k in Kind)}") from None
        try:
            with open_memory(store, create=False, embedder=embedder) as memory:
                memory.write_policy = load_write_policy(write_policy)
                answer = memory.recall(query, scope=scope, subject=subject, project=project,
                                       at=when, known_at=known, kinds=kinds,
                                       include_episodes=not no_episodes, limit=limit)
        except RecallUnavailable as exc:
            if json_out and isinstance(exc.answer, RecallAnswer):
                sys.stdout.write(exc.answer.model_dump_json(indent=2) + "\n")
            raise
        if json_out:
            render.emit_json(answer)
        else:
            render.show(recall_sheet(answer))
            for note in recall_notes(answer):
                render.say_fitted(note)
