"""Recall's episode corpus: how a raw message is scored, shown and given its neighbours.

An episode is a message exactly as received; it has no subject or project of its own, so the
request's subject and project count as its *words* (a message naming them is more specific),
its recency is when it happened, and its evidence is its speaker's authority. A recalled
message carries its neighbours in the same conversation, each judged by the same eligibility
rules (a blocked or refused neighbour is never shown).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kg_memory.domain.eligibility import RecallContext, episode_exclusion, episode_reasons
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Channel, Episode, Kind, Support, trusted
from kg_memory.domain.ranking import (
    Ranked,
    Scored,
    evidence_quality,
    recency,
    specificity,
)
from kg_memory.domain.recall_answer import RecalledEpisode, RecallHit, episode_label
from kg_memory.domain.recall_text import tokens
from kg_memory.services.recall_request import RecallRequest
from kg_memory.store.protocol import ConversationQuery, Store

__all__ = ["episode_hit", "episode_key", "episode_scored", "neighbours"]

# An episode's evidence quality: its speaker's authority, one source (computed once, not per
# matching message).
_USER_EVIDENCE = evidence_quality(Kind.STATED, 1)
_OTHER_EVIDENCE = evidence_quality(None, 1)


def episode_key(episode: Episode) -> str:
    """The key an episode ranks under (facts rank under ``fact:<id>#<revision>``)."""
    return f"episode:{episode.episode_id}"


def _words_in(words: Iterable[str], text: set[str]) -> bool:
    wanted = set(words)
    return bool(wanted) and wanted <= text


def episode_scored(episode: Episode, doc: list[str], ask: RecallRequest) -> Scored:
    """The ranking inputs of one eligible episode whose indexed words are ``doc``."""
    project = subject = None
    if ask.project is not None or ask.subject is not None:
        words = set(doc)
        if ask.project is not None:
            project = 1.0 if _words_in(tokens(ask.project), words) else 0.5
        if ask.subject is not None:
            subject = any(_words_in(tokens(name), words)
                          for name in (ask.subject, *ask.same_as))
    return Scored(
        key=episode_key(episode),
        terms=doc,
        specificity=0.0 if subject is None and project is None
        else specificity(subject, project),
        recency=recency(episode.occurred_at, ask.at, ask.weights.half_life_days),
        evidence=_USER_EVIDENCE if episode.speaker == "user" else _OTHER_EVIDENCE,
    )


def neighbours(store: Store, episodes: list[Episode], ask: RecallRequest,
               context: RecallContext) -> Mapping[str, tuple[RecalledEpisode, ...]]:
    """Each shown message's neighbours in its conversation, by episode id, in one store call."""
    if ask.context_size < 1 or not episodes:
        return {}
    # A chat is one conversation whoever speaks in it; any other channel is one per source.
    queries = [ConversationQuery(
        scope=e.scope, channel=e.channel.value,
        source=None if e.channel is Channel.CHAT else e.source,
        around=e.occurred_at, episode_id=e.episode_id, known_at=ask.known_at,
        size=ask.context_size) for e in episodes]
    return {
        episode.episode_id: tuple(
            RecalledEpisode(episode_id=e.episode_id, source=e.source, channel=e.channel.value,
                            content=e.content, occurred_at=e.occurred_at,
                            label=episode_label(e)[0])
            for e in around if episode_exclusion(e, context) is None)
        for episode, around in zip(episodes, store.conversations(queries), strict=True)}


def episode_hit(episode: Episode, ranked: Ranked, around: tuple[RecalledEpisode, ...],
                context: RecallContext) -> RecallHit:
    """A recalled message as the answer shows it, with its neighbours ``around``."""
    label, own = episode_label(episode)
    supports = (trusted(Support, {"episode_id": episode.episode_id, "source": episode.source,
                                  "occurred_at": episode.occurred_at}),)
    return RecallHit(
        type="episode", id=episode.episode_id, revision=None, scope=episode.scope,
        content=episode.content,
        value=None, subject=None, predicate=None, qualifiers=None, kind=None,
        writer=episode.speaker or episode.sender, valid=Interval(start=episode.occurred_at),
        system=Interval(start=episode.recorded_at), supported_by=supports,
        eligible_because=episode_reasons(episode, context), label=label, own_words=own,
        historical_only=False, context=around, score=ranked.components())
