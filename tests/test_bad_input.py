"""Hostile input (issue 11, "Bad input"): a clear, typed error naming line and field, never a
traceback; exit 2 for bad input, 4 for not found, 3 for a store that is not one; nothing partial,
every line before the bad one kept.

Each case below is one of the issue's findings and failed on the main of 2026-12-01 (0ab05c2).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg_memory import IngestRecord, Memory
from kg_memory.domain.errors import (
    IdempotencyConflict,
    IngestError,
    InvalidArgument,
    NotFound,
    StoreUnavailable,
)
from kg_memory.domain.record import parse_record
from kg_memory.store.sqlite import driver
from tests.conftest import MemoryFactory, day, episode, fact

runner = CliRunner()


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(_app(), list(args))
    # A traceback would be an exception other than the SystemExit typer uses for exit codes.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def _app() -> Any:
    from kg_memory.cli import app

    return app


def line(op: str, **fields: Any) -> dict[str, Any]:
    """One ingest line as a dict, valid unless the test breaks it."""
    return {"operation_id": op, "source": "user", "channel": "chat",
            "occurred_at": "2026-01-05T09:00:00Z", "scope": "u1",
            "assertions": [fact(f"s-{op}", "note", f"v-{op}")], **fields}


def jsonl(path: Path, *lines: dict[str, Any] | bytes | str) -> Path:
    out = b""
    for item in lines:
        if isinstance(item, dict):
            out += json.dumps(item).encode() + b"\n"
        elif isinstance(item, str):
            out += item.encode() + b"\n"
        else:
            out += item + b"\n"
    path.write_bytes(out)
    return path


def accepted_ops(store: Path) -> set[str]:
    with Memory.open(store, create=False) as memory:
        return {f.subject.removeprefix("s-") for f in memory.asof(scope="u1").facts}


def ingest_err(tmp_path: Path, *lines: dict[str, Any] | bytes | str) -> tuple[IngestError, Path]:
    """Ingest a file whose last line is bad through the API; return the error and the store."""
    store = tmp_path / "m.db"
    path = jsonl(tmp_path / "in.jsonl", *lines)
    with Memory.open(store) as memory, pytest.raises(IngestError) as caught:
        memory.ingest_file(path)
    return caught.value, store


# -- the file reader --------------------------------------------------------------------------


def test_invalid_utf8_on_line_3_keeps_lines_1_and_2(tmp_path: Path) -> None:
    err, store = ingest_err(tmp_path, line("a"), line("b"), b'{"operation_id": "c\xff\xfe"}')
    assert err.line == 3
    assert "UTF-8" in str(err)
    assert accepted_ops(store) == {"a", "b"}
    code, out = cli("ingest", str(tmp_path / "in.jsonl"), "--trust-envelopes",
                    "--store", str(tmp_path / "c.db"))
    assert code == 2
    assert "line 3" in out
    assert "2 accepted" in out


def test_a_utf8_bom_at_the_start_of_the_file_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(line("a")).encode() + b"\n"
                     + json.dumps(line("b")).encode() + b"\n")
    with Memory.open(tmp_path / "m.db") as memory:
        assert [r.status for r in memory.ingest_file(path)] == ["accepted", "accepted"]
    code, out = cli("ingest", str(path), "--trust-envelopes", "--store", str(tmp_path / "c.db"),
                    "--json")
    assert code == 0, out
    assert json.loads(out)["accepted"] == 2


@pytest.mark.parametrize("instant", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"])
def test_instants_past_the_edges_of_time_name_the_field(tmp_path: Path, instant: str) -> None:
    err, store = ingest_err(tmp_path, line("a"), line("b", occurred_at=instant))
    assert (err.line, err.field) == (2, "occurred_at")
    assert "outside the supported range" in str(err)
    assert accepted_ops(store) == {"a"}
    bad = line("c", assertions=[fact("s-c", "note", "v", valid_to=instant)])
    sub = tmp_path / "valid_to"
    sub.mkdir()
    err, _ = ingest_err(sub, bad)
    assert (err.line, err.field) == (1, "assertions.0.valid_to")


@pytest.mark.parametrize("instant", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"])
def test_asof_past_the_edges_of_time_is_bad_input(tmp_path: Path, instant: str) -> None:
    store = str(tmp_path / "m.db")
    Memory.open(store).close()
    for option in ("--valid-at", "--known-at"):
        code, out = cli("asof", "--scope", "u1", "--store", store, option, instant)
        assert code == 2, out
        assert option in out
        assert "TimeError" in out


def test_the_edges_of_time_themselves_are_accepted(tmp_path: Path) -> None:
    err_free = [line("a", occurred_at="0001-01-01T00:00:00Z"),
                line("b", occurred_at="9999-12-31T23:59:59.999999Z")]
    path = jsonl(tmp_path / "in.jsonl", *err_free)
    with Memory.open(tmp_path / "m.db") as memory:
        assert [r.status for r in memory.ingest_file(path)] == ["accepted", "accepted"]
        at = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
        assert memory.asof(at, scope="u1").values() == ["v-a", "v-b"]


def test_json_nested_10000_deep_is_an_error_naming_the_line(tmp_path: Path) -> None:
    deep = '{"operation_id": "d", "content": ' + "[" * 10_000 + "]" * 10_000 + "}"
    err, store = ingest_err(tmp_path, line("a"), deep)
    assert err.line == 2
    assert "nested deeper than" in str(err)
    assert accepted_ops(store) == {"a"}
    # Deep, but within what the decoder takes: the limit names the field.
    nested: list[Any] = []
    for _ in range(40):
        nested = [nested]
    medium = line("m", assertions=[{"subject": nested}])
    with pytest.raises(IngestError, match="nested deeper than 32") as caught:
        parse_record(medium, line=7)
    assert caught.value.field is not None
    assert caught.value.field.startswith("assertions.0.subject")


def test_an_escaped_lone_surrogate_names_the_field(tmp_path: Path) -> None:
    raw = json.dumps(line("s")).replace('"v-s"', '"\\ud800"')
    err, store = ingest_err(tmp_path, line("a"), raw)
    assert (err.line, err.field) == (2, "assertions.0.value")
    assert "surrogate" in str(err)
    assert accepted_ops(store) == {"a"}
    # The same text from Python: parse_record names the field; a record built without
    # validation is still refused typed by the write path, never a serialiser error.
    with pytest.raises(IngestError, match="surrogate") as caught:
        parse_record({**line("p"), "content": "\ud800"})
    assert caught.value.field == "content"
    with pytest.raises(IngestError, match="surrogate"):
        parse_record({**line("p"), "mentions": ["ok", "\udcff"]})
    valid = IngestRecord.model_validate(line("p"))
    record = valid.model_copy(update={"content": "\ud800"})  # model_copy does not validate
    with Memory.open(tmp_path / "p.db") as memory, pytest.raises(IngestError, match="surrogate"):
        memory.ingest(record)


def test_a_5000_digit_integer_is_out_of_range(tmp_path: Path) -> None:
    raw = json.dumps(line("n")).replace('"v-n"', "9" * 5000)
    err, store = ingest_err(tmp_path, line("a"), raw)
    assert (err.line, err.field) == (2, "assertions.0.value")
    assert "out of range" in str(err)
    assert accepted_ops(store) == {"a"}
    with pytest.raises(IngestError, match="out of range"):
        parse_record(line("p", assertions=[fact("x", "n", 2**63)]))
    assert parse_record(line("q", assertions=[fact("x", "n", 2**63 - 1)])).assertions[0].value


def test_valid_to_before_the_default_valid_from_names_the_field(tmp_path: Path) -> None:
    early = line("e", assertions=[fact("s-e", "note", "v", valid_to="2026-01-01T00:00:00Z")])
    err, store = ingest_err(tmp_path, line("a"), early)
    assert (err.line, err.field) == (2, "assertions.0.valid_to")
    assert "occurred_at" in str(err)
    assert accepted_ops(store) == {"a"}
    withdrawn = line("r", assertions=[], retractions=[
        {"subject": "s-a", "predicate": "note", "valid_to": "2026-01-01T00:00:00Z"}])
    with pytest.raises(IngestError) as caught:
        parse_record(withdrawn, line=4)
    assert caught.value.field == "retractions.0.valid_to"
    # Through the Python API, with a record built directly: still typed, still named.
    record = IngestRecord.model_validate(early)
    with Memory.open(tmp_path / "api.db") as memory, pytest.raises(IngestError) as api:
        memory.ingest(record)
    assert api.value.field == "assertions.0.valid_to"


@pytest.mark.parametrize(("fields", "field"), [
    ({"assertions": [fact("s-d", "note", "v", depends_on=["R1", ""])]},
     "assertions.0.depends_on.1"),
    ({"entities": [{"entity_id": "R1", "owners": [""]}]}, "entities.0.owners.0"),
    ({"mentions": [""]}, "mentions.0"),
])
def test_an_empty_reference_names_its_field(
    tmp_path: Path, fields: dict[str, Any], field: str,
) -> None:
    """An empty entity id in ``depends_on``, ``owners`` or ``mentions`` named nothing: a
    dependency no event could end, an owner no source could be. Refused like an empty
    subject, before anything of the line is written."""
    err, store = ingest_err(tmp_path, line("a"), line("d", **fields))
    assert (err.line, err.field) == (2, field)
    assert accepted_ops(store) == {"a"}


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_nan_and_infinity_are_refused(tmp_path: Path, token: str) -> None:
    raw = json.dumps(line("n")).replace('"v-n"', token)
    err, store = ingest_err(tmp_path, line("a"), raw)
    assert (err.line, err.field) == (2, "assertions.0.value")
    assert accepted_ops(store) == {"a"}
    confidence = json.dumps(line("c", assertions=[{**fact("s-c", "p", 1), "confidence": 0}]))
    sub = tmp_path / "confidence"
    sub.mkdir()
    err, _ = ingest_err(sub, confidence.replace('"confidence": 0', f'"confidence": {token}'))
    assert err.field == "assertions.0.confidence"
    with pytest.raises(IngestError, match="finite"):
        parse_record(line("p", assertions=[fact("x", "n", float("nan"))]))


def test_json_output_is_always_valid_json(tmp_path: Path) -> None:
    """The --json ingest summary of a refused NaN line, and an as-of answer, parse strictly."""
    store = str(tmp_path / "m.db")
    path = jsonl(tmp_path / "in.jsonl", line("a"),
                 json.dumps(line("n")).replace('"v-n"', "NaN"))
    code, out = cli("ingest", str(path), "--trust-envelopes", "--store", store, "--json")
    assert code == 2

    def strict(text: str) -> Any:
        def refuse(token: str) -> None:
            raise AssertionError(f"invalid JSON token {token}")

        return json.loads(text, parse_constant=refuse)

    summary = out[out.index("{"):out.rindex("}") + 1]
    assert strict(summary)["accepted"] == 1
    code, out = cli("asof", "--store", store, "--scope", "u1", "--json")
    assert code == 0
    assert [f["value"] for f in strict(out)["facts"]] == ["v-a"]


def test_an_idempotency_conflict_names_the_line(tmp_path: Path) -> None:
    changed = line("a", content="a different payload")
    path = jsonl(tmp_path / "in.jsonl", line("a"), line("b"), changed)
    with Memory.open(tmp_path / "m.db") as memory, pytest.raises(IdempotencyConflict) as caught:
        memory.ingest_file(path)
    assert (caught.value.line, caught.value.field) == (3, "operation_id")
    code, out = cli("ingest", str(path), "--trust-envelopes", "--store", str(tmp_path / "c.db"))
    assert code == 2
    assert "line 3, field 'operation_id'" in out


def test_ingest_on_a_directory_is_bad_input(tmp_path: Path) -> None:
    code, out = cli("ingest", str(tmp_path), "--trust-envelopes", "--store", str(tmp_path / "m.db"))
    assert code == 2
    assert "directory" in out
    with Memory.open(tmp_path / "m.db") as memory, pytest.raises(IngestError, match="directory"):
        memory.ingest_file(tmp_path)


def test_a_line_over_the_byte_limit_is_refused_after_the_lines_before_it(tmp_path: Path) -> None:
    from kg_memory.domain.limits import MAX_LINE_BYTES

    huge = line("h", content="x" * (MAX_LINE_BYTES + 10))
    err, store = ingest_err(tmp_path, line("a"), huge, line("z"))
    assert err.line == 2
    assert "longer than" in str(err)
    assert accepted_ops(store) == {"a"}


# -- identity resolution mentions -------------------------------------------------------------


def _mention(**fields: Any) -> dict[str, Any]:
    return line("m", resolve=[{"key": "jo", "name": "Jo", **fields}],
                assertions=[fact("@jo", "role", "PM")])


def test_an_unknown_context_key_is_an_error_on_ingest_and_the_cli(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="unknown context key 'colour'") as caught:
        parse_record(_mention(context={"project": "c1", "colour": "red"}), line=5)
    assert (caught.value.line, caught.value.field) == (5, "resolve.0.context")
    store = str(tmp_path / "m.db")
    Memory.open(store).close()
    code, out = cli("entities", "resolve", "Jo", "--context", "colour=red", "--scope", "u1",
                    "--store", store)
    assert code == 2, out
    assert "colour" in out


def test_an_unknown_identifier_kind_is_an_early_typed_error(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="unknown identifier kind 'fax'") as caught:
        parse_record(_mention(identifiers={"user_id": "j17", "fax": "123"}), line=2)
    assert caught.value.field == "resolve.0.identifiers"
    with pytest.raises(IngestError, match="empty"):
        parse_record(_mention(identifiers={"email": " "}))
    store = str(tmp_path / "m.db")
    Memory.open(store).close()
    code, out = cli("entities", "resolve", "Jo", "--id", "fax:123", "--scope", "u1",
                    "--store", store)
    assert code == 2, out
    assert "fax" in out


# -- commands with arguments that name nothing -------------------------------------------------


def test_consolidate_from_nothing_is_not_found_and_commits_nothing(
    make_memory: MemoryFactory, tmp_path: Path,
) -> None:
    from tests.conftest import ManualClock

    clock = ManualClock(day(1))
    memory = make_memory(clock)
    memory.ingest(episode("a", "user", day(1), assertions=[fact("j17", "style", "concise")]))
    before = memory.history("j17")
    with pytest.raises(NotFound, match="nosuch"):
        memory.consolidate("j17", "profile", ["nosuch"], scope="u1")
    with pytest.raises(InvalidArgument):
        memory.consolidate("j17", "profile", [], scope="u1")
    with pytest.raises(InvalidArgument, match="empty") as empty:  # names nothing: bad input
        memory.consolidate("j17", "profile", [before[0].version.assertion_id, ""], scope="u1")
    assert empty.value.field == "evidence"
    assert memory.history("j17") == before
    assert memory.history("j17", "profile") == []


def test_consolidate_from_nosuch_on_the_cli_exits_4(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    path = jsonl(tmp_path / "in.jsonl", line("a"))
    assert cli("ingest", str(path), "--trust-envelopes", "--store", store)[0] == 0
    code, out = cli("consolidate", "s-a", "profile", "--from", "nosuch", "--scope", "u1",
                    "--store", store)
    assert code == 4, out
    with Memory.open(store, create=False) as memory:
        assert memory.history("s-a", "profile") == []


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_another_applications_sqlite_file_is_never_modified(tmp_path: Path) -> None:
    other = tmp_path / "app.sqlite"
    conn = driver.connect(other)
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO users (name) VALUES ('ana')")
    conn.commit()
    conn.close()
    before = _digest(other)
    for args in (("asof",), ("history", "ana"), ("refusals",), ("entities", "list")):
        code, out = cli(*args, "--scope", "u1", "--store", str(other))
        assert code == 3, (args, out)
        assert "not modified" in out
    code, out = cli("ingest", str(jsonl(tmp_path / "in.jsonl", line("a"))), "--trust-envelopes",
                    "--store", str(other))
    assert code == 3, out
    with pytest.raises(StoreUnavailable, match="another application"):
        Memory.open(other)
    assert _digest(other) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite", "in.jsonl"]
    conn = driver.connect(other)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["users"]
    conn.close()


def test_an_empty_file_is_not_a_store_to_read(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    code, out = cli("asof", "--scope", "u1", "--store", str(empty))
    assert code == 3, out
    assert empty.read_bytes() == b""


@pytest.mark.parametrize("pair", ["jo", "jo:", ":jo", ":"])
def test_a_review_pair_with_an_empty_half_is_bad_input(tmp_path: Path, pair: str) -> None:
    """``--merge``/``--apart`` take PROVISIONAL:CANDIDATE; an empty half named no entity and
    was reported as one not found (exit 4)."""
    store = str(tmp_path / "m.db")
    Memory.open(store).close()
    for flag in ("--merge", "--apart"):
        code, out = cli("entities", "review", flag, pair, "--by", "ana", "--scope", "u1",
                        "--store", store)
        assert code == 2, (flag, out)
        assert "PROVISIONAL:CANDIDATE" in out


def test_text_arguments_that_are_not_unicode_are_bad_input(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 on a command line reach Python as lone surrogates."""
    store = str(tmp_path / "m.db")
    Memory.open(store).close()
    for args in (("history", "a\udcff"), ("asof", "--subject", "\udcff"),
                 ("forget", "episode:\udcff", "--dry-run"), ("lineage", "\udcff")):
        code, out = cli(*args, "--scope", "u1", "--store", store)
        assert code == 2, (args, out)
    with Memory.open(store) as memory:
        with pytest.raises(InvalidArgument, match="subject"):
            memory.history("\ud800")
        with pytest.raises(InvalidArgument, match="selector"):
            memory.forget("nonsense")
