"""Forget planning: which nodes a forget request deletes, rebuilds, restores or retains.

Forgetting is *erasure*, not supersession. Supersession and retirement end a fact's validity and
keep its history; forgetting removes the payload from every revision, episode and derivative, so
no as-of query at any earlier system time returns it, and leaves only content-free tombstones.

The plan is chosen by lineage, never by text search, over a graph view of the affected
neighbourhood (see :func:`kg_memory.services.lineage.forget_view`):

* **delete**: assertions selected, or left with no surviving support; derived records all of
  whose sources are deleted;
* **rebuild**: derived records with mixed sources, recomputed from the surviving evidence as a
  new revision (the old one, which may quote forgotten content, is erased);
* **erase** / **redact**: episodes whose every supported fact is forgotten lose their record;
  episodes that also support surviving facts keep their node but lose their content;
* **restore**: facts that a forgotten assertion superseded, or a forgotten episode invalidated,
  regain the valid time they lost (Graphiti leaves them invalidated);
* **retire**: believed facts that ``DEPENDS_ON`` a deleted one, transitively (their dependents
  too), are retired as the write path retires a fact whose dependency ended (system interval
  closed, reason ``retired``, history kept) but over their whole valid time, since an erased
  fact never held in any history that remains
  (:func:`kg_memory.domain.dependency.retirement_walk`, the write path's walk). Their stored
  reference to the erased fact is its opaque id alone, the digest the dependency index and
  both stores keep: derived from the fact's scope, operation id and position, never from its
  value, subject or predicate (someone who guesses the scope and operation id can confirm
  that such a fact existed, which a replay's refusal tells a sender anyway); the fact it named
  is gone. A forgotten entity (the ``grounds`` of :func:`plan_forget`) retires what depends on
  it the same way; its id, user-chosen text, does not stay in those dependents: the run
  replaces it, in every revision and the dependency index, by the entity's tombstone reference
  (:func:`kg_memory.services.forget_repair.entity_reference`);
* **retain**: everything else in view.

The service then adds what lineage cannot see: the **entities** left unreferenced, and the
**residues**, unlinked copies of the erased text in what is retained (see
:mod:`kg_memory.domain.residue`).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from kg_memory.domain.dependency import ALWAYS, retirement_walk
from kg_memory.domain.errors import InvalidArgument
from kg_memory.domain.model import Assertion, EdgeType
from kg_memory.domain.residue import Residue
from kg_memory.domain.rule_review import RuleForget
from kg_memory.domain.tombstone_keys import (
    EVIDENCE,
    evidence_key,
    node_key,
    operation_key,
    tombstone_key,
)

__all__ = [
    "EVIDENCE",
    "ID_KINDS",
    "ForgetPlan",
    "LineageView",
    "Selector",
    "evidence_key",
    "node_key",
    "operation_key",
    "plan_forget",
    "tombstone_key",
]

SelectorKind = Literal["episode", "operation", "assertion", "entity", "source", "category"]

#: The kinds that name one node by its id: naming one that does not exist is NotFound.
ID_KINDS: tuple[SelectorKind, ...] = ("episode", "operation", "assertion", "entity")


class Selector(BaseModel):
    """What to forget. Parse the CLI form with :meth:`parse`:

    ``episode:ep_…@SCOPE``, ``operation:OP@SCOPE`` (the episode ingested under operation id
    ``OP``, the id its writer chose), ``assertion:as_…@SCOPE``, ``entity:R1@SCOPE``,
    ``source:restaurant@SCOPE`` (everything that source sent in that scope) and
    ``category:SCOPE/SUBJECT/PREDICATE_GLOB[@PROJECT]`` (e.g. ``category:j17/j17/report_*@c1``,
    Cedar reporting preferences of user j17).

    A selector acts within its one scope: ``entity:ana@u1`` never touches u2's ``ana``. A
    selector without ``@SCOPE`` is refused by the forget run unless the caller explicitly asks
    for every scope (``--all-scopes``), an operator's request.

    >>> Selector.parse("entity:ana@u1").scope
    'u1'
    >>> Selector.parse("entity:ana").scope is None
    True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: SelectorKind
    value: str
    scope: str | None = None
    subject: str | None = None
    predicates: str | None = None
    project: str | None = None

    @model_validator(mode="after")
    def _names_what_it_erases(self) -> Selector:
        # A selector built directly (the Python API, an adapter) gets the rules parse()
        # enforces: a category without its subject or globs would otherwise select a whole
        # scope, and a value that disagrees with its parts would print one thing and erase
        # another.
        if not self.value:
            raise ValueError(f"selector value is empty (kind {self.kind!r})")
        if self.scope == "":
            raise ValueError("selector scope is empty: name one, or leave it out (None)")
        if self.kind != "category":
            if (self.subject, self.predicates, self.project) != (None, None, None):
                raise ValueError(
                    f"selector of kind {self.kind!r} names no subject, predicates or project")
            return self
        if not (self.scope and self.subject and self.predicates) or self.project == "":
            raise ValueError("a category selector needs scope, subject and predicates "
                             "(SCOPE/SUBJECT/PREDICATE_GLOB[@PROJECT])")
        body = f"{self.scope}/{self.subject}/{self.predicates}"
        if self.value != body + (f"@{self.project}" if self.project else ""):
            raise ValueError(f"category value {self.value!r} disagrees with its scope, "
                             "subject, predicates and project")
        return self

    @classmethod
    def parse(cls, text: str) -> Selector:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # A command line's undecodable bytes arrive as lone surrogates.
            raise InvalidArgument(f"selector {text!r} is not valid Unicode") from None
        kind, sep, rest = text.partition(":")
        if (
            not sep
            or not rest
            or kind not in (*ID_KINDS, "source", "category")
        ):
            raise InvalidArgument(
                f"selector {text!r} must be episode:ID, operation:ID, assertion:ID, entity:ID, "
                "source:NAME[@SCOPE] or category:SCOPE/SUBJECT/PREDICATE_GLOB[@PROJECT]"
            )
        if kind in (*ID_KINDS, "source"):
            # The last "@" splits, so an entity id may itself contain one (entity:a@b.org@u1).
            name, at, scope = rest.rpartition("@")
            if not at:
                name, scope = rest, ""
            if not name or (at and not scope):
                raise InvalidArgument(
                    f"selector {text!r} needs an id before @SCOPE and a scope after")
            return cls(kind=kind, value=name, scope=scope or None)
        if kind == "category":
            body, _, project = rest.partition("@")
            parts = body.split("/")
            if len(parts) != 3 or not all(parts):
                raise InvalidArgument(
                    f"category selector {text!r} needs SCOPE/SUBJECT/PREDICATE_GLOB")
            return cls(
                kind="category",
                # "a/b/c@" has no project: its value is written without the bare "@".
                value=body + (f"@{project}" if project else ""),
                scope=parts[0],
                subject=parts[1],
                predicates=parts[2],
                project=project or None,
            )
        raise AssertionError(kind)  # every kind is handled above

    def in_scope(self, scope: str) -> Selector:
        """The same selector, bound to ``scope`` (a category names its scope already)."""
        if self.kind == "category":
            return self
        return self.model_copy(update={"scope": scope})

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}" + (
            f"@{self.scope}" if self.kind != "category" and self.scope else ""
        )


class ForgetPlan(BaseModel):
    """The exact plan a forget run executes; a dry run prints it and changes nothing."""

    model_config = ConfigDict(frozen=True)

    selector: Selector
    delete: tuple[str, ...] = ()
    rebuild: tuple[str, ...] = ()
    erase: tuple[str, ...] = ()
    redact: tuple[str, ...] = ()
    restore: tuple[str, ...] = ()
    #: Believed facts that depend, directly or through each other, on a deleted fact: retired
    #: whole (their history stays; see the module docstring).
    retire: tuple[str, ...] = ()
    retain: tuple[str, ...] = ()
    #: Entities that go: an entity selector's own (its record, declared or not), and those
    #: nothing retained refers to once the plan is carried out (the forgotten input alone
    #: created them), so their ids and names go too.
    entities: tuple[str, ...] = ()
    #: Entities that stay (kept input refers to them) but whose name and type the forgotten
    #: input gave, first: both go (no name, type ``thing``).
    unnamed: tuple[str, ...] = ()
    #: Residual copies of the erased text in retained episodes, refusals, documents and
    #: derived records of the same scope (see :mod:`kg_memory.domain.residue`).
    residues: tuple[Residue, ...] = ()
    #: Rules whose basis loses observations in erased episodes, and what becomes of each
    #: (trim, review, delete: :mod:`kg_memory.domain.rule_review`).
    rules: tuple[RuleForget, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.delete or self.rebuild or self.erase or self.redact or self.restore
                    or self.retire or self.entities or self.unnamed or self.residues
                    or self.rules)


_NONE: frozenset[str] = frozenset()


class LineageView:
    """The neighbourhood a forget plan reads (built by
    :func:`kg_memory.services.lineage.forget_view`), in lineage orientation: a link points from
    a derivative to its source. Each node has a ``kind`` (episode / assertion / ...); ``derived``
    holds the derived records, ``believed`` each fact's revisions with an open system interval.

    Plain sets by node and relation: a source with 1,000 derivatives has about 5,000 links,
    which a graph library's nodes, edge views and attribute dicts made a fifth of the cascade,
    and the plan asks every node for its sources or derivatives several times."""

    __slots__ = ("_in", "_out", "believed", "derived", "kinds")

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        self.derived: set[str] = set()
        self.believed: dict[str, tuple[Assertion, ...]] = {}
        self._out: dict[tuple[str, str], set[str]] = {}
        self._in: dict[tuple[str, str], set[str]] = {}

    def add_node(self, node: str, kind: str) -> None:
        """Add ``node`` (a node already in view keeps its kind)."""
        self.kinds.setdefault(node, kind)

    def add_link(self, derivative: str, source: str, relation: str) -> None:
        """Add ``derivative -> source`` by ``relation`` (an edge type's value); a link already
        there is one link, as in a multigraph keyed by relation."""
        self._out.setdefault((derivative, relation), set()).add(source)
        self._in.setdefault((source, relation), set()).add(derivative)

    def targets(self, node: str, relation: EdgeType) -> AbstractSet[str]:
        """Nodes ``node`` points at by ``relation`` (derivative -> source orientation)."""
        # An EdgeType is a StrEnum, equal to and hashed as its value: no .value per lookup.
        return self._out.get((node, relation), _NONE)

    def sources(self, node: str, relation: EdgeType) -> AbstractSet[str]:
        """Nodes pointing at ``node`` by ``relation``."""
        return self._in.get((node, relation), _NONE)


def plan_forget(
    view: LineageView, selector: Selector, *, episodes: set[str], assertions: set[str],
    grounds: set[str] | frozenset[str] = frozenset(),
) -> ForgetPlan:
    """Classify every node of ``view`` for forgetting ``episodes`` and ``assertions``, and the
    entities ``grounds`` (what depends on a forgotten entity is retired like what depends on a
    deleted fact).

    ``view`` uses the lineage orientation (links point from a derivative to its source) and
    gives each node its ``kind``, the derived records and each fact's believed revisions (those
    with an open system interval): :class:`LineageView`.
    """
    deleted, erased = set(assertions), set(episodes)
    rebuild: set[str] = set()
    kinds, derived = view.kinds, view.derived
    changed = True
    while changed:  # a deletion can leave a further fact or derivative unsupported
        changed = False
        for node, kind in kinds.items():
            if kind != "assertion" or node in deleted:
                continue
            if node in derived:
                sources = view.targets(node, EdgeType.DERIVED_FROM)
                if sources and sources <= deleted:
                    deleted.add(node)
                    rebuild.discard(node)
                    changed = True
                elif sources & deleted:
                    rebuild.add(node)
                continue
            support = view.targets(node, EdgeType.SUPPORTS)
            if support and support <= erased:
                deleted.add(node)
                changed = True
    # Episodes that only ever supported forgotten facts are the forgotten evidence itself.
    redact: set[str] = set()
    for node, kind in kinds.items():
        if kind != "episode" or node in erased:
            continue
        supported = view.sources(node, EdgeType.SUPPORTS)
        if supported and supported <= deleted:
            erased.add(node)
        elif supported & deleted:
            redact.add(node)
    restore = {older for node in deleted for older in view.targets(node, EdgeType.SUPERSEDES)} | {
        fact for ep in erased for fact in view.sources(ep, EdgeType.INVALIDATES)
    }
    retire = _retirements(view, deleted, grounds)
    # A fact believed on erased ground is retired, not restored; one with no believed revision
    # left and an erased dependency stays as it is (restoring it would make it believed there).
    erased_ground = deleted | retire | set(grounds)
    restore -= deleted | retire | {
        n for n in restore if view.targets(n, EdgeType.DEPENDS_ON) & erased_ground}
    touched = deleted | erased | redact | rebuild | restore | retire
    retain = {n for n, k in kinds.items() if k in ("episode", "assertion") and n not in touched}
    return ForgetPlan(
        selector=selector,
        delete=tuple(sorted(deleted)),
        rebuild=tuple(sorted(rebuild)),
        erase=tuple(sorted(erased)),
        redact=tuple(sorted(redact)),
        restore=tuple(sorted(restore)),
        retire=tuple(sorted(retire)),
        retain=tuple(sorted(retain)),
    )


def _retirements(view: LineageView, deleted: set[str],
                 grounds: set[str] | frozenset[str]) -> set[str]:
    """The facts the run's retirement walk closes: the same walk over the view's believed
    revisions, from every deleted fact and forgotten entity, each closure applied before the
    next step as the transaction applies it."""
    closed: set[tuple[str, int]] = set()

    def live_dependents(key: str) -> list[Assertion]:
        return [v for node in sorted(view.sources(key, EdgeType.DEPENDS_ON) - deleted)
                for v in view.believed.get(node, ())
                if key in v.depends_on and (v.assertion_id, v.revision) not in closed]

    ended = [(a, ALWAYS) for a in (*sorted(deleted), *sorted(set(grounds) - deleted))]
    for step in retirement_walk(ended, live_dependents,
                                episode_id="", erased=True):
        closed |= {(c.assertion_id, c.revision) for c in step.closures}
    return {assertion_id for assertion_id, _ in closed}
