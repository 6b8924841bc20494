"""The writer gate: who may write which kind of memory, as data.

The gate is the check every candidate passes before anything is stored (seed 000). It decides on
the *source the ingest channel established*, never on anything the payload says about itself:

>>> policy = WriterPolicy.default()
>>> admit(policy, source="restaurant", kind=Kind.STATED, subject="u1", predicate="deposit").admitted
False
>>> admit(policy, source="user", kind=Kind.STATED, subject="ana", predicate="diet").admitted
True

Writers in a rule are source names, ``"*"`` for anyone, or ``"owner"`` for a source listed among
the subject entity's owners (a restaurant may report on its own booking).

**Ownership is authority.** An owner's events end facts that depend on what it owns, so
declaring or widening who owns an entity is itself a write that passes this gate: only the
``owner_assigners`` (by default the user's conversation: the user, or the agent acting for the
user) may assign owners in an episode, the policy's ``owners`` grants assign them by
configuration, and no sender may ever name itself an owner:

>>> decision = may_assign(policy, source="restaurant", entity_id="u1", current=(),
...                       declared=("restaurant",))
>>> decision.admitted, decision.reason
(False, 'restaurant may not make itself an owner of u1')

**Authority order.** ``authority`` ranks writers in tiers (see
:mod:`kg_memory.domain.authority`): values of different tiers never supersede each other, and
the lower one is kept as a visible conflict.

**Reserved slots.** Some facts steer kg-memory itself: an environment signal ``env:NAME.value``
sends rules bound to it to review, and a rule's binding ``RULE_ID.signal.NAME`` says what it was
learned under. The allow rules above would let any world-fact writer (a tool) write them, so
``reserved`` names, per slot pattern, the only writers and channels that may, whatever else
the rules allow:

>>> admit(policy, source="tool", kind=Kind.WORLD, subject="env:api", predicate="value",
...       channel=Channel.TOOL).reason
'env:api.value is reserved to registry over api'

**Identity claims.** ``same_as`` pools one entity's facts into another's answers, so, like an
ownership declaration, only the ``identity_writers`` (by default the user's conversation) may
claim it in an episode; a person's merge is recorded by the operator's command, not ingested.
What a source says about an entity to the resolver (a mention's name, identifiers, context) is
a write about that entity too: :func:`may_describe` is the gate's answer for it.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kg_memory.domain.authority import DEFAULT_AUTHORITY, AuthorityTier
from kg_memory.domain.errors import PolicyError
from kg_memory.domain.model import Channel, Entity, Kind

__all__ = [
    "DEFAULT_RESERVED",
    "IDENTITY_PREDICATE",
    "SAME_AS",
    "GateDecision",
    "GateRule",
    "OwnerGrant",
    "ReservedSlot",
    "WriterPolicy",
    "admit",
    "may_assign",
    "may_claim_identity",
    "may_describe",
    "may_end",
    "owners_of",
]

OWNER = "owner"
#: the identity claim: ``a.same_as = b`` pools b's facts into a's answers
SAME_AS = "same_as"
#: the predicate a mention's name, identifiers and context are judged as (see may_describe)
IDENTITY_PREDICATE = "identity"


class GateRule(BaseModel):
    """Allow ``writers`` to write ``kind`` for subjects and predicates matching the globs, over
    ``channels`` (empty: any channel)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    writers: tuple[str, ...]
    subjects: tuple[str, ...] = ("*",)
    predicates: tuple[str, ...] = ("*",)
    channels: tuple[Channel, ...] = ()

    def allows(
        self,
        source: str,
        subject: str,
        predicate: str,
        owners: tuple[str, ...],
        channel: Channel | None = None,
    ) -> bool:
        # "owner" and "*" are keywords, never names: a sender calling itself "owner" is no
        # owner of anything by that name.
        writer_ok = any(
            w == "*" or (source in owners if w == OWNER else w == source) for w in self.writers
        )
        return (
            writer_ok
            and (not self.channels or channel is None or channel in self.channels)
            and any(fnmatchcase(subject, s) for s in self.subjects)
            and any(fnmatchcase(predicate, p) for p in self.predicates)
        )


class OwnerGrant(BaseModel):
    """Configured ownership: ``owners`` own every entity whose id matches ``entities`` (globs).

    This is how a deployment says "the restaurant owns the bookings made with it" without any
    episode having to declare it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    entities: tuple[str, ...]
    owners: tuple[str, ...]


class ReservedSlot(BaseModel):
    """Facts whose subject and predicate match the globs may be written (and withdrawn) only by
    ``writers`` (source names, no globs), of ``kinds``, over ``channels``: no allow rule widens
    that."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subjects: tuple[str, ...]
    predicates: tuple[str, ...]
    writers: tuple[str, ...]
    kinds: tuple[Kind, ...] = (Kind.WORLD,)
    channels: tuple[Channel, ...] = (Channel.API,)

    def covers(self, subject: str, predicate: str) -> bool:
        return (any(fnmatchcase(subject, s) for s in self.subjects)
                and any(fnmatchcase(predicate, p) for p in self.predicates))

    def allows(self, source: str, kind: Kind, channel: Channel | None) -> bool:
        return (source in self.writers and kind in self.kinds
                and (channel is None or channel in self.channels))


#: Environment signals and rule bindings (seed 004; :mod:`kg_memory.services.rules`): the
#: registry reports signals over the API, and the rule book writes bindings as the registry.
DEFAULT_RESERVED: tuple[ReservedSlot, ...] = (
    ReservedSlot(subjects=("env:*",), predicates=("value",), writers=("registry",)),
    ReservedSlot(subjects=("rl_*",), predicates=("signal.*",), writers=("registry",)),
)


class WriterPolicy(BaseModel):
    """An ordered list of allow rules; anything no rule allows is refused.

    ``authority`` ranks writers (highest first), ``owner_assigners`` may declare owners in an
    episode, and ``owners`` grants ownership by configuration. ``reserved`` slots are written
    only by the writers and channels they name; ``identity_writers`` may claim ``same_as``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    version: int = 1
    rules: tuple[GateRule, ...] = Field(default=())
    authority: tuple[AuthorityTier, ...] = DEFAULT_AUTHORITY
    owner_assigners: tuple[str, ...] = ("user", "agent")
    owners: tuple[OwnerGrant, ...] = ()
    reserved: tuple[ReservedSlot, ...] = DEFAULT_RESERVED
    identity_writers: tuple[str, ...] = ("user", "agent")

    @classmethod
    def default(cls) -> WriterPolicy:
        """Seed 000's rule: only the user's own conversation states facts; claims are refused.

        The agent may write stated facts because it records what the user told it, so only
        over chat: what it relays from a tool call is tool output, not the user's words (seed
        003: "reject writes that originate in tool output or retrieved content"). It writes
        world facts because it acts (it books the table). Owners report on their own entities.
        """
        return cls(
            name="seed-000",
            version=1,
            rules=(
                GateRule(kind=Kind.STATED, writers=("user", "agent"), channels=(Channel.CHAT,)),
                GateRule(kind=Kind.WORLD, writers=("agent", "tool", "registry", OWNER)),
                GateRule(kind=Kind.DERIVED, writers=("consolidator",)),
            ),
        )

    @classmethod
    def permissive(cls) -> WriterPolicy:
        """Admit everything: the "every input" baselines of the dinner study, never a default."""
        return cls(
            name="permissive",
            rules=tuple(GateRule(kind=k, writers=("*",)) for k in Kind),
            authority=(AuthorityTier(name="everyone", writers=("*",)),),
            owner_assigners=("*",),
            reserved=(),
            identity_writers=("*",),
        )

    @classmethod
    def load(cls, path: Path) -> WriterPolicy:
        """Read a policy from a JSON file shaped like ``WriterPolicy.default().model_dump()``."""
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError, ValidationError) as exc:
            raise PolicyError(f"writer policy {path}: {exc}") from exc


class GateDecision(BaseModel):
    model_config = ConfigDict(frozen=True)

    admitted: bool
    reason: str


def admit(
    policy: WriterPolicy,
    *,
    source: str,
    kind: Kind,
    subject: str,
    predicate: str,
    owners: tuple[str, ...] = (),
    channel: Channel | None = None,
) -> GateDecision:
    """Decide whether ``source`` may write a ``kind`` fact ``subject.predicate``.

    Ingest always passes the episode's ``channel``; without one (a preview, a worker's own
    write) rules restricted to channels are judged on the writer alone. A reserved slot
    (:class:`ReservedSlot`) and an identity claim (``same_as``) are judged before the rules.
    """
    for slot in policy.reserved:
        if slot.covers(subject, predicate):
            if slot.allows(source, kind, channel):
                return GateDecision(admitted=True,
                                    reason=f"{policy.name}: reserved {subject}.{predicate}")
            by = ", ".join(slot.writers) or "nobody"
            over = "/".join(c.value for c in slot.channels)
            return GateDecision(admitted=False,
                                reason=f"{subject}.{predicate} is reserved to {by} over {over}")
    if predicate == SAME_AS and not may_claim_identity(policy, source):
        return GateDecision(admitted=False,
                            reason=f"{source} may not claim {subject}.same_as: identity claims "
                            "are the user's conversation's (or a person's merge)")
    for rule in policy.rules:
        if rule.kind == kind and rule.allows(source, subject, predicate, owners, channel):
            return GateDecision(admitted=True, reason=f"{policy.name}: {kind.value} by {source}")
    over = f" over {channel.value}" if channel is not None else ""
    return GateDecision(
        admitted=False, reason=f"{source} may not write {kind.value} {subject}.{predicate}{over}"
    )


def may_claim_identity(policy: WriterPolicy, writer: str) -> bool:
    """Whether ``writer`` may claim that two entities are the same (``same_as``)."""
    return any(w == "*" or w == writer for w in policy.identity_writers)


def may_describe(
    policy: WriterPolicy,
    *,
    source: str,
    entity_id: str,
    owners: tuple[str, ...] = (),
    channel: Channel | None = None,
) -> GateDecision:
    """Whether what ``source`` says about ``entity_id`` (a mention's name, identifiers and
    context, an entity's name) may enter its identity: only if the gate admits ``source``
    writing some kind of fact about it (predicate ``identity``). A restaurant that may write
    nothing about the user's contact adds no phone number to it either.

    >>> may_describe(WriterPolicy.default(), source="restaurant", entity_id="alice").reason
    'restaurant may not describe alice: it may write no fact about it'
    """
    for kind in Kind:
        decision = admit(policy, source=source, kind=kind, subject=entity_id,
                         predicate=IDENTITY_PREDICATE, owners=owners, channel=channel)
        if decision.admitted:
            return decision
    return GateDecision(admitted=False,
                        reason=f"{source} may not describe {entity_id}: it may write no fact "
                        "about it")


def owners_of(
    policy: WriterPolicy, entity_id: str, stored: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """Who owns ``entity_id``: the owners stored with it plus those the policy grants."""
    granted = (
        owner
        for grant in policy.owners
        if any(fnmatchcase(entity_id, pattern) for pattern in grant.entities)
        for owner in grant.owners
    )
    return tuple(dict.fromkeys((*stored, *granted)))


def may_assign(
    policy: WriterPolicy,
    *,
    source: str,
    entity_id: str,
    current: tuple[str, ...],
    declared: tuple[str, ...],
) -> GateDecision:
    """Whether ``source`` may add the owners in ``declared`` that ``entity_id`` lacks.

    Declaring owners an entity already has is no change and always passes. Adding any is an
    ownership write: refused unless ``source`` is an owner assigner, and refused for everyone
    when ``source`` would add itself (a third party making itself an owner is the attack).
    """
    added = tuple(o for o in declared if o not in current)
    if not added:
        return GateDecision(admitted=True, reason="no new owners")
    if source in added:
        return GateDecision(
            admitted=False, reason=f"{source} may not make itself an owner of {entity_id}"
        )
    if not any(a == "*" or a == source for a in policy.owner_assigners):
        return GateDecision(
            admitted=False,
            reason=f"{source} may not assign owners ({', '.join(added)}) of {entity_id}",
        )
    return GateDecision(admitted=True, reason=f"{policy.name}: {source} assigns owners")


def may_end(
    entity: Entity | None, source: str, owners: tuple[str, ...] | None = None
) -> GateDecision:
    """Whether ``source`` may emit a lifecycle event on ``entity`` (it must own it).

    ``owners`` overrides the entity's stored owners (pass :func:`owners_of` to include the
    policy's grants)."""
    if entity is None:
        return GateDecision(admitted=False, reason="unknown entity")
    if source not in (entity.owners if owners is None else owners):
        return GateDecision(admitted=False, reason=f"{source} does not own {entity.entity_id}")
    return GateDecision(admitted=True, reason=f"{source} owns {entity.entity_id}")
