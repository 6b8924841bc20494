"""The shipped embedding model and the one way to choose an embedder (issue 26).

Recall by meaning with all-MiniLM-L6-v2 (the ``embed`` extra, offline): "what does the user
eat" finds ``diet = pescatarian`` and "what does she do for work" ``job = nurse``, which words
alone cannot (no word or stem is shared). The choice is a name or an Embedder, read the same way by
``Memory.open``, ``$KG_MEMORY_EMBEDDER`` and ``--embedder``; a store keeps one model's vectors and
refuses another's (both backends).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from kg_memory import (
    EMBEDDER_ENV,
    Clock,
    EmbedderMismatch,
    ExtraMissing,
    FastEmbedEmbedder,
    HashingEmbedder,
    InvalidArgument,
    Memory,
    MiniLMEmbedder,
    OpenAIEmbedder,
    RecallError,
    SentenceTransformersEmbedder,
    resolve_embedder,
)
from kg_memory.bench.recall_quality import evaluate
from kg_memory.domain.embedding import cosine
from kg_memory.embedders import MODEL_NAME
from tests.conftest import ROOT, ManualClock, MemoryFactory, day, episode, fact
from tests.test_cli import run

pytest.importorskip("onnxruntime", reason="needs the kg-memory-bitemporal[embed] extra")

MODEL = MiniLMEmbedder()
PROFILE = [
    fact("ana", "diet", "pescatarian"), fact("ana", "allergy", "peanuts"),
    fact("ana", "favourite_band", "Radiohead"), fact("ana", "home_city", "Lisbon"),
    fact("ana", "seat_preference", "aisle"), fact("ana", "job", "nurse"),
    fact("ana", "pet", "a cat named Miso"), fact("ana", "drink", "oat milk latte"),
]


def _profile(memory: Memory, clock: ManualClock) -> None:
    memory.ingest(episode("op-1", "user", day(0), content="", assertions=PROFILE))
    clock.now = day(1)


def _top(memory: Memory, query: str, **kwargs: object) -> tuple[str, object]:
    answer = memory.recall(query, scope="u1", include_episodes=False, **kwargs)  # type: ignore[arg-type]
    assert answer.mode == "hybrid"
    first = answer.results[0]
    return (str(first.predicate), first.value)


def test_the_shipped_model_finds_facts_by_meaning(memory: Memory, clock: ManualClock) -> None:
    _profile(memory, clock)
    # Words alone: no fact shares a word (or a stem: "allergic" now meets "allergy" as words,
    # so it is no test of meaning) with these questions.
    by_meaning = {"what does the user eat": ("diet", "pescatarian"),
                  "what does she do for work": ("job", "nurse"),
                  "where does she live": ("home_city", "Lisbon"),
                  "what music does she like": ("favourite_band", "Radiohead"),
                  "which animal does she keep": ("pet", "a cat named Miso")}
    for question in by_meaning:
        assert memory.recall(question, scope="u1", include_episodes=False).results == ()
    memory.use_embedder("minilm")
    for question, expected in by_meaning.items():
        assert _top(memory, question) == expected, question
    assert _top(memory, "what is the user allergic to") == ("allergy", "peanuts")


def test_the_vectors_are_unit_deterministic_and_independent_of_their_batch() -> None:
    texts = ["A man is playing a guitar.", "Someone plays the guitar.",
             "The stock market fell sharply today.", "diet pescatarian",
             "a much longer text about the user's preferences in food, travel and music " * 4]
    together = MODEL.embed(texts)
    alone = [MODEL.embed([t])[0] for t in texts]
    assert [list(v) for v in together] == [list(v) for v in alone]
    assert all(len(v) == MODEL.dimensions == 384 for v in together)
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, abs_tol=1e-5)
               for v in together)
    # A paraphrase is nearer than an unrelated sentence (sentence-transformers' own example).
    assert cosine(together[0], together[1]) > 0.7 > 0.2 > cosine(together[0], together[2])
    assert MODEL.embed([]) == []


def test_a_store_refuses_another_models_query(memory: Memory, clock: ManualClock) -> None:
    _profile(memory, clock)
    memory.use_embedder(MODEL)
    assert _top(memory, "what does the user eat") == ("diet", "pescatarian")
    for other in (HashingEmbedder(), "hashing"):
        with pytest.raises(EmbedderMismatch, match=MODEL_NAME) as refused:
            memory.recall("what does the user eat", scope="u1", embedder=resolve_embedder(other))
        assert "hashing-trigram/256" in str(refused.value)
        assert isinstance(refused.value, RecallError)  # exit 2, as before
    # The model's own queries still work, and lexical recall never reads vectors.
    assert _top(memory, "what is the user allergic to") == ("allergy", "peanuts")
    memory.use_embedder(None)
    assert memory.recall("peanuts", scope="u1").mode == "lexical"


def test_the_model_name_names_the_exact_weights() -> None:
    assert MODEL.name == MODEL_NAME == "all-MiniLM-L6-v2-int8@8199be6f699a"


@pytest.mark.parametrize(("name", "kind", "model_name"), [
    ("default", MiniLMEmbedder, MODEL_NAME),
    ("minilm", MiniLMEmbedder, MODEL_NAME),
    (" MiniLM ", MiniLMEmbedder, MODEL_NAME),
    ("hashing", HashingEmbedder, "hashing-trigram"),
    ("fastembed:BAAI/bge-small-en-v1.5", FastEmbedEmbedder, "fastembed:BAAI/bge-small-en-v1.5"),
    ("sentence-transformers:all-MiniLM-L6-v2", SentenceTransformersEmbedder,
     "sentence-transformers:all-MiniLM-L6-v2"),
    ("openai:text-embedding-3-small", OpenAIEmbedder, "openai:text-embedding-3-small"),
])
def test_names_resolve_without_loading_anything(name: str, kind: type, model_name: str) -> None:
    chosen = resolve_embedder(name)
    assert isinstance(chosen, kind)
    assert chosen is not None
    assert chosen.name == model_name


@pytest.mark.parametrize("name", ["bogus", "fastembed:", "fastembed: ", "torch:x", "openai"])
def test_an_unknown_name_is_bad_input(name: str) -> None:
    with pytest.raises(InvalidArgument, match="one of default, minilm, hashing, none"):
        resolve_embedder(name)


def test_none_and_an_embedder_resolve_to_themselves() -> None:
    assert resolve_embedder("none") is None
    assert resolve_embedder(None) is None
    hashing = HashingEmbedder(64)
    assert resolve_embedder(hashing) is hashing
    with pytest.raises(InvalidArgument, match="name, dimensions and embed"):
        resolve_embedder(42)  # type: ignore[arg-type]


def test_without_the_extra_default_is_words_only_and_minilm_says_what_to_install() -> None:
    # A fresh process where onnxruntime cannot be imported (an entry of None makes its import
    # fail), as on a machine without the extra.
    script = (
        "import sys; sys.modules['onnxruntime'] = None\n"
        "from kg_memory import ExtraMissing, MiniLMEmbedder, resolve_embedder\n"
        "assert resolve_embedder('default') is None\n"
        "try:\n    MiniLMEmbedder().embed(['x'])\n"
        "except ExtraMissing as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "pip install 'kg-memory-bitemporal[embed]'" in done.stdout


@pytest.mark.parametrize(("library", "name"), [
    ("fastembed", "fastembed:BAAI/bge-small-en-v1.5"),
    ("sentence_transformers", "sentence-transformers:all-MiniLM-L6-v2"),
])
def test_a_brought_model_without_its_library_names_the_package(
    monkeypatch: pytest.MonkeyPatch, library: str, name: str
) -> None:
    monkeypatch.setitem(sys.modules, library, None)
    chosen = resolve_embedder(name)
    assert chosen is not None
    with pytest.raises(ExtraMissing, match=library):
        chosen.embed(["x"])


def test_memory_open_reads_the_environment_and_an_argument_wins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    store = tmp_path / "m.db"
    monkeypatch.delenv(EMBEDDER_ENV)
    with Memory.open(store) as memory:  # nothing said: the shipped model, installed here
        assert memory.embedder is not None
        assert memory.embedder.name == MODEL_NAME
    monkeypatch.setenv(EMBEDDER_ENV, "hashing")
    with Memory.open(store) as memory:
        assert isinstance(memory.embedder, HashingEmbedder)
    with Memory.open(store, embedder="none") as memory:
        assert memory.embedder is None
    with Memory.open(store, embedder=MODEL) as memory:
        assert memory.embedder is MODEL
    monkeypatch.setenv(EMBEDDER_ENV, "bogus")
    with pytest.raises(InvalidArgument, match="unknown embedder 'bogus'"):
        Memory.open(store)


def test_recall_on_the_command_line_takes_an_embedder(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    with Memory.open(store) as memory:
        memory.ingest(episode("op-1", "user", day(0), content="", assertions=PROFILE))
    code, out = run("recall", "what does the user eat", "--scope", "u1", "--no-episodes",
                    "--embedder", "minilm", "--store", store, "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["mode"] == "hybrid"
    assert (answer["results"][0]["predicate"], answer["results"][0]["value"]) == (
        "diet", "pescatarian")
    code, out = run("recall", "what does the user eat", "--scope", "u1",
                    "--embedder", "hashing", "--store", store)
    assert code == 2
    assert "EmbedderMismatch" in out or MODEL_NAME in out
    code, out = run("recall", "peanuts", "--scope", "u1", "--embedder", "bogus", "--store",
                    store)
    assert code == 2
    assert "unknown embedder 'bogus'" in out


def test_the_labelled_set_holds_with_the_shipped_model(make_memory: MemoryFactory) -> None:
    """The labelled recall set, hybrid: as good as words alone. Without the model's similarity
    floor, "next dinner booking" lost its only answer (a message, which has no vector) to four
    facts at cosine 0.05-0.15 that reciprocal-rank fusion ranked level with it."""

    def hybrid(clock: Clock) -> Memory:
        memory = make_memory(clock)
        memory.use_embedder(MODEL)
        return memory

    quality = evaluate(ROOT / "fixtures" / "recall", hybrid)
    assert [q.id for q in quality.questions if q.found_in_top5 < q.expected] == []
    assert quality.recall_at_5 == 1.0
    assert [(q.id, q.never_returned) for q in quality.questions if q.never_returned] == []
    assert quality.other_scope_hits == quality.mislabelled_words == 0
    assert quality.precision_at_5 >= 0.4
