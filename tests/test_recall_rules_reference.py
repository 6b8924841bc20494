"""Recall's pure rules against small independent references: eligibility, BM25, reciprocal-rank
fusion, the boosts, the tokeniser and the labels.

``tests/test_recall_rules.py`` shows the rules by example; here each is restated from its
documentation (Okapi BM25 with Lucene's k1 = 1.2 and b = 0.75, Cormack et al.'s reciprocal rank
with k = 60, seed 002's "eligibility constrains consideration") and compared on generated
input, plus the boundary cases where a flipped comparison would change the answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kg_memory.domain.eligibility import (
    BELIEF,
    BLOCKED,
    KIND,
    REFUSED,
    VALIDITY,
    RecallContext,
    episode_exclusion,
    fact_exclusion,
)
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, Block, Channel, Episode, Kind, Qualifiers
from kg_memory.domain.ranking import (
    AUTHORITY,
    CorpusStats,
    RankingWeights,
    ScoreComponents,
    Scored,
    bm25,
    document_frequencies,
    evidence_quality,
    rank,
    recency,
    specificity,
)
from kg_memory.domain.recall_answer import (
    AskAgain,
    RecallAnswer,
    RecalledEpisode,
    RecallHit,
    episode_label,
    fact_label,
    is_approval,
)
from kg_memory.domain.recall_text import (
    episode_document,
    fact_document,
    query_terms,
    stem,
    terms,
    tokens,
)
from tests.conftest import day

# -- eligibility: every rule, in order, before anything is scored -----------------------------


def _fact(*, valid: tuple[int, int | None] = (0, None), system: tuple[int, int | None] = (0, None),
          kind: Kind = Kind.STATED, predicate: str = "diet", scope: str = "acme") -> Assertion:
    def interval(span: tuple[int, int | None]) -> Interval:
        return Interval(start=day(span[0]), end=None if span[1] is None else day(span[1]))

    return Assertion(assertion_id="as_1", revision=1, scope=scope, subject="j17",
                     predicate=predicate, value="veg", qualifiers=Qualifiers(), kind=kind,
                     writer="user", valid=interval(valid), system=interval(system),
                     recorded_by="ep_1")


def _episode(*, occurred: int = 0, recorded: int = 0, scope: str = "acme") -> Episode:
    return Episode(episode_id="ep_1", operation_id="op-1", source="user", channel=Channel.CHAT,
                   content="I am vegetarian", occurred_at=day(occurred),
                   recorded_at=day(recorded), scope=scope)


def _ctx(at: int = 5, known: int = 5, now: int = 9, kinds: frozenset[Kind] = frozenset(Kind),
         blocks: tuple[Block, ...] = (), rules: tuple[object, ...] = ()) -> RecallContext:
    return RecallContext(scope="acme", at=day(at), known_at=day(known), now=day(now),
                         kinds=kinds, blocks=blocks, rules=rules)  # type: ignore[arg-type]


def _block(created: int, revoked: int | None = None) -> Block:
    return Block(block_id="b1", scope="acme", subject="j17", predicates="di*",
                 created_at=day(created), revoked_at=None if revoked is None else day(revoked))


@dataclass(frozen=True)
class Everything:
    """An added rule that excludes every candidate, so its place in the order shows."""

    name: str = "everything"

    def excludes_fact(self, fact: Assertion, context: RecallContext) -> bool:
        return True

    def excludes_episode(self, episode: Episode, context: RecallContext) -> bool:
        return True


spans = st.tuples(st.integers(0, 8), st.none() | st.integers(1, 4)).map(
    lambda p: (p[0], None if p[1] is None else p[0] + p[1]))


@given(valid=spans, system=spans, at=st.integers(0, 9), known=st.integers(0, 9),
       created=st.integers(0, 9), revoked=st.none() | st.integers(0, 9),
       kind=st.sampled_from(Kind), asked=st.sets(st.sampled_from(Kind), min_size=1),
       extra=st.booleans())
def test_a_fact_is_excluded_by_the_first_rule_it_fails(
    valid: tuple[int, int | None], system: tuple[int, int | None], at: int, known: int,
    created: int, revoked: int | None, kind: Kind, asked: set[Kind], extra: bool
) -> None:
    now = 9

    def inside(span: tuple[int, int | None], t: int) -> bool:
        return span[0] <= t and (span[1] is None or t < span[1])

    def active(t: int) -> bool:
        return created <= t and (revoked is None or revoked > t)

    expected = (BELIEF if not inside(system, known) else VALIDITY if not inside(valid, at)
                else BLOCKED if active(known) or active(now) else KIND if kind not in asked
                else "everything" if extra else None)
    context = _ctx(at=at, known=known, now=now, kinds=frozenset(asked),
                   blocks=(_block(created, revoked),), rules=(Everything(),) if extra else ())
    assert fact_exclusion(_fact(valid=valid, system=system, kind=kind), context) == expected


def test_a_block_is_active_from_its_creation_until_its_revocation() -> None:
    fact = _fact()
    assert fact_exclusion(fact, _ctx(known=5, now=5, blocks=(_block(5),))) == BLOCKED
    assert fact_exclusion(fact, _ctx(known=4, now=4, blocks=(_block(5),))) is None
    assert fact_exclusion(fact, _ctx(known=3, now=5, blocks=(_block(1, 5),))) == BLOCKED
    assert fact_exclusion(fact, _ctx(known=5, now=6, blocks=(_block(1, 5),))) is None
    other = _fact(predicate="phone")
    assert fact_exclusion(other, _ctx(blocks=(_block(1),))) is None


def test_an_episode_is_evidence_from_when_it_was_recorded_and_about_when_it_occurred() -> None:
    assert episode_exclusion(_episode(occurred=5, recorded=5), _ctx(at=5, known=5)) is None
    assert episode_exclusion(_episode(occurred=0, recorded=6), _ctx(at=9, known=5)) == BELIEF
    assert episode_exclusion(_episode(occurred=6, recorded=0), _ctx(at=5, known=9)) == VALIDITY
    assert episode_exclusion(_episode(), _ctx(rules=(Everything(),))) == "everything"


def test_a_candidate_from_another_scope_is_an_error_not_an_exclusion() -> None:
    with pytest.raises(ValueError, match="outside scope"):
        fact_exclusion(_fact(scope="other"), _ctx())
    with pytest.raises(ValueError, match="outside scope"):
        episode_exclusion(_episode(scope="other"), _ctx())


def test_the_counted_rule_names_list_the_added_rules_after_the_built_in_ones() -> None:
    assert _ctx(rules=(Everything(),)).rule_names() == (BELIEF, VALIDITY, BLOCKED, KIND,
                                                        REFUSED, "everything")


# -- BM25, fusion and the boosts --------------------------------------------------------------

K1, B, RRF_K = 1.2, 0.75, 60  # Lucene's BM25 defaults; Cormack et al.'s k
FUSION, ALPHA = "convex", 0.6  # tuned on LoCoMo's tuning conversations (docs/recall.md)
W_SPEC, W_REC, W_EV = 0.3, 0.1, 0.2  # the composite policy's documented weights
VOCAB = ("tea", "green", "milk", "diet", "veg")


def _reference_bm25(doc: list[str], query: tuple[str, ...], docs: list[list[str]]) -> float:
    n_docs = len(docs)
    if not doc or n_docs == 0:
        return 0.0
    avg = sum(len(d) for d in docs) / n_docs
    total = 0.0
    for term in query:
        f = doc.count(term)
        if f:
            n = sum(1 for d in docs if term in d)
            idf = math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
            total += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * len(doc) / avg))
    return total


def _reference_rank(docs: list[Scored], query: tuple[str, ...], corpus: list[list[str]],
                    vectors: dict[str, float] | None, fusion: str = FUSION,
                    alpha: float = ALPHA) -> list[tuple[str, float, float]]:
    lexical = {d.key: _reference_bm25(list(d.terms), query, corpus) for d in docs}
    lexical = {k: v for k, v in lexical.items() if v > 0}
    keys = {d.key for d in docs}
    sims = {k: v for k, v in (vectors or {}).items() if k in keys}

    def ranks(scores: dict[str, float]) -> dict[str, int]:
        return {k: i + 1 for i, k in enumerate(sorted(scores, key=lambda k: (-scores[k], k)))}

    if vectors is None:
        raw = lexical
    elif fusion == "rrf":
        lr, vr = ranks(lexical), ranks(sims)
        raw = {k: sum(1 / (RRF_K + r[k]) for r in (lr, vr) if k in r) for k in lr.keys() | vr}
    else:  # convex: BM25 over the best BM25, a cosine as it is (a negative one adds nothing)
        top = max(lexical.values(), default=1.0)
        raw = {k: alpha * lexical.get(k, 0.0) / top + (1 - alpha) * max(sims.get(k, 0.0), 0.0)
               for k in lexical.keys() | sims}
    best = max(raw.values(), default=0.0)
    out = []
    for d in docs:
        if d.key in raw:
            relevance = raw[d.key] / best if best else 0.0
            boost = 1 + W_SPEC * d.specificity + W_REC * d.recency + W_EV * d.evidence
            out.append((d.key, relevance, relevance * boost))
    return sorted(out, key=lambda r: (-r[2], r[0]))


unit = st.integers(0, 4).map(lambda n: n / 4)
documents = st.lists(st.tuples(st.lists(st.sampled_from(VOCAB), max_size=5), unit, unit, unit),
                     min_size=1, max_size=6)


@given(raw=documents, query=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3),
       sims=st.none() | st.lists(st.integers(-2, 8), max_size=6),
       extra_corpus=st.integers(0, 3),
       fusion=st.sampled_from(("rrf", "convex")), alpha=st.integers(0, 4).map(lambda n: n / 4))
def test_ranking_is_bm25_or_a_fusion_boosted_by_the_documented_weights(
    raw: list[tuple[list[str], float, float, float]], query: list[str],
    sims: list[int] | None, extra_corpus: int, fusion: str, alpha: float
) -> None:
    docs = [Scored(f"d{i}", t, s, r, e) for i, (t, s, r, e) in enumerate(raw)]
    # The corpus may hold documents that are not candidates (ineligible ones still count in N).
    corpus = [list(d.terms) for d in docs] + [["tea", "diet"]] * extra_corpus
    terms_ = tuple(query)
    df = document_frequencies(corpus, terms_)
    assert df == {t: sum(1 for d in corpus if t in d) for t in terms_}
    stats = CorpusStats(documents=len(corpus), tokens=sum(len(d) for d in corpus))
    for d in docs:
        assert bm25(d.terms, terms_, df, stats) == pytest.approx(
            _reference_bm25(list(d.terms), terms_, corpus), rel=1e-9, abs=1e-12)
    vectors = None if sims is None else {
        f"d{i}": s / 8 for i, s in enumerate(sims)} | {"not-a-candidate": 1.0}
    got = rank(docs, terms_, df, stats, vectors=vectors,
               weights=RankingWeights(fusion=fusion, lexical_weight=alpha))
    expected = _reference_rank(docs, terms_, corpus, vectors, fusion, alpha)
    assert [r.key for r in got] == [k for k, _, _ in expected]
    for r, (_, relevance, score) in zip(got, expected, strict=True):
        assert r.relevance == pytest.approx(relevance, rel=1e-9)
        assert r.score == pytest.approx(score, rel=1e-9)


def test_a_ranked_document_carries_its_own_bm25_the_same_float() -> None:
    """The ranking scores every document with bm25's own arithmetic: a rarer term weighs more
    (its idf), so the reported score is the function's, not an approximation of it."""
    docs = [Scored("a", ["tea", "milk"], 0, 0, 0), Scored("b", ["tea"], 0, 0, 0),
            Scored("c", ["milk", "diet", "diet"], 0, 0, 0), Scored("d", ["tea", "diet"], 0, 0, 0)]
    query = ("tea", "milk")
    corpus = [list(d.terms) for d in docs]
    df = document_frequencies(corpus, query)
    stats = CorpusStats(documents=len(corpus), tokens=sum(len(d) for d in corpus))
    got = {r.key: r.bm25 for r in rank(docs, query, df, stats)}
    assert got == {d.key: bm25(d.terms, query, df, stats) for d in docs}
    assert got["a"] == pytest.approx(_reference_bm25(["tea", "milk"], query, corpus), rel=1e-12)
    assert got["c"] > got["b"]  # milk (in two documents) is rarer than tea (in three)


def test_fusion_records_both_ranks_and_a_vector_alone_can_place_a_document() -> None:
    docs = [Scored("a", ["tea"], 0, 0, 0), Scored("b", ["milk"], 0, 0, 0),
            Scored("c", ["tea", "tea"], 0, 0, 0)]
    stats = CorpusStats(documents=3, tokens=4)
    got = {r.key: r for r in rank(docs, ("tea",), {"tea": 2}, stats,
                                  vectors={"a": 0.9, "b": 0.5},
                                  weights=RankingWeights(fusion="rrf"))}
    assert (got["a"].lexical_rank, got["a"].vector_rank, got["a"].vector) == (2, 1, 0.9)
    assert (got["b"].lexical_rank, got["b"].vector_rank, got["b"].bm25) == (None, 2, 0.0)
    assert (got["c"].lexical_rank, got["c"].vector_rank, got["c"].vector) == (1, None, None)
    assert got["a"].relevance == 1.0  # 1/62 + 1/61 is the best fused value
    assert got["b"].relevance == pytest.approx((1 / 62) / (1 / 62 + 1 / 61))


def test_convex_fusion_keeps_the_one_strong_match_above_the_second_rate_in_both_lists() -> None:
    """The labelled set's "who approves Cedar budgets": the answer matches the question's
    words best by far and is no neighbour of it, while other facts are weak matches of both
    lists. Reciprocal ranks cannot tell a strong first from a weak one; magnitudes can."""
    docs = [Scored("answer", ["approv", "budget", "jo"], 0, 0, 0),
            Scored("near1", ["cedar", "status"], 0, 0, 0),
            Scored("near2", ["cedar", "phone"], 0, 0, 0)]
    corpus = [list(d.terms) for d in docs] + [["other"]] * 3
    query = ("approv", "cedar", "budget")
    df = document_frequencies(corpus, query)
    stats = CorpusStats(documents=len(corpus), tokens=sum(len(d) for d in corpus))
    vectors = {"near1": 0.47, "near2": 0.40}  # the answer is below the model's floor
    convex = [r.key for r in rank(docs, query, df, stats, vectors=vectors)]
    rrf = [r.key for r in rank(docs, query, df, stats, vectors=vectors,
                               weights=RankingWeights(fusion="rrf"))]
    assert convex[0] == "answer"
    assert rrf[0] != "answer"


def test_bm25_of_an_empty_document_or_an_empty_corpus_is_zero() -> None:
    assert bm25([], ("tea",), {"tea": 1}, CorpusStats(documents=3, tokens=6)) == 0.0
    assert bm25(["tea"], ("tea",), {"tea": 1}, CorpusStats(documents=0, tokens=0)) == 0.0
    assert CorpusStats(documents=0, tokens=0).average_length == 0.0
    assert CorpusStats(documents=4, tokens=10).average_length == 2.5


def test_bm25_with_k1_zero_is_the_binary_model_each_matching_term_adds_its_idf() -> None:
    """k1 = 0 turns term frequency off (Robertson and Zaragoza's binary model): a matching term
    adds its idf whatever its count and the document's length, and a query term the document
    lacks adds nothing (it must not be divided by its zero saturation)."""
    stats = CorpusStats(documents=4, tokens=12)
    df = {"tea": 1, "milk": 2}
    binary = RankingWeights(k1=0.0)

    def idf(n: int) -> float:
        return math.log(1 + (4 - n + 0.5) / (n + 0.5))

    for doc in (["tea"], ["tea", "tea", "green", "green", "green", "green"]):
        assert bm25(doc, ("tea", "milk"), df, stats, binary) == pytest.approx(idf(1))
    assert bm25(["milk", "tea"], ("tea", "milk"), df, stats, binary) == pytest.approx(
        idf(1) + idf(2))


def test_a_term_missing_from_the_document_frequencies_counts_as_in_no_document() -> None:
    """bm25's rule for an incomplete table: a term ``df`` does not list scores as a term of
    document frequency 0 (the rarest), never as a common one."""
    stats = CorpusStats(documents=4, tokens=10)
    doc = ["green", "tea", "tea"]
    for query in (("tea",), ("green", "tea")):
        rare = bm25(doc, query, dict.fromkeys(query, 0), stats)
        assert bm25(doc, query, {}, stats) == rare
        assert bm25(doc, query, dict.fromkeys(query, 1), stats) < rare


def test_the_default_weights_are_the_documented_ones() -> None:
    w = RankingWeights()
    assert (w.k1, w.b, w.rrf_k) == (K1, B, RRF_K)
    assert (w.specificity, w.recency, w.evidence, w.half_life_days) == (W_SPEC, W_REC, W_EV, 30)
    assert (w.fusion, w.lexical_weight) == (FUSION, ALPHA)


@given(subject=st.none() | st.booleans(), project=st.none() | st.sampled_from((0.0, 0.5, 1.0)))
def test_specificity_is_the_mean_of_what_was_asked(subject: bool | None,
                                                   project: float | None) -> None:
    asked = [float(p) for p in (subject, project) if p is not None]
    assert specificity(subject, project) == (sum(asked) / len(asked) if asked else 0.0)


@given(hours=st.integers(-48, 24 * 400), half_life=st.integers(1, 90))
def test_recency_halves_every_half_life_and_never_exceeds_1(hours: int, half_life: int) -> None:
    at = day(100)
    got = recency(at - timedelta(hours=hours), at, half_life)
    assert got == pytest.approx(0.5 ** (max(hours, 0) / 24 / half_life), rel=1e-12)
    assert recency(None, at, half_life) == 0.0


def test_evidence_ranks_the_users_word_first_and_corroboration_adds_to_it() -> None:
    order = [evidence_quality(k, 1) for k in (Kind.STATED, Kind.WORLD, Kind.DERIVED, Kind.CLAIM)]
    assert order == sorted(order, reverse=True)
    assert len(set(order)) == 4
    assert evidence_quality(None, 1) == evidence_quality(Kind.CLAIM, 1)
    # 1 source: no corroboration; 2: half of it; 3: two thirds (documented).
    assert [evidence_quality(Kind.CLAIM, n) - evidence_quality(Kind.CLAIM, 1)
            for n in (0, 2, 3)] == pytest.approx([0.0, 0.4 * 0.5, 0.4 * 2 / 3])
    for kind in Kind:
        for sources in (1, 2, 10, 10_000):
            assert 0.0 <= evidence_quality(kind, sources) <= 1.0
    assert evidence_quality(Kind.STATED, 10**9) == pytest.approx(1.0)
    assert max(AUTHORITY.values()) == 1.0


def test_a_ranked_document_shows_its_components_without_its_key() -> None:
    [ranked] = rank([Scored("a", ["tea"], 1.0, 0.5, 0.25)], ("tea",), {"tea": 1},
                    CorpusStats(documents=1, tokens=1))
    shown = ranked.components()
    assert type(shown) is ScoreComponents
    assert shown.model_dump() == {
        "bm25": ranked.bm25, "lexical_rank": 1, "vector": None, "vector_rank": None,
        "relevance": 1.0, "specificity": 1.0, "recency": 0.5, "evidence": 0.25,
        "score": ranked.score}


# -- the tokeniser: documents and queries meet on the same terms ------------------------------


@pytest.mark.parametrize(("word", "stemmed"), [
    # Snowball English: plurals, verb endings, derivations
    ("stories", "stor"), ("flies", "fli"), ("booking", "book"), ("booked", "book"),
    ("thing", "thing"), ("sing", "sing"), ("cats", "cat"), ("class", "class"), ("bus", "bus"),
    ("approves", "approv"), ("approved", "approv"), ("prefers", "prefer"), ("tree", "tree"),
    # then a final -i off a stem longer than four letters, so a word and its derivations meet
    ("allergy", "allerg"), ("allergies", "allerg"), ("allergic", "allerg"),
    ("memory", "memor"), ("memorize", "memor"), ("city", "citi"), ("ski", "ski"),
])
def test_stemming_is_snowball_with_derivations_meeting(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_tokens_fold_case_and_accents_and_split_on_every_mark_including_underscore() -> None:
    assert tokens("Café report_FORMAT, x2!") == ["cafe", "report", "format", "x2"]
    assert terms("Deposits booked") == ["deposit", "book"]


def test_query_terms_drop_stopwords_and_repeats_but_documents_keep_both() -> None:
    assert query_terms("What is the deposit, the DEPOSIT?") == ("deposit",)
    assert episode_document("the deposit is the deposit") == "the deposit is the deposit"


@dataclass(frozen=True)
class _Text:
    subject: str
    predicate: str
    value: object


def test_a_fact_document_holds_its_project_exceptions_and_names_but_not_its_writer() -> None:
    text = _Text("j17", "report_style", "concise")
    assert fact_document(text, None, ()) == "j17 report style concis"
    assert fact_document(text, "Cedar", ("audits",), ("Jo",)) == (
        "j17 report style concis cedar audit jo")


# -- labels: words never change owner ---------------------------------------------------------


def test_approval_predicates_are_recognised_by_any_of_their_words() -> None:
    assert is_approval("deposit_preapproved")
    assert is_approval("booking_approval")
    assert is_approval("Consent")
    assert not is_approval("deposit_amount")


@pytest.mark.parametrize(("kind", "own"), [(Kind.STATED, True), (Kind.CLAIM, False),
                                           (Kind.WORLD, False), (Kind.DERIVED, False)])
def test_only_the_users_statements_are_their_own_words(kind: Kind, own: bool) -> None:
    label, own_words, historical = fact_label(_fact(kind=kind))
    assert (own_words, historical) == (own, False)
    assert ("claim" in label) == (kind is Kind.CLAIM)
    # Each kind says whose words they are: a world fact is its owning system's record, a
    # derived one was computed by a worker.
    assert label.startswith({Kind.STATED: "the user's statement", Kind.CLAIM: "claim: user's",
                             Kind.WORLD: "record of user", Kind.DERIVED: "derived by user"}[kind])


def test_a_remembered_approval_is_historical_evidence_only() -> None:
    label, own, historical = fact_label(_fact(predicate="deposit_preapproved"))
    assert (own, historical) == (True, True)
    assert label.startswith("historical evidence only")


def test_only_the_users_messages_are_their_own_words() -> None:
    assert episode_label(_episode())[1] is True
    tool = _episode().model_copy(update={"source": "tool", "channel": Channel.TOOL})
    label, own = episode_label(tool)
    assert own is False
    assert "tool" in label


def test_answer_ids_name_a_facts_revision_and_an_episode_alone() -> None:
    components = ScoreComponents(bm25=1, lexical_rank=1, vector=None, vector_rank=None,
                                 relevance=1, specificity=0, recency=0, evidence=0, score=1)

    def hit(kind: str, revision: int | None) -> RecallHit:
        return RecallHit(type=kind, id="x", revision=revision,
                         scope="acme", content="c", value=None, subject=None, predicate=None,
                         qualifiers=None, kind=None, writer="user", valid=Interval(start=day(0)),
                         system=Interval(start=day(0)), supported_by=(), eligible_because=(),
                         label="", own_words=True, historical_only=False, context=(),
                         score=components)

    answer = RecallAnswer(status="ok", query="q", terms=("q",), scope="acme", at=day(0),
                          known_at=day(0), kinds=tuple(Kind),
                          results=(hit("fact", 2), hit("episode", None)))
    assert answer.ids() == ["x#2", "x"]


def test_an_answer_built_from_its_required_fields_reports_nothing_found() -> None:
    answer = RecallAnswer(status="empty", query="q", terms=("q",), scope="acme", at=day(0),
                          known_at=day(0), kinds=tuple(Kind))
    assert (answer.candidates, answer.eligible, answer.results, answer.excluded) == (0, 0, (),
                                                                                     {})
    assert (answer.include_episodes, answer.mode, answer.error) == (True, "lexical", None)


def test_answers_hits_and_their_scores_are_immutable() -> None:
    [ranked] = rank([Scored("a", ["tea"], 0, 0, 0)], ("tea",), {"tea": 1},
                    CorpusStats(documents=1, tokens=1))
    answer = RecallAnswer(status="empty", query="q", terms=("q",), scope="acme", at=day(0),
                          known_at=day(0), kinds=tuple(Kind))
    shown = RecalledEpisode(episode_id="e", source="user", channel="chat", content="c",
                            occurred_at=day(0), label="")
    hit = RecallHit(type="episode", id="e", revision=None, scope="acme", content="c",
                    value=None, subject=None, predicate=None, qualifiers=None, kind=None,
                    writer="user", valid=Interval(start=day(0)), system=Interval(start=day(0)),
                    supported_by=(), eligible_because=(), label="", own_words=True,
                    historical_only=False, context=(shown,), score=ranked.components())
    # What recall tells the agent to ask again is part of the answer, and as fixed as it.
    ask = AskAgain(assertion_id="as_1", revision=1, subject="ana", predicate="diet",
                   last_confirmed=day(0), age_days=30.0, half_life_days=10.0, factor=0.125,
                   floor=0.25, reason="not confirmed for 30 days (half-life 10): ask again")
    for record in (ranked, ranked.components(), answer, shown, hit, ask):
        field = next(iter(type(record).model_fields))
        with pytest.raises(ValidationError, match="frozen"):
            setattr(record, field, getattr(record, field))


@pytest.mark.parametrize("tea_elsewhere", [0, 8], ids=["rare-term", "common-term"])
def test_convex_fusion_weighs_the_lexical_list_by_its_best_whatever_bm25s_scale(
    tea_elsewhere: int
) -> None:
    """BM25 has no unit: a common term scores well below 1, a rare one above. The convex
    fusion divides by the best BM25, so a lexical-only match against a vector-only one is
    decided by the weight and the cosine alone (0.5 against 0.5 x 0.9), on either corpus."""
    docs = [Scored("words", ["tea"], 0, 0, 0), Scored("meaning", ["milk"], 0, 0, 0)]
    corpus = [list(d.terms) for d in docs] + [["tea", "diet"]] * tea_elsewhere + [["veg"]] * 2
    query = ("tea",)
    df = document_frequencies(corpus, query)
    stats = CorpusStats(documents=len(corpus), tokens=sum(len(d) for d in corpus))
    scale = bm25(["tea"], query, df, stats)
    assert (scale > 1) if tea_elsewhere == 0 else (scale < 1)  # the case this corpus stands for
    got = rank(docs, query, df, stats, vectors={"meaning": 0.9},
               weights=RankingWeights(fusion="convex", lexical_weight=0.5))
    assert [r.key for r in got] == ["words", "meaning"]
    assert [r.relevance for r in got] == pytest.approx([1.0, 0.9], rel=1e-12)
