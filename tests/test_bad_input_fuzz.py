"""Fuzzing the three ways in: the ingest parser, the Python API and the command line.

The property is the same everywhere: any input is either accepted or refused with a
:class:`~kg_memory.domain.errors.KgMemoryError` subclass (on the CLI: a documented exit code and one
line on stderr), never another exception. Strategies lean on what broke before (issue 11):
invalid UTF-8, lone surrogates, huge integers, NaN, deep nesting, instants at the edges of time.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg_memory import Memory
from kg_memory.domain.errors import EXIT_CODES, IngestError, KgMemoryError
from kg_memory.domain.record import IngestRecord, parse_line
from tests.conftest import ROOT

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Every code point, lone surrogates included (a JSON "\ud800" escape decodes to one, and so
# does a command-line byte that is not UTF-8). st.text() never yields surrogates: join a list.
any_char = st.one_of(st.characters(min_codepoint=0, max_codepoint=0x10FFFF),
                     st.characters(categories=["Cs"]))
any_text = st.lists(any_char, max_size=12).map("".join)
edge_instants = st.sampled_from([
    "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999Z", "2026-01-05T09:00:00", "2026-13-01T00:00:00Z",
    "2026-01-05T09:00:00+24:00", "now", "", "2026-01-05T09:00:00.0000001Z",
])
json_scalars = st.one_of(
    st.none(), st.booleans(), any_text, edge_instants,
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(any_text, inner, max_size=3)), max_leaves=8)

VALID: dict[str, Any] = {
    "operation_id": "op", "source": "user", "channel": "chat",
    "occurred_at": "2026-01-05T09:00:00Z", "scope": "u1", "content": "Ana is vegetarian",
    "assertions": [{"subject": "ana", "predicate": "diet", "value": "veg", "kind": "stated",
                    "valid_from": "2026-01-05T09:00:00Z", "confidence": 0.9}],
    "retractions": [{"subject": "ana", "predicate": "diet"}],
    "events": [{"target": "R1", "name": "cancelled"}],
    "entities": [{"entity_id": "R1", "type": "booking", "owners": ["restaurant"]}],
    "resolve": [{"key": "jo", "name": "Jo", "identifiers": {"user_id": "j17"},
                 "context": {"project": "c1"}}],
}
PATHS = [("operation_id",), ("occurred_at",), ("content",), ("scope",), ("channel",),
         ("assertions", 0, "value"), ("assertions", 0, "valid_from"),
         ("assertions", 0, "valid_to"), ("assertions", 0, "confidence"),
         ("assertions", 0, "subject"), ("assertions", 0, "kind"), ("assertions", 0),
         ("retractions", 0, "valid_to"), ("events", 0, "at"), ("entities", 0, "owners"),
         ("resolve", 0, "identifiers"), ("resolve", 0, "context"), ("resolve", 0, "key"),
         ("assertions", 0, "qualifiers"), ("assertions", 0, "depends_on"), ("mentions",)]


def _mutate(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(json.dumps(VALID))
    target: Any = record
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return record


def _encode(record: Any) -> bytes:
    return json.dumps(record, allow_nan=True).encode("utf-8", "surrogatepass")


hostile_lines = st.one_of(
    st.binary(max_size=200),
    st.builds(lambda p, v: _encode(_mutate(p, v)), st.sampled_from(PATHS), json_values),
    st.builds(lambda p, t: _encode(_mutate(p, "__X__")).replace(b'"__X__"', t.encode()),
              st.sampled_from(PATHS),
              st.sampled_from(["NaN", "-Infinity", "9" * 5000, "1e999", "[" * 3000,
                               '"\\ud800"', '"\\udfff x"', "0x10", "01", "-0", "1E400"])),
    st.builds(lambda raw, cut: raw[:cut], st.just(_encode(VALID)), st.integers(0, 400)),
    st.builds(lambda b: b"\xef\xbb\xbf" + b, st.just(_encode(VALID))),
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    with Memory.open(tmp_path_factory.mktemp("fuzz") / "m.db") as memory:
        yield memory


@FUZZ
@given(raw=hostile_lines, number=st.integers(1, 10**6))
def test_the_parser_accepts_or_raises_ingest_error(scratch: Memory, raw: bytes,
                                                   number: int) -> None:
    refused: IngestError | None = None
    try:
        record = parse_line(raw, line=number)
    except IngestError as exc:
        refused, record = exc, None
    if refused is not None:
        assert refused.line == number
        assert str(refused).startswith(f"line {number}")
    if record is not None:
        assert isinstance(record, IngestRecord)
        with contextlib.suppress(KgMemoryError):
            scratch.ingest(record)


def test_the_parser_fuzz_can_fail() -> None:
    """The strategies do reach both outcomes: some lines are accepted, many are refused."""
    assert parse_line(_encode(VALID)) is not None
    with pytest.raises(IngestError):
        parse_line(_encode(_mutate(("assertions", 0, "value"), float("nan"))))


offsets = st.builds(lambda m: timezone(timedelta(minutes=m)), st.integers(-1439, 1439))
instants = st.one_of(
    st.none(),
    st.datetimes(min_value=datetime.min, max_value=datetime.max, timezones=offsets),
    st.datetimes(min_value=datetime.min, max_value=datetime.max),  # naive: refused
    st.sampled_from([datetime.min.replace(tzinfo=timezone(timedelta(hours=14))),
                     datetime.max.replace(tzinfo=timezone(timedelta(hours=-12))),
                     datetime.max.replace(tzinfo=UTC)]),
)
maybe_text = st.one_of(st.none(), any_text)


@FUZZ
@given(valid=instants, known=instants, subject=maybe_text, predicate=maybe_text,
       scope=maybe_text, word=any_text, selector=any_text)
def test_the_python_api_answers_or_raises_kg_memory_errors(
    scratch: Memory, valid: datetime | None, known: datetime | None, subject: str | None,
    predicate: str | None, scope: str | None, word: str, selector: str,
) -> None:
    calls: list[Callable[[], object]] = [
        lambda: scratch.asof(valid, known, subject=subject, predicate=predicate, scope=scope),
        lambda: scratch.history(word, predicate, scope=scope),
        lambda: scratch.refusals(scope),
        lambda: scratch.lineage(word),
        lambda: scratch.forget(selector, dry_run=True),
        lambda: scratch.forget(f"episode:{word}", dry_run=True),
        lambda: scratch.forget(f"category:{word}/{word}/*", dry_run=True),
        lambda: scratch.consolidate(word, "profile", [word], scope=scope or "default"),
        lambda: scratch.revoke_block(word),
        lambda: scratch.profile(word),
        lambda: scratch.decisions(scope, word),
        lambda: scratch.review(scope),
        lambda: scratch.entities(scope),
        lambda: scratch.blocks(scope),
        lambda: scratch.prov([word]),
        lambda: scratch.unmerge_decision(word, by=word, reason=word),
    ]
    for call in calls:
        with contextlib.suppress(KgMemoryError):
            call()


runner = CliRunner()
CODES = {0, 2, 3, 4} | {code for _, code in EXIT_CODES}


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    store = str(tmp_path_factory.mktemp("cli") / "m.db")
    result = runner.invoke(_app(), ["ingest", str(ROOT / "fixtures/dinner/episodes.jsonl"),
                                    "--trust-envelopes", "--store", store])
    assert result.exit_code == 0, result.output
    return store


def _app() -> Any:
    from kg_memory.cli import app

    return app


cli_text = st.one_of(any_text.filter(lambda t: "\x00" not in t), edge_instants)
cli_args = st.one_of(
    st.tuples(st.just("asof"), st.sampled_from(["--valid-at", "--known-at", "--subject",
                                                "--scope"]), cli_text),
    st.tuples(st.just("history"), cli_text),
    st.tuples(st.just("lineage"), cli_text),
    st.tuples(st.just("forget"), cli_text, st.just("--dry-run")),
    st.tuples(st.just("entities"), st.just("resolve"), cli_text, st.just("--id"), cli_text),
    st.tuples(st.just("entities"), st.just("resolve"), st.just("Jo"), st.just("--context"),
              cli_text),
    st.tuples(st.just("entities"), st.just("show"), cli_text),
    st.tuples(st.just("consolidate"), cli_text, st.just("p"), st.just("--from"), cli_text),
    st.tuples(st.just("blocks"), st.just("revoke"), cli_text),
    st.tuples(st.just("prov"), cli_text),
    st.tuples(st.sampled_from(["refusals", "entities list", "entities review", "blocks list"]),
              st.just("--scope"), cli_text),
    st.tuples(st.just("history"), st.just("ana"), st.just("--predicate"), cli_text),
    st.tuples(st.just("entities"), st.just("unmerge"), st.just("--decision"), cli_text,
              st.just("--by"), cli_text),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=cli_args, json_out=st.booleans())
def test_the_cli_exits_with_a_documented_code_never_a_traceback(
    cli_store: str, args: tuple[str, ...], json_out: bool,
) -> None:
    words = [w for arg in args for w in (arg.split(" ") if arg.startswith(("entities ",
                                                                          "blocks ")) else [arg])]
    plain = words[0] in ("forget", "prov") or words[:2] in (["blocks", "revoke"],
                                                            ["entities", "unmerge"])
    # Name a tenant unless the fuzzed argument is the scope itself: without one every reading
    # command stops at "--scope is required", before the input reaches anything else.
    tenant = [] if "--scope" in words else ["--scope", "u1"]
    argv = [*words, *tenant, "--store", cli_store,
            *(["--json"] if json_out and not plain else [])]
    result = runner.invoke(_app(), argv)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        argv, repr(result.exception))
    assert result.exit_code in CODES, (argv, result.output)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(hostile_lines, min_size=1, max_size=4))
def test_cli_ingest_of_hostile_files_keeps_the_good_lines_before_the_bad(
    tmp_path: Path, lines: list[bytes],
) -> None:
    path = tmp_path / "in.jsonl"
    good = _encode({**VALID, "operation_id": "first-good-line"})
    path.write_bytes(good + b"\n" + b"\n".join(lines) + b"\n")
    store = tmp_path / "f.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    result = runner.invoke(_app(), ["ingest", str(path), "--trust-envelopes", "--store",
                                    str(store), "--json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        lines, repr(result.exception))
    assert result.exit_code in (0, 2, 6), result.output
    with Memory.open(store, create=False) as memory:
        ops = {e.operation_id for e in memory.store.episodes(
            memory.store.find_episodes("user", "u1"))}
        assert "first-good-line" in ops
