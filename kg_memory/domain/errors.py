"""The exception hierarchy of kg-memory: every error the library raises on purpose lives here.

Callers catch :class:`KgMemoryError` for "anything kg-memory refused", or one of the narrower
classes below when they can do something specific about it. The CLI maps them to exit codes
(see :data:`EXIT_CODES`), so scripts can tell bad input from an unavailable store.
"""

from __future__ import annotations

__all__ = [
    "EXIT_CODES",
    "EXIT_MEANINGS",
    "INCOMPLETE_EXIT",
    "INTEGRITY_EXIT",
    "STORE_BUSY_EXIT",
    "STORE_FULL_EXIT",
    "STORE_READ_ONLY_EXIT",
    "ConcurrencyError",
    "ConsolidationRefused",
    "EmbedderMismatch",
    "ExtraMissing",
    "ForgottenError",
    "IdempotencyConflict",
    "ImportOrderError",
    "IngestError",
    "IntervalError",
    "InvalidArgument",
    "KgMemoryError",
    "NaiveDatetimeError",
    "NotFound",
    "PolicyError",
    "QueryError",
    "RecallError",
    "RecallUnavailable",
    "ResolutionError",
    "ScopeError",
    "StoreBusy",
    "StoreFull",
    "StoreNeedsMigration",
    "StoreReadOnly",
    "StoreUnavailable",
    "TimeError",
    "Unplanned",
    "WriteCancelled",
    "WriteRefused",
]


class KgMemoryError(Exception):
    """Base class for every error kg-memory raises deliberately.

    ``line`` is the 1-based line of the input the error belongs to, when it came from one
    (a file's record); :meth:`at_line` places an error raised without it.
    """

    line: int | None = None

    def at_line(self, line: int) -> KgMemoryError:
        """The same error, of the same class, placed on ``line`` of the input it came from.

        The write path does not know where its record was read; the batch that read it does,
        so an error reaches the caller naming the line that caused it. Built without calling
        ``__init__`` again: a subclass may take more than a message (``RecallUnavailable``).
        """
        placed = type(self).__new__(type(self))
        placed.__dict__.update(self.__dict__)
        placed.line = line
        placed.args = (f"line {line}: {self}",)
        return placed


class TimeError(KgMemoryError, ValueError):
    """A timestamp that kg-memory cannot accept."""


class NaiveDatetimeError(TimeError):
    """A datetime without a timezone: kg-memory only stores tz-aware UTC instants."""


class IntervalError(KgMemoryError, ValueError):
    """A half-open interval whose end is not after its start."""


class IngestError(KgMemoryError):
    """A line of ingest input that cannot be accepted.

    ``line`` is 1-based and ``field`` is a dotted path into the JSON object
    (``"assertions.0.kind"``), so the message points at exactly what to fix. Lines before it
    stay accepted.
    """

    def __init__(self, message: str, *, line: int | None = None, field: str | None = None) -> None:
        self.line = line
        self.field = field
        self.reason = message
        where = []
        if line is not None:
            where.append(f"line {line}")
        if field:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)

    def at_line(self, line: int) -> IngestError:
        """The same error, placed on ``line`` of the input it came from.

        The write path raises some errors (an idempotency conflict) without knowing which line
        the record was read from; the file reader adds it, so every message points at a line.
        """
        return type(self)(self.reason, line=line, field=self.field)


class IdempotencyConflict(IngestError):
    """An operation id was reused with a different payload: the first delivery stands."""


class ImportOrderError(IngestError):
    """A record of an imported history whose system time would go back: it is before the
    store's latest system time, before the previous record of the import, or in the future.
    System time only moves forward; nothing already accepted is lost."""


class InvalidArgument(KgMemoryError, ValueError):
    """An argument of a command or an API call that cannot be accepted (the message names it).

    The ingest format's own errors are :class:`IngestError`; this is everything else a caller
    passes in: a selector, an identifier kind on the command line, text that is not Unicode.
    ``field`` names the part of the argument that is wrong when there is one
    (``"assertion_id"`` of an ``ASSERTION_ID#REVISION`` tag), for callers that point at it.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class PolicyError(KgMemoryError, ValueError):
    """A writer policy that is not well formed."""


class QueryError(KgMemoryError, ValueError):
    """A query that cannot be run as asked, such as a filter with an unknown operator."""


class ScopeError(KgMemoryError, ValueError):
    """A request that does not say which tenant it is for, or reaches outside the scope the
    caller was given. Forgetting and reading across tenants takes an explicit all-scopes
    request; a scoped handle never grants one."""


class ConcurrencyError(KgMemoryError):
    """An optimistic precondition failed: the revision a caller read is no longer current."""


class ForgottenError(KgMemoryError):
    """A write of forgotten content: a replay, a late delivery or a racing worker. Terminal:
    retrying the same write can never succeed; the content is gone by the user's request.
    Raised by a single write; a batch reports the episode ``forgotten`` and goes on."""


class ConsolidationRefused(KgMemoryError):
    """A derived record that would drop a scope or an exception of its evidence: review it."""


class NotFound(KgMemoryError, LookupError):
    """A named episode, assertion or entity does not exist in the store."""


class ExtraMissing(KgMemoryError, ImportError):
    """An optional feature whose extra is not installed: the picture
    (``kg-memory-bitemporal[lab]``), the MCP server (``kg-memory-bitemporal[mcp]``), the LangGraph
    store (``kg-memory-bitemporal[langgraph]``). The message says which to install."""


class ResolutionError(KgMemoryError, ValueError):
    """A resolution request that cannot be honoured: a manual decision about another mention, an
    unmerge of something that was never merged, two profiles with one id in one scope."""


class StoreUnavailable(KgMemoryError):
    """The store could not be opened or read. This is never reported as an empty answer."""


class StoreNeedsMigration(StoreUnavailable):
    """A store written by an older kg-memory in a layout this version does not read. Nothing
    is lost: the message names the command that converts it in place (for Neo4j,
    ``kg-memory neo4j migrate``); until then the store is not opened, because the new queries
    would silently find nothing in the old layout."""


class WriteRefused(KgMemoryError):
    """An adapter's write that the writer gate refused. The episode is stored and the refusal
    audited (``kg-memory refusals``); raised so a caller without a report to read (a LangGraph
    ``put``) cannot mistake a refused write for a stored one."""


class WriteCancelled(KgMemoryError):
    """A write its caller cancelled while it ran: it stopped before its commit and nothing of
    it was stored (see :mod:`kg_memory.services.cancellation`)."""


class RecallUnavailable(StoreUnavailable):
    """A recall that could not search. ``answer`` is its ``unavailable`` response (a
    :class:`~kg_memory.domain.recall_answer.RecallAnswer`), so a caller that reports it still
    cannot mistake it for "nothing found"."""

    def __init__(self, message: str, answer: object) -> None:
        super().__init__(message)
        self.answer = answer


class RecallError(KgMemoryError, ValueError):
    """A recall request that cannot be searched: no searchable term, a bad limit or kind."""


class EmbedderMismatch(RecallError):
    """A recall whose embedder is not the model that made the store's vectors: vectors of two
    models are not comparable, so the store refuses rather than mixes. Recall with the model the
    message names (``--embedder``, ``$KG_MEMORY_EMBEDDER``, ``Memory.open(embedder=...)``)."""


class StoreBusy(StoreUnavailable):
    """Another writer held the store's write lock for longer than the busy timeout.

    A :class:`StoreUnavailable` (so older callers still catch it) with its own exit code.
    Retryable: nothing of the refused unit was written, so running the same call (or the same
    ``kg-memory ingest``, whose accepted lines become duplicates) again later is safe. The wait
    is ``busy_timeout`` (API argument, ``$KG_MEMORY_BUSY_TIMEOUT`` or ``--busy-timeout``);
    ``Memory.ingest_many`` already retries a few times with backoff before raising this.
    """

    retryable = True


class Unplanned(StoreBusy):
    """A store's batch planner met an operation it does not plan (identity documents, a
    forget, a block) inside a planned unit of work.

    Nothing of that unit was written: the store wrote the batch so far and runs the unit on its
    own when it is run again, at once (the ingest paths do; there is nothing to wait for). A
    :class:`StoreBusy`, so a caller that only knows "retry" still does the right thing.
    """


class StoreReadOnly(StoreUnavailable):
    """A write to a store that can only be read: the file, its directory or its mount is
    read-only (or the Neo4j database is). Nothing of the refused write was stored; reads still
    work. Not retryable as such: give the process write access, then run the same command."""


class StoreFull(StoreUnavailable):
    """A write the disk (or the file system's quota) had no room for. Nothing of the refused
    unit was stored (SQLite rolls the transaction back); free space, then run it again."""


#: Exit code of :class:`StoreReadOnly`: 73 is ``EX_CANTCREAT`` from sysexits.h (an output
#: cannot be created or written).
STORE_READ_ONLY_EXIT = 73

#: Exit code of :class:`StoreFull`: 74 is ``EX_IOERR`` from sysexits.h (an input/output error).
STORE_FULL_EXIT = 74

#: Exit code of a command whose work is stored but not finished everywhere (a forget whose
#: files or mirror still hold erased bytes): the report says which destination and why; running
#: the same command again finishes it.
INCOMPLETE_EXIT = 9

#: Exit code of :class:`StoreBusy`: 75 is ``EX_TEMPFAIL`` from sysexits.h ("try again later"),
#: which schedulers and shell loops already treat as retryable.
STORE_BUSY_EXIT = 75

#: Exit code of ``kg-memory check`` when the store breaks an invariant (it lists each one).
INTEGRITY_EXIT = 8

#: Exit codes of the ``kg-memory`` CLI, by error class (most specific first).
EXIT_CODES: tuple[tuple[type[KgMemoryError], int], ...] = (
    (StoreBusy, STORE_BUSY_EXIT),
    (StoreReadOnly, STORE_READ_ONLY_EXIT),
    (StoreFull, STORE_FULL_EXIT),
    (StoreUnavailable, 3),
    (IngestError, 2),
    (TimeError, 2),
    (IntervalError, 2),
    (InvalidArgument, 2),
    (PolicyError, 2),
    (QueryError, 2),
    (RecallError, 2),
    (ScopeError, 2),
    (NotFound, 4),
    (ForgottenError, 6),
    (ConcurrencyError, 5),
    (ConsolidationRefused, 7),
    (KgMemoryError, 1),
)

#: What each exit code of the ``kg-memory`` CLI means: the one table that ``--help``,
#: docs/cli.md and README.md show (a test holds it to every code a command can return).
EXIT_MEANINGS: dict[int, str] = {
    0: "ok (an empty answer is ok: the search or query ran)",
    1: "an error of no other kind",
    2: "bad input: a file line, an option, a policy, a query (the message names line and field)",
    3: "store unavailable: missing, unreadable or not a kg-memory store, Neo4j not answering",
    4: "not found: a named episode, assertion, entity, rule or plan does not exist",
    5: "precondition failed: if_match, or the evidence a consolidation read has changed",
    6: "forgotten: a write of forgotten content (a replay); retrying can never succeed "
       "(ingest reports a file's forgotten lines instead and goes on)",
    7: "refused for review: a consolidation that would drop a scope or an exception",
    INTEGRITY_EXIT: "kg-memory check found violations (each one is listed)",
    INCOMPLETE_EXIT: "incomplete: committed but not finished everywhere (a forget whose erased "
                     "bytes a full disk kept in the journal or whose mirror was unreachable, a "
                     "neo4j sync that fell behind); run the same command again to finish it",
    STORE_READ_ONLY_EXIT: "store read-only: its file, directory or mount; nothing was written, "
                          "reads still work; give write access",
    STORE_FULL_EXIT: "store full: no space left; nothing of the refused write was stored; free "
                     "space and run it again",
    STORE_BUSY_EXIT: "store busy: another writer held the lock past the busy timeout; retry",
}
