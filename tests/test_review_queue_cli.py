"""``kg-memory entities review``: the queue a person clears at a terminal (issue 29).

Tables fit 80 and 120 columns with every id whole (so a pair can be pasted into ``--merge`` or
``--apart``), ``--json`` is the queue as the API returns it, and settling names a person, stays
in the tenant, and reverses the other way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg_memory import Memory
from kg_memory.cli import app
from tests.conftest import ManualClock
from tests.test_review_queue import OKAFORS_RECORD as OKAFORS
from tests.test_review_queue import _said, _twins


@pytest.fixture
def store(tmp_path: Path) -> str:
    """Two households' REVIEW pairs in tenant acme, and the Sandmans in tenant other."""
    path = tmp_path / "q.db"
    clock = ManualClock()
    with Memory.open(path, clock=clock) as memory:
        _twins(memory, clock)
        _said(memory, clock, 3, "c", "Ann Okafor", {"likes": "jazz"}, OKAFORS)
        _said(memory, clock, 4, "d", "Beth Okafor", {}, OKAFORS)
        _twins(memory, clock, scope="other")
    return str(path)


def cli(*args: str, width: int = 80) -> tuple[int, str]:
    result = CliRunner(env={"COLUMNS": str(width)}).invoke(app, list(args))
    return result.exit_code, result.output


def queue(store: str, scope: str = "acme", *extra: str) -> list[dict[str, object]]:
    code, out = cli("entities", "review", "--scope", scope, "--store", store, "--json", *extra)
    assert code == 0, out
    found: list[dict[str, object]] = json.loads(out)
    return found


@pytest.mark.parametrize("width", [80, 120])
def test_the_queue_and_each_pairs_fields_fit_the_terminal_with_ids_whole(
    store: str, width: int
) -> None:
    code, out = cli("entities", "review", "--scope", "acme", "--store", store, width=width)
    assert code == 0, out
    assert [line for line in out.splitlines() if len(line) > width] == []
    for pair in queue(store):
        assert str(pair["provisional"]) in out
        assert str(pair["candidate"]) in out
    assert "DISAGREE" in out
    assert "CONFLICT" in out  # the Sandmans' "likes"
    assert "settle: --merge LEFT:RIGHT" in out


def test_json_is_the_ordered_queue_with_fields_and_impact(store: str) -> None:
    pairs = queue(store)
    assert [p["mention"] for p in pairs] == ["Melinda Sandman", "Beth Okafor"]
    first = pairs[0]
    assert first["pair_id"] == f"{first['provisional']}:{first['candidate']}"
    assert first["impact"] == {"pooled": 5, "conflicts": [
        {"predicate": "likes", "project": None, "provisional": ["coffee"],
         "candidate": ["tea"]}]}
    verdicts = {f["field"]: f["verdict"] for f in first["fields"]}  # type: ignore[attr-defined]
    assert verdicts["given_name"] == "disagree"
    assert verdicts["birth_date"] == "agree"


def test_settling_names_a_person_and_the_other_way_reverses_it(store: str) -> None:
    pair = str(queue(store)[0]["pair_id"])
    args = ("entities", "review", "--scope", "acme", "--store", store)
    code, out = cli(*args, "--apart", pair)
    assert code == 2, out  # no --by
    assert "--by" in out
    for nobody in ("", "  "):
        code, out = cli(*args, "--apart", pair, "--by", nobody)
        assert code == 2, out
    assert next(p["pair_id"] for p in queue(store)) == pair  # nothing was settled
    code, out = cli(*args, "--merge", pair, "--by", "ana", "--reason", "one person")
    assert code == 0, out
    assert pair not in [p["pair_id"] for p in queue(store)]
    [done] = [p for p in queue(store, "acme", "--settled") if p["pair_id"] == pair]
    assert done["settled"]["outcome"] == "merge"  # type: ignore[index]
    assert done["settled"]["decided_by"] == "ana"  # type: ignore[index]
    assert done["settled"]["reason"] == "one person"  # type: ignore[index]
    code, out = cli(*args, "--apart", pair, "--by", "bo")
    assert code == 0, out
    [undone] = [p for p in queue(store, "acme", "--settled") if p["pair_id"] == pair]
    assert undone["settled"]["outcome"] == "keep_apart"  # type: ignore[index]
    assert undone["settled"]["decided_by"] == "bo"  # type: ignore[index]


def test_another_tenants_pair_is_not_found_and_nothing_is_recorded(store: str) -> None:
    theirs = str(queue(store, "other")[0]["pair_id"])
    code, out = cli("entities", "review", "--scope", "acme", "--store", store,
                    "--merge", theirs, "--by", "ana")
    assert code == 4, out
    assert "NotFound" in out
    assert [p["pair_id"] for p in queue(store, "other")] == [theirs]
    with Memory.open(store) as memory:
        assert not any(r.decision.is_manual for r in memory.decisions())
