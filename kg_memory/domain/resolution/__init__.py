"""Entity resolution: decide whether a mention ("Jo", "John Smith from Acme") is an entity the
memory already knows, a new one, or too close to call, and keep the evidence.

The resolver is deterministic and pure: it reads a :class:`Mention` and a :class:`BlockingIndex`
of :class:`EntityProfile` values, takes ``now`` as an argument, and returns a frozen
:class:`ResolutionDecision`. It never reads a clock and never touches a store; the caller
applies the outcome:

* ``MERGE``: attach the mention to ``decision.entity_id``;
* ``KEEP_APART``: create a new entity;
* ``REVIEW``: create a *provisional* new entity linked ``POSSIBLE_SAME_AS`` to each id in
  ``decision.possible_same_as``, and never pool facts across that link. Re-score it with
  :func:`rescore` when new evidence arrives.

It keeps same-name people apart. Candidates come only from blocking keys within the mention's
scope (names, nicknames, a phonetic key, identifiers). Each field is compared separately
(:class:`Field`, :class:`Level`) and weighed Fellegi-Sunter style (``log2(m/u)``) under a
frozen, versioned :class:`ResolverConfig`; the prior shrinks with every same-name entity in
scope and for common names. A MERGE needs a high posterior *and* an agreeing field other than
the name *and* no veto, among other guards, so a lone same-name candidate is never enough.

A person's decision (:func:`manual_decision`) is a ``ResolutionDecision`` too, and the resolver
never overturns it: ``resolve(..., manual=decision)`` returns the person's outcome with the
automatic evidence attached. :func:`unmerge` plans how to split a wrong merge's facts back by
lineage. A learned :class:`Scorer` can add clipped evidence but can neither override a veto nor
stand in for an agreeing field.

>>> from datetime import UTC, datetime
>>> at = datetime(2026, 1, 5, 9, tzinfo=UTC)
>>> index = BlockingIndex([
...     EntityProfile(entity_id="jo-1", names=("Jo",),
...                   identifiers=(Identifier(kind=IdentifierKind.USER_ID, value="j17"),)),
...     EntityProfile(entity_id="jo-2", names=("Jo",)),
... ])
>>> resolve(Mention(mention_id="m1", name="Jo", episode_id="e1", at=at), index, now=at).outcome
<Outcome.REVIEW: 'review'>
>>> j17 = (Identifier(kind=IdentifierKind.USER_ID, value="j17"),)
>>> decision = resolve(Mention(mention_id="m2", name="Jo", identifiers=j17, episode_id="e2",
...                            at=at), index, now=at)
>>> decision.outcome, decision.entity_id
(<Outcome.MERGE: 'merge'>, 'jo-1')

Integrating with a store (the resolver leaves all of this to the caller):

* build one :class:`EntityProfile` per entity in a scope: its name and aliases, identifiers,
  context attributes with their valid intervals (from assertions), entities it is often
  mentioned with, and ``episode_ids``, its lineage (the episodes that support it; unmerging
  needs them);
* build a :class:`BlockingIndex` from the profiles the transaction sees (or
  :meth:`BlockingIndex.with_profiles` for an updated copy) and call :func:`resolve`; or, for
  a stream of mentions outside a store, use :class:`IncrementalResolver`, whose
  :meth:`~IncrementalResolver.add` returns the decision and the grown profile and updates its
  :class:`UpdatableIndex` in place (:func:`grow_profile` is the growing step on its own);
* persist every :class:`ResolutionDecision` as JSON (``model_dump_json`` round-trips), with
  ``decision_id`` as its key; a person's correction is another decision from
  :func:`manual_decision`, passed back as ``manual=`` whenever that mention is resolved again;
* represent REVIEW as a provisional entity plus a POSSIBLE_SAME_AS link per id in
  ``possible_same_as`` (the core model has no such edge type yet), and pass the provisional
  entity's id in ``exclude`` when re-scoring.

Measure it with :func:`kg_memory.bench.resolution.evaluate` on the committed corpus, or run
``python -m kg_memory.bench.resolution`` (``python -m kg_memory.bench.resolution corpus DIR``
regenerates the corpus).
"""

from kg_memory.domain.errors import ResolutionError
from kg_memory.domain.resolution.blocking import (
    BlockingIndex,
    Candidate,
    grown_profile_keys,
    lookup_keys,
    mention_keys,
    profile_keys,
)
from kg_memory.domain.resolution.comparison import FieldComparison, compare
from kg_memory.domain.resolution.config import (
    DEFAULT_CONFIG,
    CustomAttribute,
    FieldParams,
    IdentifierRule,
    LevelParams,
    PriorParams,
    ResolverConfig,
    Thresholds,
)
from kg_memory.domain.resolution.decision import (
    RESOLVER,
    CandidateEvidence,
    FieldEvidence,
    Outcome,
    ResolutionDecision,
    Veto,
    VetoReason,
)
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.incremental import (
    Added,
    IncrementalResolver,
    UpdatableIndex,
    new_entity_id,
)
from kg_memory.domain.resolution.manual import manual_decision
from kg_memory.domain.resolution.mention import Context, Identifier, IdentifierKind, Mention
from kg_memory.domain.resolution.names import PersonName, format_name, parse_name
from kg_memory.domain.resolution.profile import (
    AttributeValue,
    Declaration,
    EntityProfile,
    grow_profile,
)
from kg_memory.domain.resolution.record_fields import Comparator
from kg_memory.domain.resolution.resolver import posterior, rescore, resolve
from kg_memory.domain.resolution.scorer import ConstantScorer, Scorer, ScorerEvidence
from kg_memory.domain.resolution.unmerge import AttachedFact, FactAssignment, UnmergePlan, unmerge

__all__ = [
    "DEFAULT_CONFIG",
    "RESOLVER",
    "Added",
    "AttachedFact",
    "AttributeValue",
    "BlockingIndex",
    "Candidate",
    "CandidateEvidence",
    "Comparator",
    "ConstantScorer",
    "Context",
    "CustomAttribute",
    "Declaration",
    "EntityProfile",
    "FactAssignment",
    "Field",
    "FieldComparison",
    "FieldEvidence",
    "FieldParams",
    "Identifier",
    "IdentifierKind",
    "IdentifierRule",
    "IncrementalResolver",
    "Level",
    "LevelParams",
    "Mention",
    "Outcome",
    "PersonName",
    "PriorParams",
    "ResolutionDecision",
    "ResolutionError",
    "ResolverConfig",
    "Scorer",
    "ScorerEvidence",
    "Thresholds",
    "UnmergePlan",
    "UpdatableIndex",
    "Veto",
    "VetoReason",
    "compare",
    "format_name",
    "grow_profile",
    "grown_profile_keys",
    "lookup_keys",
    "manual_decision",
    "mention_keys",
    "new_entity_id",
    "parse_name",
    "posterior",
    "profile_keys",
    "rescore",
    "resolve",
    "unmerge",
]
