"""What a lineage plan cannot see: unlinked copies of the forgotten text, and the entities the
forgotten input alone created.

A forget plan (:mod:`kg_memory.domain.forgetting`) follows edges. Two things escape it:

* **residues**: the same text stored where no edge leads back to the forgotten input (the
  user's deletion request quoting it, another episode pasting it, an audit row, a profile). They
  are found by searching the retained text of the same scope for each erased value, sentence
  and entity name (:mod:`kg_memory.domain.residue`), and redacted span by span, so the rest of
  an episode and whatever it supports are kept;
* **entities** nothing retained refers to once the plan is carried out: their ids and names are
  user-chosen text, so they go with the input that created them.

The search reads the scope's episodes, refusals, identity documents, live derived records and
rule documents: its cost grows with the scope (with its episodes and refusals above all), which
is why only forget runs pay it. Assertions and entities are not read whole: the live derived
records and the erased entities' names are asked for by themselves. A rule's copies
are not cut here as text: the rule book decides (redact, or review when its content changed;
:func:`~kg_memory.domain.rule_review.forget_words`), and the run cuts them with the rule's other
changes (:mod:`kg_memory.services.rule_basis`).
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.forgetting import ForgetPlan
from kg_memory.domain.model import EdgeType
from kg_memory.domain.residue import Matcher, Residue, needles, redact
from kg_memory.domain.rule_review import RuleForget
from kg_memory.services.identity import DECISION, PROFILE, Resolved
from kg_memory.services.rule_basis import plan_rule_forgetting
from kg_memory.services.rules import RULE
from kg_memory.store.protocol import Store, Transaction

__all__ = [
    "Redaction",
    "ResidueSearch",
    "find_residues",
    "orphaned_entities",
    "redact_residues",
    "unnamed_entities",
]

class Redaction(BaseModel):
    """One residue and how to remove it: the text it becomes (or, for a derived record, that
    it is rebuilt from its sources)."""

    model_config = ConfigDict(frozen=True)

    residue: Residue
    scope: str
    key: str = ""  # a document's key, or a refusal's current text
    text: str = ""  # the redacted text


def _scopes(store: Store, plan: ForgetPlan) -> set[str]:
    scopes = {e.scope for e in store.episodes([*plan.erase, *plan.redact])}
    scopes |= {v.scope for v in store.revisions([*plan.delete, *plan.rebuild])}
    if (plan.entities or plan.unnamed) and plan.selector.scope is not None:
        scopes.add(plan.selector.scope)  # an entity's name goes even when no fact does
    return scopes


def _folded(name: str) -> str:
    return " ".join(name.split()).casefold()


def _erased_names(store: Store, plan: ForgetPlan) -> list[str]:
    """The names the plan erases: those of the entities that go and of those that lose their
    name. A name a kept entity of the scope still bears is left out: it names that entity
    too (two people of one name stay two people), so it is not erased text."""
    gone = set(plan.entities) | set(plan.unnamed)
    if not gone or plan.selector.scope is None:
        return []
    # The gone entities' names first, by id: a cascade's entities often have none (a feed's
    # subjects), and then the tenant's other entities need not be read at all.
    names = store.entity_names(sorted(gone), plan.selector.scope)
    if not names:
        return []
    held = {_folded(entity.name) for entity in store.entities(plan.selector.scope)
            if entity.name is not None and entity.entity_id not in gone}
    return [names[e] for e in sorted(names) if _folded(names[e]) not in held]


class ResidueSearch(BaseModel):
    """What a forget run found, and the compiled needles to cut it with."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    found: tuple[Redaction, ...] = ()
    match: Matcher | None = None
    #: the plan's rule entries once the copies in rules' words are cut (empty: no needles)
    rules: tuple[RuleForget, ...] = ()


def _mentioned(store: Store, scopes: set[str], erased: set[str]) -> list[str]:
    """Names and identifier values the erased episodes' mentions gave identity resolution:
    other decisions quote them as evidence ("'Zed' vs 'Zedwina Q.'")."""
    said: list[str] = []
    for scope in sorted(scopes):
        for body in store.documents(DECISION, scope):
            mention = Resolved.model_validate_json(body).decision.mention
            if mention.episode_id in erased:
                said.append(mention.name)
                said.extend(i.value for i in mention.identifiers)
    return said


def find_residues(store: Store, plan: ForgetPlan) -> ResidueSearch:
    """Every retained copy of what ``plan`` erases, in the scopes it touches.

    Run before the plan is carried out: the needles are read from what is about to go.
    """
    gone_episodes = set(plan.erase) | set(plan.redact)
    gone_facts = set(plan.delete) | set(plan.rebuild)
    scopes = _scopes(store, plan)
    search = needles(
        [*(v.value for v in store.revisions(list(plan.delete)) if v.kind != "derived"),
         *_mentioned(store, scopes, set(plan.erase)), *_erased_names(store, plan)],
        [e.content for e in store.episodes(list(plan.erase))],
        [e.content for e in store.episodes(list(plan.redact))],
    )
    if not search:
        return ResidueSearch()
    match = Matcher(search)
    found: list[Redaction] = []
    for scope in sorted(scopes):
        for episode_id, content in store.episode_texts(scope):
            if episode_id in gone_episodes:
                continue
            spans = match.spans(content)
            if spans:
                found.append(Redaction(
                    residue=Residue(where="episode", node=episode_id, spans=len(spans)),
                    scope=scope, text=redact(content, spans)))
        for refusal in store.refusals(scope):
            if refusal.episode_id in gone_episodes:
                continue
            spans = match.spans(refusal.what)
            if spans:
                found.append(Redaction(
                    residue=Residue(where="refusal", node=refusal.episode_id, spans=len(spans)),
                    scope=scope, key=refusal.what, text=redact(refusal.what, spans)))
        for kind in (PROFILE, DECISION):
            # An erased entity's profile goes whole (forget_identity): not a retained copy.
            found.extend(_document_residues(store, kind, scope, match,
                                            set(plan.entities) if kind == PROFILE else set()))
        found.extend(_record_residues(store, scope, match, gone_facts))
    rules: list[RuleForget] = []
    for scope in sorted(scopes):
        entries, _ = plan_rule_forgetting(store, scope, set(plan.erase), match=match)
        rules.extend(entries)
        found.extend(Redaction(residue=Residue(where="document", node=f"{RULE}:{e.rule_id}",
                                               spans=e.cut), scope=scope, key=e.rule_id)
                     for e in entries if e.cut)
    return ResidueSearch(found=tuple(found), match=match, rules=tuple(rules))


def _document_residues(store: Store, kind: str, scope: str, match: Matcher,
                       gone: set[str]) -> list[Redaction]:
    """Identity documents are JSON: a span is cut only where the result is still the same
    document with some of its text replaced (a needle that JSON escapes is left alone).
    The documents keyed ``gone`` are erased with their entities, not searched."""
    found = []
    for body in store.documents(kind, scope):
        spans = match.spans(body)
        if not spans:
            continue
        text = redact(body, spans)
        try:
            parsed = json.loads(text)
        except ValueError:
            continue
        key = str((parsed.get("decision") or {}).get("decision_id", "") if kind == DECISION
                  else parsed.get("entity_id", ""))
        if not key or key in gone:
            continue
        found.append(Redaction(residue=Residue(where="document", node=f"{kind}:{key}",
                                               spans=len(spans)),
                               scope=scope, key=key, text=text))
    return found


def _record_residues(store: Store, scope: str, match: Matcher,
                     gone: set[str]) -> list[Redaction]:
    """Derived records (profiles, summaries) quoting erased text: rebuilt from their sources.

    Only the scope's live derived revisions are read (every assertion of the tenant was read
    before, to keep these: the cost of a forget grew with the tenant)."""
    found: dict[str, int] = {}
    for version in store.live_derived(scope):
        if version.assertion_id in gone:
            continue
        spans = len(match.spans(str(version.value)))
        if spans:
            found[version.assertion_id] = found.get(version.assertion_id, 0) + spans
    return [Redaction(residue=Residue(where="record", node=node, spans=spans), scope=scope)
            for node, spans in sorted(found.items())]


def redact_residues(tx: Transaction, store: Store, search: ResidueSearch) -> None:
    """Cut each residue inside ``tx`` (records are rebuilt by the caller).

    Documents are cut last and as they are now, inside ``tx``: the run has just rewritten
    identity documents, and a body read before it must not overwrite what it wrote.
    """
    for item in search.found:
        where = item.residue.where
        if where == "episode":
            tx.replace_content(item.residue.node, item.text)
        elif where == "refusal":
            tx.rewrite_refusal(item.residue.node, item.key, item.text)
        elif where == "document" and search.match is not None:
            kind = item.residue.node.split(":", 1)[0]
            if kind == RULE:
                continue  # cut with the rule's other changes (apply_rule_forgetting)
            for body in store.documents(kind, item.scope, item.key):
                spans = search.match.spans(body)
                text = redact(body, spans)
                if spans and _still_json(text):
                    tx.put_document(kind, item.key, item.scope, text)


def _still_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def orphaned_entities(store: Store, plan: ForgetPlan, selected: str | None = None
                      ) -> tuple[str, ...]:
    """Entities the plan leaves nothing retained referring to (no edge from a retained node,
    no revision about them, in the plan's scope): the forgotten input alone created them.

    Three reads for the whole candidate set (which are entities, their links, the assertions
    about them), however many there are. Only the plan's scope is read: another tenant's
    entity of the same id is a different entity, and what it refers to must neither keep this
    one nor be counted here."""
    # A rebuilt record lives on under a new id, about the same subject: not gone.
    deleted = store.revisions(list(plan.delete))
    scope = plan.selector.scope
    candidates = {v.subject for v in deleted} | {d for v in deleted for d in v.depends_on}
    for episode, drawn in store.links_of(list(plan.erase), scope).items():
        candidates |= {dst for src, _, dst in drawn if src == episode}
    gone = set(plan.delete) | set(plan.erase)
    chosen = {selected} if selected else set()
    # Only the candidates are looked up (the scope may hold millions of entities).
    order = sorted(store.entity_ids(sorted(candidates - chosen), scope))
    links = store.links_of(order, scope)
    about = store.subject_assertions(order, scope)
    others = {entity: {dst if src == entity else src for src, _, dst in links[entity]}
              for entity in order}
    orphans: set[str] = set()
    # What no longer counts as a reference: the gone nodes, the chosen entity and the orphans
    # found so far, kept as one set (a union per candidate made 1,000 candidates quadratic).
    settled = gone | chosen
    changed = True
    while changed:  # an entity may be referred to only by another orphan (SAME_AS)
        changed = False
        for entity in order:
            if entity not in orphans and others[entity] <= settled and about[entity] <= gone:
                orphans.add(entity)
                settled.add(entity)
                changed = True
    return tuple(sorted(orphans))


def unnamed_entities(store: Store, plan: ForgetPlan) -> tuple[str, ...]:
    """Entities the plan keeps whose name and type the erased episodes gave them.

    An entity's type is set by the first input that refers to it and its name by the first
    that names it (later declarations only fill a missing name), and no per-field lineage is
    kept. So: an entity an erased episode ``MENTIONS`` whose earliest ``MENTIONS`` (by system
    time) is an erased episode's got its name and type from forgotten input, and loses both.
    A kept episode's declaration in the same transaction as the forgotten one, or a later one
    giving the same name, is lost with it (said again, it comes back)."""
    scope = plan.selector.scope
    erased = set(plan.erase)
    mentioned = {dst for drawn in store.links_of(sorted(erased), scope).values()
                 for src, kind, dst in drawn if src in erased and kind == EdgeType.MENTIONS}
    gone = set(plan.entities) | ({plan.selector.value} if plan.selector.kind == "entity"
                                 else set())
    order = sorted(store.entity_ids(sorted(mentioned - gone), scope))
    unnamed = []
    for entity, edges in store.edges_of(order, scope).items():
        first = sorted((e.since, e.src not in erased) for e in edges
                       if e.dst == entity and e.type is EdgeType.MENTIONS)
        if first and not first[0][1]:  # an erased episode referred to it first (or tied)
            unnamed.append(entity)
    return tuple(unnamed)
