"""What the MCP tools take, as pydantic models whose JSON Schemas an LLM reads.

Inputs mirror the ingest format (``kg-memory schema``) minus everything the channel establishes:
no ``source``, no ``scope``, no writer. A stray field is refused (``extra="forbid"``), so a
model that invents ``writer`` hears so instead of being ignored.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from kg_memory import Kind, ScopeLabel

__all__ = ["TIME_HELP", "ClaimInput", "EntityInput", "EventInput", "FactInput", "RetractionInput",
           "Scalar"]

Scalar = str | int | float | bool
TIME_HELP = "ISO 8601 with an offset, e.g. 2026-01-05T09:00:00Z"


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FactInput(_Input):
    """A fact to remember. The writer is this server's configured source, never a field here."""

    subject: str = Field(min_length=1, description="Whom or what it is about: an entity id "
                         "such as 'ana', or the user's own id.")
    predicate: str = Field(min_length=1, description="The attribute, snake_case: 'diet', "
                           "'favourite', 'next_dinner'.")
    value: Scalar = Field(description="The value: a string, number or boolean.")
    kind: Kind = Field(description=(
        "Required, as in an ingest file. 'stated': the user said it. 'world': a fact another "
        "system owns, such as a booking (give depends_on so the owner's events can end it). "
        "'claim': someone else's words about the user. Facts from documents go through "
        "read_document, not here."))
    depends_on: list[str] = Field(default_factory=list, description=(
        "Entity ids this fact relies on, e.g. ['R1'] for a booking: when R1 is cancelled or "
        "done, the fact ends."))
    project: str | None = Field(default=None, description="Project the fact is scoped to.")
    exceptions: list[str] = Field(default_factory=list, description=(
        "Stated exceptions that are part of its meaning ('concise except audits')."))
    valid_from: str | None = Field(default=None, description=(
        f"When it starts to hold in the world ({TIME_HELP}); default: when it was said."))
    valid_to: str | None = Field(default=None, description=(
        f"When it stops holding ({TIME_HELP}), exclusive; default: until further notice."))
    confidence: float = Field(default=1.0, ge=0.0, le=1.0, description=(
        "How sure the speaker was, from 0 to 1 (default 1): 'I think Ana is vegetarian' is "
        "less than 1. Decay starts from it."))
    scope_label: ScopeLabel = Field(default=ScopeLabel.DURABLE, description=(
        "How long it is meant to hold: 'durable' (a preference, a fact of life), 'session' "
        "(this week's plan) or 'request' (this one order). Write policies may keep one-offs "
        "out of long-term memory."))
    explicit: bool = Field(default=False, description=(
        "True when the user explicitly updated or corrected it ('I switched to ebooks')."))
    if_match: str | None = Field(default=None, description=(
        "Write only if this subject.predicate is unchanged since you read it: the fact's "
        "'assertion_id#revision' from asof or recall, or 'absent' if there was none. If it "
        "changed, nothing is written (ConcurrencyError): read again and decide again."))


class ClaimInput(FactInput):
    """A fact a third-party text asserts: always kept as that text's claim."""

    kind: Kind = Field(default=Kind.CLAIM, description=(
        "Ignored: whatever is given, a document's facts are kept as 'claim' (someone else's "
        "words), never as the user's."))


class RetractionInput(_Input):
    """Withdraw what is known for subject.predicate over a span of valid time."""

    subject: str = Field(min_length=1, description="The entity whose fact is withdrawn: 'ana'.")
    predicate: str = Field(min_length=1, description="The attribute withdrawn: 'diet'.")
    project: str | None = Field(default=None, description=(
        "The project the fact was remembered under; omit for a fact without one."))
    valid_from: str | None = Field(default=None, description=f"{TIME_HELP}; default: now.")
    valid_to: str | None = Field(default=None, description=f"{TIME_HELP}; default: open.")


class EventInput(_Input):
    """A lifecycle event on an entity this source owns ('R1' 'cancelled')."""

    target: str = Field(min_length=1, description="The entity id, e.g. 'R1'.")
    name: str = Field(min_length=1, description="What happened: 'cancelled', 'done'.")
    at: str | None = Field(default=None, description=f"{TIME_HELP}; default: when it was said.")


class EntityInput(_Input):
    """An entity the episode introduces (a person, a booking)."""

    entity_id: str = Field(min_length=1, description="A short stable id: 'ana', 'R1'.")
    type: str = Field(default="thing", description="'person', 'booking', 'restaurant', ...")
    name: str | None = Field(default=None, description=(
        "How people call it: 'Ana', 'Friday table at Chez Lili'. Default: none."))
    owners: list[str] = Field(default_factory=list, description=(
        "Sources whose events may end facts that depend on it: a booking is owned by "
        "['restaurant', 'timer']."))
    identifiers: dict[str, str] = Field(default_factory=dict, description=(
        "What identifies a person, as for a mention: user_id, national_id, email, phone, "
        "handle. Later mentions are resolved against it. Default: none."))
    context: dict[str, str] = Field(default_factory=dict, description=(
        "Context as for a mention (employer, role, city, relation, project, birth_date, ...). "
        "Default: none."))
