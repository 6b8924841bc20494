"""The dinner study as a lab (issue 17): other lengths, every input, every session day.

The sensitivity figures are seed 000's own ("Try other settings"), kept in
fixtures/dinner/expected/sensitivity.json with the sentence they come from. The baselines are
also checked against a small reference model of the seed's rules, restated below from the seed's
prose and sharing no code with kg_memory.sim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg_memory import Memory
from kg_memory.cli import app
from kg_memory.sim.baseline import Settings
from kg_memory.sim.dinner import POLICIES, Run, run_all, run_policy
from kg_memory.sim.scenario import Scenario, ScenarioClock
from tests.conftest import ROOT

runner = CliRunner()
FIGURES = json.loads(
    (ROOT / "fixtures" / "dinner" / "expected" / "sensitivity.json").read_text("utf-8")
)
BASELINE_SLUGS = ("keep", "ttl-refresh", "ttl-fixed", "unused", "contra-chat", "contra-all")


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["sim", "dinner", *args])
    return result.exit_code, result.output


def wide_cli(width: int, *args: str) -> str:
    """The command's output on a terminal ``width`` columns wide."""
    result = CliRunner(env={"COLUMNS": str(width)}).invoke(app, ["sim", "dinner", *args])
    assert result.exit_code == 0, result.output
    return result.output


@cache
def scenario() -> Scenario:
    return Scenario.load()


def row(slug: str, **lengths: int) -> Any:
    return run_policy(scenario(), slug, settings=Settings(**lengths)).row()


# -- settings -------------------------------------------------------------------------------


def test_the_seed_lengths_give_exactly_the_default_table() -> None:
    default = [r.row() for r in run_all(scenario())]
    explicit = [r.row() for r in run_all(scenario(), settings=Settings(ttl=7, unused_days=30))]
    assert explicit == default
    code, out = cli("--ttl", "7", "--unused-days", "30", "--json")
    assert code == 0, out
    _, out2 = cli("--json")
    assert json.loads(out) == json.loads(out2)
    assert [r["policy"] for r in json.loads(out)] == list(POLICIES.values())


def test_ttl_refreshed_on_read_keeps_79_errors_at_every_published_length() -> None:
    spec = FIGURES["ttl-refresh"]
    for ttl in spec["ttl"]:
        r = row("ttl-refresh", ttl=ttl)
        assert (r.reads, r.stale + r.missing + r.injected) == (89, spec["errors"]), ttl


def test_fixed_ttl_trades_stale_for_missing_from_7_to_30_days() -> None:
    low, high = FIGURES["ttl-fixed"]["from"], FIGURES["ttl-fixed"]["to"]
    first, last = row("ttl-fixed", ttl=low["ttl"]), row("ttl-fixed", ttl=high["ttl"])
    assert (first.stale, first.missing) == (low["stale"], low["missing"])
    assert (last.stale, last.missing) == (high["stale"], high["missing"])
    # "rise ... while ... fall": every step in between moves the same way.
    steps = [row("ttl-fixed", ttl=t) for t in range(low["ttl"], high["ttl"] + 1)]
    assert all(a.stale <= b.stale and a.missing >= b.missing for a, b in pairwise(steps))


def test_the_cli_reruns_the_eight_runs_with_other_lengths_and_names_them() -> None:
    code, out = cli("--ttl", "30", "--unused-days", "1", "--json")
    assert code == 0, out
    rows = {r["policy"]: r for r in json.loads(out)}
    assert len(rows) == 8
    fixed = rows["TTL 30 days, fixed"]
    assert (fixed["stale"], fixed["missing"]) == (19, 11)
    assert "TTL 30 days, refreshed on read" in rows
    assert "Delete if unused for 1 day" in rows
    code, table = cli("--ttl", "14")
    assert code == 0
    assert "TTL 14 days, fixed" in table.splitlines()[3]


def test_lengths_do_not_move_the_runs_that_do_not_decide_by_time() -> None:
    slugs = ("keep", "contra-chat", "contra-all", "provenance", "provenance-misfiled")
    for slug in slugs:
        assert row(slug, ttl=2, unused_days=5) == row(slug), slug


def test_a_length_below_one_day_is_bad_input() -> None:
    for args in (["--ttl", "0"], ["--unused-days", "-3"], ["reads", "--ttl", "0"]):
        code, out = cli(*args)
        assert code == 2, args
        assert "Traceback" not in out


# -- a reference model of seed 000's rules, from its prose ----------------------------------

# (day, sender, channel, what): "On day 0, the user supplies Ana's diet and the favourite
# restaurant. On day 1, the agent books R1 ... The restaurant cancels it on day 2. Its webhook
# also contains the deposit claim. On day 30, the user says Ana eats fish now. On day 50, the
# agent books R2 ... On day 54, that dinner happens, and a timer marks it done."
STORY: list[tuple[int, str, str, tuple[str, ...]]] = [
    (0, "user", "chat", ("write", "ana_diet", "vegetarian", "")),
    (0, "user", "chat", ("write", "favourite", "Chez Lili", "")),
    (1, "agent", "chat", ("write", "next_dinner", "R1 Fri", "R1")),
    (2, "restaurant", "webhook", ("event", "R1")),
    (2, "restaurant", "webhook", ("write", "deposit_preapproved", "yes", "")),
    (30, "user", "chat", ("write", "ana_diet", "eats fish", "")),
    (50, "agent", "chat", ("write", "next_dinner", "R2 Sat", "R2")),
    (54, "timer", "timer", ("event", "R2")),
]


def truth(key: str, day: int) -> str | None:
    if key == "ana_diet":
        return "vegetarian" if day < 30 else "eats fish"
    if key == "next_dinner":
        return "R1 Fri" if day == 1 else "R2 Sat" if 50 <= day < 54 else None
    if key == "favourite":
        return "Chez Lili"
    return None  # "the user never does [pre-approve deposits] in this scenario"


def reads_on(day: int) -> list[str]:
    """ "Every three days, starting on day 3 ... The favourite is read on days 3 and 81." """
    if day < 3 or day > 87 or day % 3:
        return []
    return ["ana_diet", "next_dinner", "deposit_preapproved"] + (
        ["favourite"] if day in (3, 81) else []
    )


@dataclass
class Memo:
    key: str
    value: str
    sender: str
    depends: str
    lease_from: int
    retired: bool = False


def reference(policy: str, ttl: int, unused: int) -> list[tuple[int, str, list[str], str]]:
    lifetime = {"ttl-refresh": ttl, "ttl-fixed": ttl, "unused": unused}.get(policy)
    renew = policy in ("ttl-refresh", "unused")
    memos: list[Memo] = []

    def live(m: Memo, day: int) -> bool:
        return not m.retired and (lifetime is None or day < m.lease_from + lifetime)

    out = []
    for day in range(90):
        for when, sender, channel, what in STORY:
            if when != day or (policy == "contra-chat" and channel != "chat"):
                continue
            if what[0] == "event":
                if policy == "contra-all":
                    for m in memos:
                        m.retired = m.retired or m.depends == what[1]
                continue
            _, key, value, depends = what
            if policy.startswith("contra"):
                for m in memos:
                    if m.key == key and m.value != value and live(m, day):
                        m.retired = True
            memos.append(Memo(key, value, sender, depends, lease_from=day))
        for key in reads_on(day):
            got = [m for m in memos if m.key == key and live(m, day)]
            if renew:
                for m in got:
                    m.lease_from = day
            values, true = [m.value for m in got], truth(key, day)
            if any(m.sender not in ("user", "agent") for m in got):
                verdict = "injected"
            elif any(v != true for v in values):
                verdict = "stale"
            elif true is not None and true not in values:
                verdict = "missing"
            else:
                verdict = "right"
            out.append((day, key, sorted(values), verdict))
    return out


def observed(run: Run) -> list[tuple[int, str, list[str], str]]:
    return [
        (r.day, r.key, sorted(str(s.value) for s in r.served), r.verdict.value) for r in run.reads
    ]


def test_the_reference_model_reproduces_the_seed_table_at_its_lengths() -> None:
    for slug in BASELINE_SLUGS:
        verdicts = [v for *_, v in reference(slug, 7, 30)]
        r = row(slug)
        assert len(verdicts) == 89
        assert (verdicts.count("stale"), verdicts.count("missing")) == (r.stale, r.missing)
        assert verdicts.count("injected") == r.injected


@settings(max_examples=40, deadline=None)
@given(ttl=st.integers(1, 90), unused=st.integers(1, 90))
def test_baselines_answer_every_read_as_the_reference_model_at_any_length(
    ttl: int, unused: int
) -> None:
    lengths = Settings(ttl=ttl, unused_days=unused)
    for slug in BASELINE_SLUGS:
        run = run_policy(scenario(), slug, settings=lengths)
        assert observed(run) == reference(slug, ttl, unused), slug


# -- inputs and session days -----------------------------------------------------------------


def test_inputs_lists_every_input_with_sender_channel_and_day() -> None:
    code, out = cli("inputs", "--json")
    assert code == 0, out
    items = json.loads(out)
    expected = [(d, s, c) for d, s, c, _ in STORY]
    # The webhook is one input carrying both the cancellation and the claim.
    expected.remove((2, "restaurant", "webhook"))
    assert [(i["day"], i["sender"], i["channel"]) for i in items] == expected
    webhook = items[3]
    assert webhook["carries"] == ["R1.cancelled", "deposit_preapproved = yes (stated)"]
    assert "pre-approves deposits" in webhook["content"]
    for width in (80, 120):
        table = wide_cli(width, "inputs")
        # A title, a header, a rule, one line per input and a caption: no row wrapped.
        assert len(table.rstrip("\n").split("\n")) == 4 + len(items)
        assert all(len(line) <= width for line in table.splitlines())
        assert "R1.cancelled; deposit_preapproved = yes (stated)" in table
    assert "pre-approves deposits" in wide_cli(80, "inputs", "--wide")


def test_day_shows_each_read_with_its_verdict() -> None:
    code, out = cli("day", "keep", "30", "--json")
    assert code == 0, out
    answer = json.loads(out)
    got = {r["key"]: r for r in answer["reads"]}
    assert list(got) == ["ana_diet", "next_dinner", "deposit_preapproved"]
    assert [s["value"] for s in got["ana_diet"]["served"]] == ["vegetarian", "eats fish"]
    assert got["ana_diet"]["truth"] == "eats fish"
    assert (got["ana_diet"]["verdict"], got["next_dinner"]["verdict"]) == ("stale", "stale")
    assert got["deposit_preapproved"]["verdict"] == "injected"
    assert got["deposit_preapproved"]["served"][0]["writer"] == "restaurant"
    assert all(r["query"] is None for r in answer["reads"])  # a baseline asks no graph
    for width in (80, 120):
        table = wide_cli(width, "day", "keep", "30")
        lines = table.rstrip("\n").split("\n")
        # One line per memory served (Ana's diet returns two), no row wrapped.
        assert len(lines) == 4 + 4
        assert all(len(line) <= width for line in lines)
        last_words = [line.split()[-1] for line in lines[3:7]]
        assert last_words == ["fish", "30)", "(nothing)", "(nothing)"]
        assert "yes (restaurant, day 2)" in table


def test_day_gives_the_asof_query_that_a_store_answers_the_same_way(tmp_path: Path) -> None:
    code, out = cli("day", "provenance", "81", "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert [r["verdict"] for r in answer["reads"]] == ["right"] * 4
    # Replay the same inputs into a store of our own, then ask it each printed command.
    store = tmp_path / "replay.db"
    clock = ScenarioClock(scenario().epoch)
    with Memory.open(store, clock=clock) as memory:
        for record in scenario().records:
            clock.now = record.occurred_at
            memory.ingest(record)
    for read in answer["reads"]:
        assert read["query"]["valid_at"] == read["query"]["known_at"] == "2026-03-27T20:00:00Z"
        argv = read["command"].split()
        assert argv[0] == "kg-memory"
        result = runner.invoke(app, [*argv[1:], "--store", str(store), "--json"])
        assert result.exit_code == 0, result.output
        facts = json.loads(result.output)["facts"]
        assert [f["value"] for f in facts] == [s["value"] for s in read["served"]]
    code, text = cli("day", "provenance", "81")
    assert code == 0
    assert "kg-memory asof --valid-at 2026-03-27T20:00:00Z" in text


def test_day_refuses_a_day_without_a_session_and_an_unknown_policy() -> None:
    code, out = cli("day", "keep", "31")
    assert code == 2
    assert "not a session day" in out
    code, out = cli("day", "nonsense", "30")
    assert code == 2
    assert "unknown policy" in out


def test_day_takes_the_lengths_before_or_after_the_subcommand() -> None:
    _, before = cli("--ttl", "30", "day", "ttl-fixed", "30", "--json")
    _, after = cli("day", "ttl-fixed", "30", "--ttl", "30", "--json")
    _, default = cli("day", "ttl-fixed", "30", "--json")
    assert json.loads(before) == json.loads(after)
    assert json.loads(before)["title"] == "TTL 30 days, fixed"
    # The cancelled day-1 booking has outlived a 7-day lease by day 30, not a 30-day one.
    assert json.loads(default)["reads"][1]["verdict"] == "right"
    assert json.loads(after)["reads"][1]["verdict"] == "stale"
