"""People's tables: one line per row at 80 and 120 columns, --wide for the rest, JSON unchanged.

A table printed by the CLI is a title, a header, a rule, one line per row and a caption, so a
command whose output has exactly that many lines, none wider than the terminal, wrapped nothing.
"""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from kg_memory import IngestRecord, Interval, Memory, Mode
from kg_memory.cli import app
from kg_memory.cli.app import demo_answers, demo_epilogue
from kg_memory.cli.bookstore import title_lines, verdict_lines
from kg_memory.cli.instants import Precision, TimeFormat
from kg_memory.cli.sheet import Column, Ident, Sheet
from kg_memory.sim.bookstore import LabConfig
from kg_memory.sim.bookstore_missions import MISSIONS
from kg_memory.sim.scenario import Scenario, ScenarioClock
from tests.conftest import ROOT

DINNER = ROOT / "fixtures" / "dinner" / "episodes.jsonl"
JO_CEDAR = ROOT / "fixtures" / "jo_cedar" / "episodes.jsonl"
WIDTHS = [80, 120]


def run(width: int, *args: str) -> str:
    result = CliRunner(env={"COLUMNS": str(width)}).invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def lines_of(output: str) -> list[str]:
    return output.rstrip("\n").split("\n")


def assert_fits(output: str, width: int) -> None:
    too_wide = [line for line in lines_of(output) if len(line) > width]
    assert too_wide == []


def table_lines(rows: int) -> int:
    return 4 + rows  # title, header, rule, rows, caption


def study_store(tmp_path: Path) -> Path:
    """The dinner fixture ingested on the study's own timeline, as the demo does."""
    scenario = Scenario.load()
    clock = ScenarioClock(scenario.epoch)
    path = tmp_path / "dinner.db"
    with Memory.open(path, clock=clock) as memory:
        for record in scenario.records:
            clock.now = record.occurred_at
            memory.ingest(record)
    return path


def reference_instant(value: datetime | None) -> str:
    """Independent of kg_memory.cli.instants: the dinner study is all whole minutes in 2026."""
    return "∞" if value is None else f"{value:%m-%d %H:%M}"


def reference_interval(value: Interval) -> str:
    end = value.end
    if end is not None and end.date() == value.start.date():
        return f"{reference_instant(value.start)}→{end:%H:%M}"
    return f"{reference_instant(value.start)}→{reference_instant(end)}"


@pytest.mark.parametrize("width", WIDTHS)
def test_demo_prints_every_row_on_one_line(
        tmp_path: Path, width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the epilogue's export line carries the path whole
    store = Path("demo.db")
    out = run(width, "demo", "--store", str(store))
    assert_fits(out, width)
    with Memory.open(store, create=False) as memory:
        answers = demo_answers(memory, Scenario.load())
        history = memory.history("ana")
    asked = [a for a in answers if not isinstance(a, str)]
    questions = len(answers) - len(asked)
    expected = (
        1  # the rule naming the store
        + sum(table_lines(len(a.facts)) for a in asked)
        + questions
        + table_lines(len(history))
        + 1  # the rule over the study's table
        + 9  # the study's table: a header and eight runs
        + len(demo_epilogue(store).splitlines())  # what the columns mean, what to try next
    )
    assert len(lines_of(out)) == expected
    rows = lines_of(out)[1:]  # after the rule, which names the store's path (cut if long)
    assert not [line for line in rows if "…" in line]  # no cell is cut, even at 80 columns
    for fact in (f for a in asked for f in a.facts):
        cells = [fact.key, str(fact.value), fact.kind.value, fact.writer,
                 reference_interval(fact.valid), reference_interval(fact.system)]
        assert any(all(c in line for c in cells) for line in rows), cells


@pytest.mark.parametrize("width", WIDTHS)
def test_check_prints_its_counts_within_the_terminal(tmp_path: Path, width: int) -> None:
    """Rule: prose lines fit 80 columns as the tables do: `check`'s counts and its hint that
    --json has every count are laid out between items, each whole on one line, instead of
    running past the width for the terminal to break anywhere."""
    path = study_store(tmp_path)
    with Memory.open(path) as memory:  # three-digit counts: the line no longer fits as one
        memory.ingest(IngestRecord.model_validate({
            "operation_id": "many", "source": "user", "channel": "chat", "scope": "u1",
            "occurred_at": "2026-06-01T09:00:00Z", "content": "a hundred preferences",
            "assertions": [{"subject": "u1", "predicate": f"p{n}", "value": "yes",
                            "kind": "stated"} for n in range(100)]}))
    store = str(path)
    checked = json.loads(run(width, "check", "--store", store, "--json"))["checked"]
    out = run(width, "check", "--store", store)
    rest = lines_of(out)  # "ok: PATH" too: a long path is cut in its middle
    assert [line for line in rest if len(line) > 80] == []
    for item in [f"{checked[w]} {w}" for w in ("revisions", "edges", "episodes", "tombstones")
                 ] + ["(--json for every count)"]:
        assert any(item in line for line in rest), (item, rest)


@pytest.mark.parametrize("width", WIDTHS)
def test_check_cuts_a_long_store_path_in_its_middle_to_fit(tmp_path: Path, width: int) -> None:
    """Rule: `check`'s "ok: PATH" line fits 80 columns: a longer path keeps its start and its
    file name around an ellipsis; --json gives it whole."""
    path = tmp_path / ("a-long-directory-name-" * 4) / "the-store.db"
    path.parent.mkdir()
    with Memory.open(path):
        pass
    store = str(path)
    assert len(f"ok: {store}") > 80
    first = lines_of(run(width, "check", "--store", store))[0]
    assert len(first) <= 80
    assert first.startswith(f"ok: {store[:30]}")
    assert first.endswith("the-store.db")
    assert "…" in first
    assert json.loads(run(width, "check", "--store", store, "--json"))["location"] == store


def test_a_short_store_path_is_printed_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    # Relative, as typed: tmp_path's own length grows with pytest's run counter and the xdist
    # worker's folder, so an absolute path here is only sometimes short.
    monkeypatch.chdir(tmp_path)
    with Memory.open("s.db"):
        pass
    assert lines_of(run(80, "check", "--store", "s.db"))[0] == "ok: s.db"


LONG_LAB = LabConfig(policy=Mode.OVERWRITE, gate=0.123457, half_life=1e6, one_off_filter=True,
                     provenance=True, drift=True, injection=True)


@pytest.mark.parametrize("config", [LabConfig(), LONG_LAB, *(
    c for m in MISSIONS.values() for c in (m.start, m.solution))])
def test_the_bookstore_title_fits_80_columns_between_settings(config: LabConfig) -> None:
    """Rule: the lab's title ("bookstore lab: " and its settings) is one line when it fits,
    else wrapped between settings within 80 columns, never inside one, saying the same."""
    lines = title_lines(config)
    assert [line for line in lines if len(line) > 80] == [], lines
    assert " ".join(line.strip() for line in lines) == f"bookstore lab: {config.label()}"
    settings = config.label().split(", ")
    for line in lines:
        for part in line.strip().removeprefix("bookstore lab:").split(","):
            assert part.strip() in ("", *settings), (part, lines)
    assert (len(lines) == 1) == (len(f"bookstore lab: {config.label()}") <= 80)


def test_mission_4s_solution_prints_within_80_columns() -> None:
    """The case that wrapped: mission 4's solution, every setting on, 91 characters."""
    out = run(80, "sim", "bookstore", "--mission", "4", "--solution", "--seeds", "1")
    assert_fits(out, 80)
    head = lines_of(out)[:2]
    assert head[0].startswith("bookstore lab: reconcile, gate 0.7")
    assert head[1].strip().endswith("injection")
    assert any(line.startswith("measure") for line in lines_of(out)[2:4])


@pytest.mark.parametrize("number", sorted(MISSIONS))
def test_a_mission_verdict_fits_80_columns_whatever_it_missed(number: int) -> None:
    """Rule: the bookstore lab's verdict is prose within 80 columns (mission 4's title alone
    is longer), wrapped between words and never inside a goal, and says the same sentence."""
    mission = MISSIONS[number]
    everything = [what for what, _ in mission.goals] + [
        "correct 84.4% lost accuracy (without injection 88.2%)"]
    for failed in ([], everything[:1], everything):
        lines = verdict_lines(mission, failed)
        assert [line for line in lines if len(line) > 80] == [], lines
        verdict = "passed" if not failed else "not yet: " + "; ".join(failed)
        assert " ".join(" ".join(lines).split()) == " ".join(
            f"mission {number} ({mission.title}): {verdict}".split())
        for goal in failed:
            assert any(goal in line for line in lines), goal


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(("valid_day", "known_day"), [(1, 1), (1, 40), (2, 40), (55, 89), (89, 89)])
def test_asof_on_the_dinner_fixture_fits(
    tmp_path: Path, width: int, valid_day: int, known_day: int
) -> None:
    scenario = Scenario.load()
    store = str(study_store(tmp_path))
    args = ["asof", "--store", store, "--scope", "u1",
            "--valid-at", scenario.at(valid_day).isoformat(),
            "--known-at", scenario.at(known_day).isoformat()]
    facts = json.loads(run(width, *args, "--json"))["facts"]
    out = run(width, *args)
    assert_fits(out, width)
    assert len(lines_of(out)) == table_lines(len(facts))
    for fact in facts:  # a label may be cut in the middle at 80; values and intervals never
        valid, system = (Interval.model_validate(fact[axis]) for axis in ("valid", "system"))
        cells = [fact["value"], reference_interval(valid), reference_interval(system)]
        assert any(all(c in line for c in cells) for line in lines_of(out)), cells


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("subject", ["ana", "u1", "R1"])
def test_history_on_the_dinner_fixture_fits(tmp_path: Path, width: int, subject: str) -> None:
    store = str(study_store(tmp_path))
    entries = json.loads(run(width, "history", subject, "--store", store, "--scope", "u1",
                             "--json"))
    out = run(width, "history", subject, "--store", store, "--scope", "u1")
    assert_fits(out, width)
    assert len(lines_of(out)) == table_lines(len(entries))


@pytest.mark.parametrize("width", WIDTHS)
def test_every_other_table_fits_on_real_wall_clock_data(tmp_path: Path, width: int) -> None:
    """Wall-clock system times (an ingest's revisions microseconds apart) fit as well."""
    store = str(tmp_path / "jo.db")
    run(width, "ingest", str(JO_CEDAR), "--trust-envelopes", "--store", store)
    run(width, "ingest", str(DINNER), "--trust-envelopes", "--store", store)
    for args in (["refusals"], ["entities", "list"], ["asof"], ["history", "j17"]):
        # Both tenants at once (an operator's view): the longest tables this data makes.
        rows = json.loads(run(width, *args, "--store", store, "--all-scopes", "--json"))
        out = run(width, *args, "--store", store, "--all-scopes")
        assert_fits(out, width)
        count = len(rows["facts"]) if isinstance(rows, dict) else len(rows)
        assert len(lines_of(out)) == table_lines(count), args

    plan = json.loads(run(width, "forget", "source:user@acme", "--dry-run", "--store", store,
                          "--json"))["plan"]
    out = run(width, "forget", "source:user@acme", "--dry-run", "--store", store)
    assert_fits(out, width)
    actions = ("delete", "rebuild", "erase", "redact", "restore", "retire", "retain", "entities")
    nodes = sum(max(1, len(plan[a])) for a in actions)  # an empty action is one "-" row
    nodes += len(plan["residues"]) + len(plan["unnamed"])  # a row each, none for none
    assert len(lines_of(out)) == table_lines(nodes) + 2  # and the residues and status lines

    run(width, "forget", "category:acme/j17/report_*@c1", "--block", "--store", store)
    blocks = json.loads(run(width, "blocks", "list", "--store", store, "--scope", "acme",
                            "--json"))
    out = run(width, "blocks", "list", "--store", store, "--scope", "acme")
    assert_fits(out, width)
    assert len(lines_of(out)) == table_lines(len(blocks)) == table_lines(1)


def test_entity_show_fits(tmp_path: Path) -> None:
    store = str(tmp_path / "jo.db")
    run(80, "ingest", str(JO_CEDAR), "--trust-envelopes", "--store", store)
    shown = json.loads(run(80, "entities", "show", "j17", "--store", store, "--scope", "acme",
                           "--json"))
    out = run(80, "entities", "show", "j17", "--store", store, "--scope", "acme")
    assert_fits(out, 80)
    profile = 1 + len(shown["profile"]["identifiers"]) if shown["profile"] else 0
    assert len(lines_of(out)) == (
        profile + table_lines(len(shown["decisions"])) + table_lines(len(shown["facts"]))
    )


def test_wide_shows_full_ids_and_every_column(tmp_path: Path) -> None:
    store = str(study_store(tmp_path))
    facts = json.loads(run(80, "asof", "--store", store, "--scope", "u1", "--json"))["facts"]
    narrow = run(80, "asof", "--store", store, "--scope", "u1")
    wide = run(80, "asof", "--store", store, "--scope", "u1", "--wide")
    for fact in facts:
        full = f"{fact['assertion_id']}#{fact['revision']}"
        assert full not in narrow
        assert full in wide
        assert fact["supported_by"][-1]["episode_id"] in wide
    assert "--wide" in narrow  # the caption says what was left out and how to see it
    assert len(lines_of(wide)) == table_lines(len(facts))  # long lines, but one per row


def test_json_is_the_same_at_every_width(tmp_path: Path) -> None:
    store = str(study_store(tmp_path))
    day40 = Scenario.load().at(40).isoformat()
    asof = ["asof", "--valid-at", day40, "--known-at", day40]
    for args in (asof, ["history", "ana"], ["refusals"], ["entities", "list"]):
        outputs = {run(w, *args, "--store", store, "--scope", "u1", "--json")
                   for w in (40, 80, 200)}
        assert len(outputs) == 1, args


def test_stored_text_cannot_split_a_row_or_drive_the_terminal(tmp_path: Path) -> None:
    """A value with a line break, rich markup and an escape sequence prints as one literal line
    (today's main raised MarkupError with a traceback on ``[/]``)."""
    line = {"operation_id": "x1", "source": "user", "channel": "chat", "scope": "u1",
            "occurred_at": "2026-01-05T09:00:00Z",
            "assertions": [{"subject": "u1", "predicate": "note", "kind": "stated",
                            "value": "a\nb [/] [red]x\u001b[2J"}]}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    store = str(tmp_path / "m.db")
    run(80, "ingest", str(path), "--trust-envelopes", "--store", store)
    out = run(120, "asof", "--store", store, "--scope", "u1")
    assert len(lines_of(out)) == table_lines(1)
    assert "\u001b" not in out
    assert r"a\nb [/] [red]x\x1b[2J" in out


def render(sheet: Sheet, width: int, *, wide: bool = False) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    sheet.print(console, wide=wide)
    return lines_of(console.file.getvalue())  # type: ignore[attr-defined]


def test_long_values_are_cut_with_an_ellipsis_and_whole_when_wide() -> None:
    value = "a preference stated at some length, " * 4
    sheet = Sheet(title="t", columns=[Column("fact", cut="middle"), Column("value", cut="end"),
                                      Column("id", priority=1)])
    sheet.add_row("j17.report_style @b2", value, Ident("as_" + "ab" * 10, "#1"))
    sheet.add_row("j17.report_style @c1", "short", Ident("as_" + "cd" * 10, "#1"))
    lines = render(sheet, 40)
    assert all(len(line) <= 40 for line in lines)
    assert len(lines) == table_lines(2)
    assert "…" in lines[3]
    assert "@b2" in lines[3]
    assert "@c1" in lines[4]
    assert "id: --wide" in lines[-1]
    wide = render(sheet, 40, wide=True)
    assert value.strip() in wide[3]
    assert "as_" + "ab" * 10 + "#1" in wide[3]


def test_ids_are_printed_whole_or_not_at_all() -> None:
    """Rule: an id is never shortened or cut (a shortened id names nothing when pasted back):
    at any width its column shows it whole or is left out, and the caption says so."""
    long_id = "as_95e8991b41420d85d1f4"
    assert Ident(long_id, "#2").show(wide=False) == f"{long_id}#2"
    sheet = Sheet(title="t", columns=[Column("fact", cut="middle", identifies=True),
                                      Column("id", priority=1)])
    sheet.add_row("u1.next_dinner", Ident(long_id, "#2"))
    for width in range(20, 61):
        lines = render(sheet, width)
        assert all(len(line) <= width for line in lines)
        row = lines[3]
        assert f"{long_id}#2" in row or ("as_" not in row and "id: --wide" in lines[-1]), row


def test_a_terminal_too_narrow_for_the_intervals_still_never_wraps() -> None:
    sheet = Sheet(title="t", columns=[Column("a"), Column("valid"), Column("system")])
    jan = datetime(2026, 1, 5, 9, tzinfo=UTC)
    sheet.add_row("x", Interval(start=jan, end=jan.replace(month=2)), Interval(start=jan))
    lines = render(sheet, 30)
    assert all(len(line) <= 30 for line in lines)
    assert len(lines) == table_lines(1)


instants = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2026, 12, 31, 23, 59, 59),
    timezones=st.just(UTC),
)


@given(st.lists(instants, min_size=1, max_size=20))
def test_a_column_reads_in_the_stores_order_and_whole_seconds_apart_read_differently(
    column: list[datetime],
) -> None:
    fmt = TimeFormat(year=2026, precision=Precision.of(column))
    shown = {i: fmt.instant(i) for i in column}
    for a in column:
        for b in column:
            # Zero-padded text sorts as the instants do (a midnight date before its day's times)
            if a < b:
                assert shown[a] <= shown[b]
            # ... and instants in different seconds never read the same.
            if a.replace(microsecond=0) != b.replace(microsecond=0):
                assert shown[a] != shown[b]


@given(instants, instants)
def test_exact_instants_carry_every_digit(a: datetime, b: datetime) -> None:
    fmt = TimeFormat(year=2026, precision=Precision.EXACT)
    assert (fmt.instant(a) == fmt.instant(b)) == (a == b)


def test_a_stored_entity_id_prints_as_written_in_a_lineage_tree(tmp_path: Path) -> None:
    """Entity ids are a sender's input: on today's main ``[/]R9`` raised MarkupError."""
    line = {"operation_id": "x2", "source": "agent", "channel": "chat", "scope": "u1",
            "occurred_at": "2026-01-05T09:00:00Z",
            "entities": [{"entity_id": "[/]R9", "type": "booking", "owners": ["restaurant"]}],
            "assertions": [{"subject": "u1", "predicate": "next_dinner", "value": "R9 Fri",
                            "kind": "world", "depends_on": ["[/]R9"]}]}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    store = str(tmp_path / "m.db")
    run(80, "ingest", str(path), "--trust-envelopes", "--store", store)
    out = run(80, "lineage", "[/]R9", "--store", store, "--scope", "u1")
    assert lines_of(out)[0] == "[/]R9 (entity) type booking"
    assert "DEPENDS_ON" in out


def test_no_table_of_the_demo_wraps_at_any_width_from_60_to_160(tmp_path: Path) -> None:
    from kg_memory.cli import render as cli_render

    with Memory.open(study_store(tmp_path), create=False) as memory:
        sheets = [cli_render.asof_sheet(a) for a in demo_answers(memory, Scenario.load())
                  if not isinstance(a, str)]
        sheets += [cli_render.history_sheet(s, memory.history(s)) for s in ("ana", "u1", "R1")]
        sheets.append(cli_render.refusals_sheet(memory.refusals(None)))
    for width in range(60, 161, 5):
        for sheet in sheets:
            lines = render(sheet, width)
            assert max(len(line) for line in lines) <= width
            assert len(lines) == table_lines(len(sheet.rows)), (width, sheet.title)


def test_a_table_spanning_two_years_gives_every_instant_its_year() -> None:
    new_year = datetime(2026, 1, 1, tzinfo=UTC)
    eve = datetime(2025, 12, 31, 23, tzinfo=UTC)
    one_year = Sheet(title="t", columns=[Column("valid")])
    one_year.add_row(Interval(start=new_year, end=new_year.replace(hour=9, minute=30)))
    assert render(one_year, 80)[3].strip() == "01-01→09:30"  # midnight is the date alone
    assert "UTC, 2026" in render(one_year, 80)[-1]
    two_years = Sheet(title="t", columns=[Column("valid"), Column("system")])
    two_years.add_row(Interval(start=eve, end=new_year), Interval(start=new_year))
    row, caption = render(two_years, 80)[3], render(two_years, 80)[-1]
    assert row.split() == ["2025-12-31", "23:00→2026-01-01", "2026-01-01→∞"]
    assert caption.strip() == "UTC"


# -- issue 27, finding 6: what identifies a row is cut last; nothing reads as an empty interval
# unless it is one; the ingest summary and recall fit ------------------------------------------

FOUR_WIDTHS = [60, 80, 120, 160]


def assert_identifying_cut_last(sheet: Sheet, width: int) -> None:
    """The rule, read off the layout: a column that identifies the row is narrower than its
    text only when every optional column is left out and every other cut column is as narrow
    as it goes; a column that is never cut (an id, an interval) is whole or left out."""
    shown, widths = sheet.layout(width)
    natural = sheet.natural_widths()
    cut_identifying = [i for i in shown if sheet.columns[i].identifies and widths[i] < natural[i]]
    if cut_identifying:
        assert [i for i in shown if sheet.columns[i].priority > 0] == [], (width, sheet.title)
        for i in shown:
            column = sheet.columns[i]
            if column.cut and not column.identifies:
                assert widths[i] <= max(6, len(column.header)), (width, column.header)
    for i in shown:
        if not sheet.columns[i].cut:
            assert widths[i] == natural[i], (width, sheet.columns[i].header)


texts = st.text(alphabet="abcdefghij_. ", min_size=0, max_size=40)


@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 3)), min_size=1,
                max_size=6),
       st.lists(st.lists(texts, min_size=6, max_size=6), min_size=1, max_size=4),
       st.integers(20, 170))
def test_what_identifies_a_row_is_cut_last_at_any_width(
        specs: list[tuple[bool, bool, int]], rows: list[list[str]], width: int) -> None:
    columns = [Column(f"c{n}", priority=p, cut="end" if cut or ident else None,
                      identifies=ident)
               for n, (cut, ident, p) in enumerate(specs)]
    sheet = Sheet(title="t", columns=columns)
    for row in rows:
        sheet.add_row(*row[:len(columns)])
    assert_identifying_cut_last(sheet, width)


@given(instants, st.timedeltas(min_value=timedelta(microseconds=1), max_value=timedelta(days=3)),
       st.sampled_from([Precision.MINUTE, Precision.SECOND]))
def test_a_non_empty_interval_never_reads_as_empty(
        start: datetime, length: timedelta, precision: Precision) -> None:
    """Rule: as printed, a non-empty interval's end reads later than its start (on main
    ``12-05 07:46:58→07:46:58``, a revision closed milliseconds after it was recorded)."""
    shown = TimeFormat(year=2026, precision=precision).interval(
        Interval(start=start, end=start + length))
    begin, end = shown.split("→")
    if " " not in begin:  # midnight reads as the date alone
        begin = f"{begin} 00:00"
    if re.fullmatch(r"\d\d:\d\d.*", end):  # an end on the start's date: its clock alone
        end = f"{begin.split(' ')[0]} {end}"
    elif " " not in end:
        end = f"{end} 00:00"
    assert begin < end, shown  # zero-padded, so text sorts as the instants do


def wall_clock_store(tmp_path: Path) -> str:
    store = str(tmp_path / "jo.db")
    run(80, "ingest", str(JO_CEDAR), "--trust-envelopes", "--store", store)
    run(80, "ingest", str(DINNER), "--trust-envelopes", "--store", store)
    return store


@pytest.mark.parametrize("width", FOUR_WIDTHS)
def test_history_never_shows_a_non_empty_interval_as_empty(tmp_path: Path, width: int) -> None:
    """On wall-clock data a revision closed in the same second it was recorded: its system
    interval shows the digits that tell its end from its start, at every width."""
    store = wall_clock_store(tmp_path)
    for subject, scope in (("u1", "u1"), ("j17", "acme")):
        out = run(width, "history", subject, "--store", store, "--scope", scope)
        assert_fits(out, width)
        intervals = re.findall(r"(\d\d-\d\d \d\d:\d\d(?::[\d.]+)?)→([\d:.]+)(?=\s|$)", out)
        assert intervals or width < 80, out  # at 60 the system column is left out
        for begin, end in intervals:
            assert begin.split(" ")[1] != end, (begin, end)


@pytest.mark.parametrize("width", FOUR_WIDTHS)
def test_tables_cut_what_identifies_a_row_last(tmp_path: Path, width: int) -> None:
    """Fact names, values and refusal reasons are whole while anything else can give way (on
    main history cut ``next_dinner`` to ``next…nner`` at 80 and a refusal's reason was cut at
    every width)."""
    from kg_memory.cli import render as cli_render
    from kg_memory.cli.recall import recall_sheet

    store = wall_clock_store(tmp_path)
    with Memory.open(store, create=False) as memory:
        sheets = [cli_render.asof_sheet(memory.asof(scope=s)) for s in ("u1", "acme")]
        sheets += [cli_render.history_sheet(s, memory.history(s, scope=c))
                   for s, c in (("u1", "u1"), ("j17", "acme"), ("ana", "u1"))]
        sheets.append(cli_render.refusals_sheet(memory.refusals(None)))
        sheets.append(recall_sheet(memory.recall("dinner", scope="u1")))
    for sheet in sheets:
        assert_identifying_cut_last(sheet, width)
    out = run(width, "history", "u1", "--store", store, "--scope", "u1")
    if width >= 80:
        assert "next_dinner" in out
    refusals = json.loads(run(width, "refusals", "--store", store, "--all-scopes", "--json"))
    out = run(width, "refusals", "--store", store, "--all-scopes")
    assert_fits(out, width)
    if width >= 120:
        for refusal in refusals:
            assert refusal["reason"] in out


@pytest.mark.parametrize("width", FOUR_WIDTHS)
def test_the_ingest_summary_and_recall_do_not_wrap(tmp_path: Path, width: int) -> None:
    """On main the ingest summary ran past 80 columns and recall's table folded every cell."""
    store = str(tmp_path / ("a-long-directory-name-" * 3) / "m.db")
    Path(store).parent.mkdir()
    out = run(width, "ingest", str(DINNER), "--trust-envelopes", "--store", store)
    assert_fits(out, width)
    assert "7 accepted" in out
    assert out.rstrip().endswith("m.db")
    for query in ("dinner", "fish OR dinner OR Lili"):
        answer = json.loads(run(width, "recall", query, "--store", store, "--scope", "u1",
                                "--json"))
        out = run(width, "recall", query, "--store", store, "--scope", "u1")
        assert_fits(out, width)
        table = table_lines(len(answer["results"]))
        assert len(lines_of(out)) >= table
        rows = lines_of(out)[3:3 + len(answer["results"])]
        for n, (hit, row) in enumerate(zip(answer["results"], rows, strict=True), 1):
            assert row.lstrip().startswith(f"{n} "), row
            if hit["type"] == "fact" and width >= 80:
                assert f"{hit['subject']}.{hit['predicate']}" in row
