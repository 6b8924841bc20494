"""Consolidation: derive one reusable record (a profile) from several assertions, faithfully.

Pure rules only. :func:`derive_profile` is the deterministic derivation kg-memory ships (and the
one a forget run uses to rebuild a record from surviving evidence); :func:`scope_problems`
refuses a record that would lose meaning: Jo's "concise reports for Cedar, except audits" must
not become "Jo likes brevity".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.errors import InvalidArgument
from kg_memory.domain.model import Assertion, Qualifiers, Value

__all__ = ["Evidence", "derive_profile", "etag", "scope_problems"]

#: The halves of an ``ASSERTION_ID#REVISION`` tag, as ``if_match`` reads them.
_ID = r"^[^#\s]+$"
_REVISION = r"^[1-9][0-9]{0,17}$"


class Evidence(BaseModel):
    """A revision a worker read: publication is conditional on it still being current.

    The tag is the one ``if_match`` takes (:data:`~kg_memory.domain.record.IF_MATCH_PATTERN`):
    an id with no ``#`` or white space, and a revision counted from 1 in ASCII digits.

    >>> Evidence.parse("as_1#3").revision
    3
    >>> Evidence.parse("#3")
    Traceback (most recent call last):
    ...
    kg_memory.domain.errors.InvalidArgument: evidence '#3': field 'assertion_id' is empty; \
write ASSERTION_ID#REVISION
    """

    model_config = ConfigDict(frozen=True)

    assertion_id: str = Field(min_length=1, pattern=_ID)
    revision: int = Field(ge=1)

    @classmethod
    def parse(cls, text: str) -> Evidence:
        """``as_…#3`` (the form ``kg-memory asof`` prints); anything else is an
        :class:`~kg_memory.domain.errors.InvalidArgument` whose ``field`` says which half."""
        assertion_id, sep, revision = text.partition("#")
        if not sep:
            raise InvalidArgument(f"evidence {text!r} must look like ASSERTION_ID#REVISION")
        problem = None
        if not assertion_id:
            field, problem = "assertion_id", "is empty"
        elif not re.fullmatch(_ID, assertion_id):
            field, problem = "assertion_id", "holds white space"
        elif not re.fullmatch(_REVISION, revision):
            # ASCII only: str.isdigit() also takes "²" (int() refuses it) and "٣" (a 3).
            field, problem = "revision", "is not a whole number from 1"
        if problem is not None:
            raise InvalidArgument(
                f"evidence {text!r}: field {field!r} {problem}; write ASSERTION_ID#REVISION",
                field=field)
        return cls(assertion_id=assertion_id, revision=int(revision))

    def __str__(self) -> str:
        return f"{self.assertion_id}#{self.revision}"


def etag(version: Assertion | None) -> str | None:
    """The If-Match tag of a record's current revision (``None``: no record yet)."""
    return None if version is None else f"{version.assertion_id}#{version.revision}"


def _line(source: Assertion) -> str:
    text = f"{source.subject}.{source.predicate}={source.value}"
    if source.qualifiers.project:
        text += f" @{source.qualifiers.project}"
    if source.qualifiers.exceptions:
        text += f" except {', '.join(source.qualifiers.exceptions)}"
    return text


def derive_profile(
    sources: Sequence[Assertion], project: str | None = None
) -> tuple[Value, Qualifiers]:
    """A compact profile that keeps every source's project and exceptions.

    The value lists each source fact on its own, sorted so the same evidence always derives the
    same text; the qualifiers carry the record's project (``project``, else the one project its
    sources share) and the union of their exceptions.
    """
    projects = {s.qualifiers.project for s in sources if s.qualifiers.project}
    exceptions = sorted({e for s in sources for e in s.qualifiers.exceptions})
    value = "; ".join(sorted(_line(s) for s in sources))
    if project is None and len(projects) == 1:
        project = projects.pop()
    return value, Qualifiers(project=project, exceptions=tuple(exceptions))


def scope_problems(qualifiers: Qualifiers, evidence: Sequence[Assertion]) -> list[str]:
    """What a derived record with ``qualifiers`` would drop from ``evidence`` (empty: fine)."""
    problems = []
    for source in evidence:
        project = source.qualifiers.project
        if project and qualifiers.project != project:
            problems.append(f"drops project {project!r} of {source.assertion_id}")
        for exception in source.qualifiers.exceptions:
            if exception not in qualifiers.exceptions:
                problems.append(f"drops exception {exception!r} of {source.assertion_id}")
    return problems
