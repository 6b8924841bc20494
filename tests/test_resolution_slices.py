"""The benchmark's slices come from the labels alone: a duplicate whose given name differs
from everything its person's records said is twin-like; recall is judged on the others."""

from __future__ import annotations

from kg_memory.bench.resolution.dataset import DatasetReport, benchmark_dataset, format_report
from kg_memory.bench.resolution.febrl import Record
from kg_memory.bench.resolution.slices import same_name_flags, twin_like_flags
from tests.person_records import RECORD, said


def _records(*people: tuple[str, str]) -> list[Record]:
    return [Record(mention=said(i, name, **RECORD), person=person)
            for i, (person, name) in enumerate(people, start=1)]


def test_a_duplicate_with_another_given_name_is_twin_like_and_a_first_record_never_is() -> None:
    records = _records(("p1", "Jane Doe"), ("p1", "Jane Doe"), ("p1", "Mary Doe"),
                       ("p2", "Jane Doe"), ("p1", "Jnae Doe"), ("p3", "Ann Roe"))
    # The first of each person is no duplicate; the exact repeat is not twin-like; "Mary" is
    # nothing like "Jane"; the typo "Jnae" agrees with what p1 said (two names by then).
    assert twin_like_flags(records) == [False, False, True, False, False, False]
    # Another person with Jane Doe's name is the same-name slice, not a duplicate.
    assert same_name_flags(records) == [False, False, False, True, False, False]


def test_once_a_person_said_a_name_a_later_record_with_it_is_not_twin_like() -> None:
    records = _records(("p1", "Jane Doe"), ("p1", "Mary Doe"), ("p1", "Mary Doe"))
    assert twin_like_flags(records) == [False, True, False]


def test_the_report_splits_duplicates_into_twin_like_and_the_rest() -> None:
    report: DatasetReport = benchmark_dataset("febrl3", limit=150, throughput=False)
    for system in report.systems:
        # Every duplicate is in exactly one of the two slices.
        assert (system.non_twin.true_matches + system.twin_like.true_matches
                == system.all.true_matches)
        assert system.non_twin.records == system.non_twin.true_matches
        assert (system.non_twin.correct_merges + system.twin_like.correct_merges
                == system.all.correct_merges)
    resolver = report.system("resolver")
    assert resolver.twin_like.records > 0  # FEBRL replaces given names
    assert resolver.non_twin.recall > resolver.all.recall  # twins are where it declines
    text = format_report(report)
    assert "non-twin" in text
    assert "twin-like" in text
    assert max(len(line) for line in text.splitlines()) <= 80
