"""What recall returns: eligible records with their evidence, labels and score components.

A :class:`RecallAnswer` says what happened: ``ok`` (results), ``empty`` (the search ran and
nothing eligible matched) or ``unavailable`` (the search could not run: an error, carried by
:class:`~kg_memory.domain.errors.RecallUnavailable`, never an empty list). ``excluded`` counts, per
eligibility rule, the in-scope candidates it kept from being ranked.

Two labels keep words from changing owner on the way out (seed 002):

* a claim is someone else's words about the user, so its hit is labelled with its writer and
  ``own_words`` is false; only the user's stated facts and the user's own messages are
  ``own_words``, and a message is the user's only when the gate admitted its envelope (a
  refused one claiming ``source: user`` is nobody's words; recall does not serve it);
* a remembered approval (a predicate about approval, consent or permission) is
  ``historical_only``: evidence that it was given then, never permission to act now.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, Episode, Kind, Qualifiers, Support, Value
from kg_memory.domain.ranking import ScoreComponents
from kg_memory.domain.recall_text import tokens

__all__ = [
    "APPROVAL_WORDS",
    "AskAgain",
    "RecallAnswer",
    "RecallHit",
    "RecalledEpisode",
    "ScoreComponents",
    "episode_label",
    "fact_label",
    "is_approval",
]

#: Predicate words that make a fact a remembered approval.
APPROVAL_WORDS = frozenset({
    "approval", "approved", "approves", "preapproved", "preapproves", "consent", "consents",
    "consented", "permission", "permitted", "authorized", "authorised", "authorization",
    "authorisation", "allowed", "allow",
})
#: Sources whose messages are the user's own words.
USER_SOURCES = frozenset({"user"})


def is_approval(predicate: str) -> bool:
    """``deposit_preapproved``, ``consent``, ``booking_approval``: approvals, whatever the value."""
    return any(t in APPROVAL_WORDS for t in tokens(predicate))


def fact_label(fact: Assertion) -> tuple[str, bool, bool]:
    """(label, own_words, historical_only) of a recalled fact."""
    if fact.kind is Kind.STATED:
        label, own = f"the user's statement (recorded by {fact.writer})", True
    elif fact.kind is Kind.CLAIM:
        label = f"claim: {fact.writer}'s words about {fact.subject}, not the user's statement"
        own = False
    elif fact.kind is Kind.WORLD:
        label, own = f"record of {fact.writer}, the system that owns it", False
    else:
        label, own = f"derived by {fact.writer} from other memories", False
    historical = is_approval(fact.predicate)
    if historical:
        label = ("historical evidence only: an approval given "
                 f"{fact.valid.start.date().isoformat()}, not present permission; authorise "
                 "the operation under its present scope. " + label)
    return label, own, historical


def episode_label(episode: Episode) -> tuple[str, bool]:
    """(label, own_words) of a recalled message.

    Whose words a message is comes from the gate's decision stored with it
    (:attr:`Episode.speaker`), never from the source its envelope claims: a refused envelope
    is nobody's statement, and its label says who really sent it."""
    if episode.speaker is None:
        return (f"refused envelope, not anyone's statement: claimed to be {episode.source} "
                f"over {episode.channel.value}, really sent by {episode.sender}", False)
    if episode.speaker in USER_SOURCES:
        return f"the user's message ({episode.channel.value})", True
    return (f"words of {episode.speaker} via {episode.channel.value}, not the user's", False)


class RecalledEpisode(BaseModel):
    """A message shown as context: a neighbour of a recalled one in the same conversation."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    source: str
    channel: str
    content: str
    occurred_at: UtcDatetime
    label: str


class RecallHit(BaseModel):
    """One recalled record: a fact revision or an episode."""

    model_config = ConfigDict(frozen=True)

    type: Literal["fact", "episode"]
    id: str  # assertion id or episode id
    revision: int | None  # None for an episode
    scope: str
    content: str  # the value as text, or the message as received
    value: Value | None
    subject: str | None
    predicate: str | None
    qualifiers: Qualifiers | None
    kind: Kind | None
    writer: str  # the fact's writer, or the episode's source
    valid: Interval  # an episode: [occurred_at, open)
    system: Interval  # an episode: [recorded_at, open)
    supported_by: tuple[Support, ...]
    eligible_because: tuple[str, ...]
    label: str
    own_words: bool
    historical_only: bool
    context: tuple[RecalledEpisode, ...]
    score: ScoreComponents


class AskAgain(BaseModel):
    """A fact recall would not serve because it decayed below its floor (seeds 002, 003): the
    memory exists but is too old to trust, so the agent should ask the user again."""

    model_config = ConfigDict(frozen=True)

    assertion_id: str
    revision: int
    subject: str
    predicate: str
    last_confirmed: UtcDatetime
    age_days: float
    half_life_days: float
    factor: float
    floor: float
    reason: str


class RecallAnswer(BaseModel):
    """The outcome of one recall: status, what was searched, results and exclusion counts."""

    model_config = ConfigDict(frozen=True)

    status: Literal["ok", "empty", "unavailable"]
    query: str
    terms: tuple[str, ...]
    scope: str
    subject: str | None = None
    project: str | None = None
    at: UtcDatetime
    known_at: UtcDatetime
    kinds: tuple[Kind, ...]
    include_episodes: bool = True
    mode: Literal["lexical", "vector", "hybrid"] = "lexical"
    candidates: int = 0
    eligible: int = 0
    excluded: dict[str, int] = {}
    results: tuple[RecallHit, ...] = ()
    #: Facts excluded by decay: memories to confirm with the user before relying on them.
    ask_again: tuple[AskAgain, ...] = ()
    #: How the vector candidates were found (none, exact, or the index's method).
    vector_method: str | None = None
    error: str | None = None

    def ids(self) -> list[str]:
        """``assertion_id#revision`` or episode id of each hit, best first."""
        return [h.id if h.revision is None else f"{h.id}#{h.revision}" for h in self.results]
