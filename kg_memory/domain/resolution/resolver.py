"""The resolver: a pure function from a mention and a blocking index to a decision.

For each candidate the blocking index proposes (same scope, similar name or a shared
identifier), :func:`resolve`

1. compares every field (:func:`~kg_memory.domain.resolution.comparison.compare`),
2. applies the vetoes: a conflicting user id or a type mismatch forbids a merge outright,
3. weighs each field level by ``log2(m/u)`` and adds any scorer evidence (clipped),
4. starts from a prior that shrinks with every other same-name entity in scope and with how
   common the name is, and turns prior odds plus weights into a posterior, and
5. decides. MERGE needs *all* of

   * a posterior at or above the merge threshold;
   * at least one agreeing field other than the name (a scorer's opinion does not count),
     together carrying at least ``min_corroboration`` bits;
   * no contradiction on a distinguishing field (an identifier, employer, project or
     co-mentioned entity) unless another distinguishing field agrees: a shared city and
     relation do not outvote "but she works at Globex"; nor two contradicting generic fields
     (another postcode *and* house number) with nothing distinguishing agreeing;
   * when several entities in scope could carry the name, a distinguishing field that agrees:
     two John Smiths may both live in Leeds, so "John Smith from Leeds" is a REVIEW;
   * no contradicting given or family name, unless a user id agrees (a household phone or a
     team inbox is shared; an account is not) or the record explains it (a near given name or
     a changed family name, with the birth date and address: ``merge_rules._name_explained``);
   * when either side has only part of a name ("Jo", "Dr Okafor"), a distinguishing field or
     two other fields that agree: a bare first name and a shared city say almost nothing;
   * no veto (conflicting user id, type mismatch); and
   * no rival: no other unvetoed candidate also reaching the rival threshold within
     ``rival_margin`` bits of the winner, except the winner's own family: an earlier REVIEW's
     provisional copy of the winner (or the entity the winner is a copy of) is the same
     candidate seen twice; nor a rival that a distinguishing field contradicts which agrees
     exactly with a winner nothing distinguishing contradicts (another John Smith's birth
     date). A REVIEW whose candidates are all one family says so in
     ``copy_of``, and the caller records it on the provisional entity; a REVIEW between two
     families links nothing, so two namesakes never become one family.

   Below the keep-apart threshold, or vetoed, a candidate is KEPT APART. Anything else is
   REVIEW: the caller creates a provisional entity linked POSSIBLE_SAME_AS to the candidates.

So a lone same-name candidate with nothing else agreeing is never merged, however rare the name.

The resolver never reads a clock (``now`` is passed in) and never touches a store.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime

from kg_memory.domain.errors import ResolutionError
from kg_memory.domain.instant import ensure_utc
from kg_memory.domain.resolution.blocking import BlockingIndex, Candidate
from kg_memory.domain.resolution.comparison import FieldComparison, compare
from kg_memory.domain.resolution.config import DEFAULT_CONFIG, ResolverConfig
from kg_memory.domain.resolution.decision import (
    RESOLVER,
    CandidateEvidence,
    Outcome,
    ResolutionDecision,
    decision_id,
)
from kg_memory.domain.resolution.evidence_table import evidence_table
from kg_memory.domain.resolution.field import (
    CORROBORATING_FIELDS,
    Field,
    Level,
)
from kg_memory.domain.resolution.manual import honour
from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.merge_rules import (
    candidate_outcome,
    check_custom,
    contradicted_rival,
    contradicts_distinguishing,
    name_compatible,
    vetoes,
)
from kg_memory.domain.resolution.names import name_commonness, parse_name
from kg_memory.domain.resolution.record_fields import generation_apart
from kg_memory.domain.resolution.scorer import Scorer, ScorerEvidence

__all__ = ["posterior", "rescore", "resolve"]

_MAX_LOG_ODDS = 60.0  # beyond this the posterior is 0 or 1 to double precision anyway


def posterior(prior: float, weight: float) -> float:
    """Combine a prior probability with a summed weight in bits (Bayes in log-odds form).

    >>> round(posterior(0.5, 3.0), 3)
    0.889
    """
    log_odds = math.log2(prior / (1.0 - prior)) + weight
    log_odds = max(-_MAX_LOG_ODDS, min(_MAX_LOG_ODDS, log_odds))
    return 1.0 / (1.0 + math.pow(2.0, -log_odds))


def _scorer_evidence(
    scorer: Scorer | None, mention: Mention, candidate: Candidate, config: ResolverConfig
) -> tuple[ScorerEvidence, ...]:
    if scorer is None:
        return ()
    opinion = scorer.score(mention, candidate.profile)
    if opinion is None:
        return ()
    raw, reason = opinion
    if not math.isfinite(raw):
        raw = math.copysign(config.max_scorer_weight, raw) if not math.isnan(raw) else 0.0
    cap = config.max_scorer_weight
    return (
        ScorerEvidence(
            scorer=scorer.name, weight=max(-cap, min(cap, raw)), raw_weight=raw, reason=reason
        ),
    )


def _evaluate(
    mention: Mention,
    candidate: Candidate,
    fields: tuple[FieldComparison, ...],
    *,
    same_name: int,
    commonness: float,
    config: ResolverConfig,
    scorer: Scorer | None,
) -> CandidateEvidence:
    entity_id = candidate.profile.entity_id
    of = evidence_table(config).of
    evidence = tuple(of(f) for f in fields)
    found = vetoes(entity_id, fields, config)
    # A scorer is never consulted about a vetoed candidate: nothing it says could matter.
    scored = () if found else _scorer_evidence(scorer, mention, candidate, config)
    weight = sum(e.weight for e in evidence) + sum(s.weight for s in scored)
    prior = config.prior.probability(same_name, commonness)
    post = posterior(prior, weight)
    corroborated = tuple(
        e.field
        for e in evidence
        if (e.field in CORROBORATING_FIELDS or not isinstance(e.field, Field))
        and e.level in (Level.EXACT, Level.CLOSE)
        and e.weight > 0
    )
    said = mention.context.birth_date
    apart = said is not None and generation_apart(
        said, [v.value for v in candidate.profile.values(Field.BIRTH_DATE)]
    )
    outcome, reason = candidate_outcome(
        post, found, corroborated, evidence, same_name, config, generation_apart=apart
    )
    return CandidateEvidence(
        entity_id=entity_id,
        blocking_keys=candidate.keys,
        fields=evidence,
        scorers=scored,
        same_name_candidates=same_name,
        name_commonness=commonness,
        prior=prior,
        weight=weight,
        posterior=post,
        vetoes=found,
        corroborated_by=corroborated,
        outcome=outcome,
        reason=reason,
        episode_ids=candidate.profile.episode_ids,
    )


def _demote(c: CandidateEvidence, why: str) -> CandidateEvidence:
    return c.model_copy(update={"outcome": Outcome.REVIEW, "reason": f"{c.reason}; {why}"})


def _log_odds(c: CandidateEvidence) -> float:
    return math.log2(c.prior / (1.0 - c.prior)) + c.weight


def _decide(
    evidence: list[CandidateEvidence], families: Mapping[str, str], config: ResolverConfig
) -> tuple[Outcome, str | None, tuple[str, ...], str, list[CandidateEvidence]]:
    """Combine per-candidate outcomes into one: (outcome, entity, possible_same_as, reason).

    ``families`` maps each candidate to its family (:attr:`EntityProfile.family`): a rival of
    the winner's own family is the same entity seen twice (an earlier REVIEW's provisional copy
    of it), so it never makes the merge ambiguous.
    """
    merges = [c for c in evidence if c.outcome is Outcome.MERGE]
    floor = config.thresholds.rival_floor
    rivals = [c for c in evidence if not c.vetoes and c.posterior >= floor]
    if merges:
        best = max(merges, key=lambda c: (_log_odds(c), c.entity_id))
        if name_compatible(best.fields):
            # "Melinda Sandman" does not mean "Jaes Sandman", however alike their records
            # (twins): only a candidate that could carry the mention's name is a rival.
            rivals = [c for c in rivals if name_compatible(c.fields)]
        if config.contradicted_rival_is_no_rival:
            # Another John Smith whose birth date the mention contradicts, where the winner's
            # agrees exactly, is a namesake the winner beats, not an ambiguity.
            merges = [c for c in merges if c is best or not contradicted_rival(
                best.fields, c.fields, config)]
            rivals = [c for c in rivals if c is best or not contradicted_rival(
                best.fields, c.fields, config)]
        kin = families[best.entity_id]
        merges = [c for c in merges if c is best or families[c.entity_id] != kin]
        rivals = [c for c in rivals if c is best or families[c.entity_id] != kin]
        if config.rival_margin is not None:
            # Only a rival whose log-odds come within the margin of the best merge makes it
            # ambiguous; a far weaker one is a namesake the winner beats.
            close = [c for c in rivals if _log_odds(c) >= _log_odds(best) - config.rival_margin]
            if len(close) == 1:
                merges, rivals = [best], [best]
    if len(merges) == 1 and len(rivals) == 1:
        (winner,) = merges
        return Outcome.MERGE, winner.entity_id, (), winner.reason, evidence
    if merges:
        ids = {c.entity_id for c in (*merges, *rivals)}
        why = f"ambiguous: another candidate also reaches posterior {floor}"
        evidence = [_demote(c, why) if c.entity_id in ids else c for c in evidence]
    review = tuple(c.entity_id for c in evidence if c.outcome is Outcome.REVIEW)
    if review:
        best = max(
            (c for c in evidence if c.outcome is Outcome.REVIEW),
            key=lambda c: (c.posterior, c.entity_id),
        )
        return Outcome.REVIEW, None, review, best.reason, evidence
    if not evidence:
        return Outcome.KEEP_APART, None, (), "no candidate in scope shares a blocking key", []
    return Outcome.KEEP_APART, None, (), "every candidate vetoed or improbable", evidence


def _copy_of(
    review: tuple[str, ...],
    evidence: list[CandidateEvidence],
    families: Mapping[str, str],
    config: ResolverConfig,
) -> str | None:
    """The family a REVIEW's provisional entity joins: the one family every candidate it may be
    the same as belongs to, when the mention's name contradicts none of them. Between two
    families (two namesakes) it joins none, so a REVIEW never links different entities into
    one family; nor when a name part contradicts (another given name with the same surname,
    birth date and address is a twin as often as a replaced name), nor when a distinguishing
    field contradicts (another John Smith with another birth date is a namesake, not a copy)."""
    kin = {families[e] for e in review}
    named = [c for c in evidence if c.entity_id in review]
    if len(kin) != 1 or not all(
        name_compatible(c.fields) and not contradicts_distinguishing(c.fields, config)
        for c in named
    ):
        return None
    return kin.pop()


def resolve(
    mention: Mention,
    index: BlockingIndex,
    *,
    now: datetime,
    config: ResolverConfig = DEFAULT_CONFIG,
    scorer: Scorer | None = None,
    manual: ResolutionDecision | None = None,
    exclude: Iterable[str] = (),
) -> ResolutionDecision:
    """Resolve ``mention`` against the profiles ``index`` proposes in the mention's scope.

    ``now`` becomes ``decided_at``. With ``manual`` (a person's decision about this mention),
    the person's outcome is returned unchanged, with the resolver's evidence attached and its
    own conclusion kept in ``automatic_outcome`` for audit. ``exclude`` names entity ids not
    to consider (a REVIEW's provisional entity).
    """
    decided_at = ensure_utc(now, what="now")
    check_custom(mention, config)
    candidates = [
        c
        for c in index.candidates(mention, exclude=exclude)
        if c.profile.scope == mention.scope  # the index guarantees it; resolution relies on it
    ]
    rules = dict(config.identifiers)
    compared = [
        (
            c,
            compare(
                mention,
                c.profile,
                single_valued=config.single_valued,
                identifiers=rules,
                custom=config.custom,
                respaced_names=config.respaced_names,
            ),
        )
        for c in candidates
    ]
    same_name = sum(1 for _, fields in compared if name_compatible(fields))
    commonness = name_commonness(parse_name(mention.name))
    evidence = [
        _evaluate(
            mention,
            c,
            fields,
            same_name=same_name,
            commonness=commonness,
            config=config,
            scorer=scorer,
        )
        for c, fields in compared
    ]
    families = {c.profile.entity_id: c.profile.family for c, _ in compared}
    outcome, entity_id, review, reason, evidence = _decide(evidence, families, config)
    open_ = [c for c in evidence if not c.vetoes] or evidence
    best = max(open_, key=lambda c: (c.posterior, c.entity_id)) if open_ else None
    episodes = {mention.episode_id}
    for c in evidence:
        episodes.update(c.episode_ids)
    automatic = ResolutionDecision(
        decision_id=decision_id(mention.mention_id, RESOLVER, decided_at),
        mention=mention,
        outcome=outcome,
        entity_id=entity_id,
        possible_same_as=review,
        candidates=tuple(evidence),
        prior=None if best is None else best.prior,
        posterior=None if best is None else best.posterior,
        vetoes=tuple(v for c in evidence for v in c.vetoes),
        thresholds=config.thresholds,
        rule_version=config.rule_version,
        source_episode_ids=tuple(sorted(episodes)),
        decided_by=RESOLVER,
        decided_at=decided_at,
        reason=reason,
        automatic_outcome=outcome,
        copy_of=_copy_of(review, evidence, families, config) if review else None,
    )
    return automatic if manual is None else honour(manual, automatic)


def rescore(
    decision: ResolutionDecision,
    index: BlockingIndex,
    *,
    now: datetime,
    mention: Mention | None = None,
    config: ResolverConfig = DEFAULT_CONFIG,
    scorer: Scorer | None = None,
    exclude: Iterable[str] = (),
) -> ResolutionDecision:
    """Re-evaluate a REVIEW decision once new evidence has arrived.

    ``mention`` is the updated mention (same ``mention_id``; defaults to the decision's) and
    ``index`` the updated profiles; pass the provisional entity's id in ``exclude`` so the
    mention is not compared with itself. The result ``supersedes`` the old decision.

    Only an automatic REVIEW is re-opened. A manual decision is returned with fresh evidence but
    its outcome untouched; an automatic MERGE or KEEP_APART is returned as it is (undo a merge
    with :func:`~kg_memory.domain.resolution.unmerge.unmerge`).
    """
    updated = decision.mention if mention is None else mention
    if updated.mention_id != decision.mention.mention_id:
        raise ResolutionError(
            f"cannot re-score decision {decision.decision_id} with mention {updated.mention_id}"
        )
    if decision.is_manual:
        return resolve(
            updated, index, now=now, config=config, scorer=scorer, manual=decision, exclude=exclude
        )
    if decision.outcome is not Outcome.REVIEW:
        return decision
    fresh = resolve(updated, index, now=now, config=config, scorer=scorer, exclude=exclude)
    return fresh.model_copy(update={"supersedes": decision.decision_id})
