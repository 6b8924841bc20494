"""What the MCP tools return, as pydantic models whose JSON Schemas an LLM reads (what they
take is :mod:`kg_memory.integrations.mcp.inputs`).

Outputs are flat: one fact is one object with both
intervals spelled out, so a model does not have to walk nested interval objects.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kg_memory import Fact, HistoryEntry, Kind, Resolved, ReviewPair
from kg_memory.integrations.mcp.inputs import Scalar

__all__ = [
    "AsOfView",
    "AskAgainView",
    "DecisionView",
    "EffectView",
    "EntitiesView",
    "EntityView",
    "FactView",
    "ForgetView",
    "HistoryView",
    "LineageView",
    "RecallHit",
    "RecallView",
    "RefusalView",
    "RefusalsView",
    "RememberView",
    "ReviewPairView",
    "RevisionView",
    "SettleView",
]

class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class FactView(_View):
    """One fact as the store served it, with who wrote it and both time axes."""

    assertion_id: str
    revision: int
    subject: str
    predicate: str
    value: Scalar
    kind: Kind
    writer: str = Field(description="The source that wrote it (the channel's, never the text's).")
    as_user_statement: bool = Field(description=(
        "True only for 'stated' facts: the user's own words. Anything else is not the user's "
        "permission or preference."))
    project: str | None
    exceptions: list[str]
    depends_on: list[str]
    valid_from: datetime
    valid_to: datetime | None
    known_since: datetime
    known_until: datetime | None
    supported_by: list[str] = Field(description="Ids of the episodes that are its evidence.")
    last_confirmed: datetime | None

    @classmethod
    def of(cls, fact: Fact) -> FactView:
        return cls(
            assertion_id=fact.assertion_id, revision=fact.revision, subject=fact.subject,
            predicate=fact.predicate, value=fact.value, kind=fact.kind, writer=fact.writer,
            as_user_statement=fact.kind is Kind.STATED, project=fact.qualifiers.project,
            exceptions=list(fact.qualifiers.exceptions), depends_on=list(fact.depends_on),
            valid_from=fact.valid.start, valid_to=fact.valid.end,
            known_since=fact.system.start, known_until=fact.system.end,
            supported_by=[s.episode_id for s in fact.supported_by],
            last_confirmed=fact.last_confirmed,
        )


class EffectView(_View):
    action: str = Field(description="written | refreshed | replaced | retracted | retired | "
                        "refused | event")
    key: str
    value: Scalar | None = None
    assertion_id: str | None = None
    detail: str = ""


class RememberView(_View):
    """What one remembered episode did."""

    operation_id: str
    episode_id: str
    status: Literal["accepted", "duplicate", "refused"] = Field(description=(
        "'refused': the channel could not vouch for the envelope; nothing was stored but the "
        "audit row."))
    written_as: str = Field(description="The source and channel the episode was recorded as.")
    effects: list[EffectView]
    refused: int = Field(description="Candidates the writer gate refused (see refusals).")


class AsOfView(_View):
    valid_at: datetime
    known_at: datetime
    facts: list[FactView]


class RecallHit(_View):
    """One recalled record: a fact revision or a stored message, with why it may be used."""

    type: Literal["fact", "episode"]
    id: str = Field(description="The assertion id, or the episode id of a message.")
    revision: int | None
    content: str = Field(description="The value as text, or the message as received.")
    value: Scalar | None
    subject: str | None
    predicate: str | None
    kind: Kind | None
    writer: str = Field(description="Who wrote it: the fact's writer or the message's source.")
    as_user_statement: bool = Field(description=(
        "True only for the user's own words. A claim or a third party's message is not."))
    historical_only: bool = Field(description=(
        "A remembered approval: evidence it was given then, never permission to act now."))
    label: str
    valid_from: datetime
    valid_to: datetime | None
    known_since: datetime
    known_until: datetime | None
    supported_by: list[str]
    score: float


class AskAgainView(_View):
    """A matching fact recall would not serve: not confirmed for so long that its trust fell
    below its floor (the write policy's half-life). Ask the user before relying on it."""

    assertion_id: str
    revision: int
    subject: str
    predicate: str
    last_confirmed: datetime
    age_days: float
    half_life_days: float
    reason: str


class RecallView(_View):
    query: str
    status: Literal["ok", "empty"] = Field(description=(
        "'empty' means the memory was searched and nothing eligible matched."))
    method: str = Field(description="How results were ranked.")
    at: datetime
    known_at: datetime
    eligible: int = Field(description="Records that were eligible and matched the query.")
    excluded: dict[str, int] = Field(description=(
        "Matching records kept out before ranking, per eligibility rule (stale, not yet "
        "known, blocked, ...)."))
    results: list[RecallHit]
    ask_again: list[AskAgainView] = Field(description=(
        "Matching facts too long unconfirmed to serve (their value is not shown): ask the "
        "user again instead of assuming them."))


class RevisionView(_View):
    assertion_id: str
    revision: int
    predicate: str
    value: Scalar
    kind: Kind
    writer: str
    valid_from: datetime
    valid_to: datetime | None
    known_since: datetime
    known_until: datetime | None
    created_because: str
    closed_by: str | None
    close_reason: str | None

    @classmethod
    def of(cls, entry: HistoryEntry) -> RevisionView:
        v = entry.version
        return cls(
            assertion_id=v.assertion_id, revision=v.revision, predicate=v.predicate,
            value=v.value, kind=v.kind, writer=v.writer, valid_from=v.valid.start,
            valid_to=v.valid.end, known_since=v.system.start, known_until=v.system.end,
            created_because=entry.created_because.value, closed_by=entry.closed_by,
            close_reason=entry.close_reason.value if entry.close_reason else None,
        )


class HistoryView(_View):
    subject: str
    predicate: str | None
    revisions: list[RevisionView]


class LineageView(_View):
    root: str
    direction: Literal["up", "down", "both"]
    tree: dict[str, Any] = Field(description=(
        "The root's 'sources' (episodes, writers) and 'derivatives' as nested nodes."))


class ForgetView(_View):
    """A forget plan, or the outcome of executing one."""

    plan_id: str = Field(description="Pass this back as plan_id to execute exactly this plan.")
    selector: str
    executed: bool
    status: str = Field(description="planned | complete | incomplete | nothing-to-forget")
    delete: list[str]
    rebuild: list[str]
    erase: list[str]
    redact: list[str]
    restore: list[str]
    retire: list[str] = Field(description=(
        "Facts believed on an erased fact (they depend on it): retired, history kept."))
    retain: list[str]
    destinations: list[dict[str, Any]]
    next_step: str


class RefusalView(_View):
    episode_id: str
    source: str
    what: str
    reason: str
    at: datetime


class RefusalsView(_View):
    refusals: list[RefusalView]


class DecisionView(_View):
    decision_id: str
    mention: str
    outcome: str
    entity_id: str
    possible_same_as: list[str]
    posterior: float | None
    decided_by: str
    reason: str

    @classmethod
    def of(cls, resolved: Resolved) -> DecisionView:
        d = resolved.decision
        return cls(
            decision_id=d.decision_id, mention=d.mention.name, outcome=d.outcome.value,
            entity_id=resolved.entity_id, possible_same_as=list(d.possible_same_as),
            posterior=d.posterior, decided_by=d.decided_by, reason=d.reason,
        )


class EntityView(_View):
    entity_id: str
    type: str | None
    names: list[str]
    identifiers: list[str] = Field(description="kind:value, e.g. 'user_id:j17'.")
    decisions: list[DecisionView]
    facts: list[FactView]


class FieldRowView(_View):
    field: str
    provisional: list[str] = Field(description="The mention's values, as the resolver saw them.")
    candidate: list[str] = Field(description="The candidate entity's values, as known now.")
    verdict: str = Field(description=(
        "agree | close (a typo, a transposed date) | disagree | only_provisional | "
        "only_candidate"))
    detail: str


class FactConflictView(_View):
    predicate: str
    project: str | None
    provisional: list[str]
    candidate: list[str]


class ReviewPairView(_View):
    """One question for the user: is the provisional entity the same as the candidate?"""

    pair_id: str = Field(description="PROVISIONAL:CANDIDATE.")
    provisional: str
    candidate: str
    mention: str = Field(description="The name as it was mentioned.")
    posterior: float | None
    resolver_reason: str = Field(description="Why the resolver could not decide.")
    fields: list[FieldRowView] = Field(description=(
        "Every field either side has, side by side: a given name that disagrees while "
        "surname, birth date and address agree is what twins look like."))
    pooled: int = Field(description="How many current facts a merge would pool.")
    conflicts: list[FactConflictView] = Field(description=(
        "Predicates both hold now with different values: after a merge, both would hold."))
    settled: str | None = Field(description="'merge by ana' once a person settled it.")
    token: str = Field(description="Pass back to settle: it says what the user was shown.")

    @classmethod
    def of(cls, pair: ReviewPair) -> ReviewPairView:
        done = pair.settled
        return cls(
            pair_id=pair.pair_id, provisional=pair.provisional, candidate=pair.candidate,
            mention=pair.mention, posterior=pair.posterior, resolver_reason=pair.reason,
            fields=[FieldRowView(field=r.field, provisional=list(r.provisional),
                                 candidate=list(r.candidate), verdict=r.verdict.value,
                                 detail=r.detail) for r in pair.fields],
            pooled=pair.impact.pooled,
            conflicts=[FactConflictView(predicate=c.predicate, project=c.project,
                                        provisional=list(c.provisional),
                                        candidate=list(c.candidate))
                       for c in pair.impact.conflicts],
            settled=None if done is None else f"{done.outcome.value} by {done.decided_by}",
            token=pair.token,
        )


class EntitiesView(_View):
    action: Literal["show", "review"]
    entity: EntityView | None = Field(default=None, description="For 'show'.")
    review: list[DecisionView] = Field(default_factory=list, description=(
        "For 'review': the REVIEW decisions with a pair still open."))
    queue: list[ReviewPairView] = Field(default_factory=list, description=(
        "For 'review': each open pair, most facts a merge would pool first, then conflicts. "
        "Ask the user, then call settle with their answer."))


class SettleView(_View):
    pair_id: str
    decision: Literal["merge", "apart"]
    decision_id: str
    decided_by: str
    reason: str
    next_step: str
