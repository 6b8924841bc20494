"""Tables for people that fit the terminal: no cell ever wraps onto a second line.

A :class:`Sheet` holds typed cells (text, instants, intervals, ids) and is laid out for one
terminal width when it is printed, because only then is the width known. While the table is too
wide, in this order:

1. the widest free-text column that does not identify the row (``cut`` without
   ``identifies``: writers, sources, who said it) loses a character, down to
   :data:`SOFT_WIDTH`; what is cut ends in an ellipsis, in the middle for names;
2. optional columns are left out, the least important first (the highest ``priority``); the
   caption names them and says ``--wide``;
3. those columns are cut further, down to their header's width (at least :data:`MIN_WIDTH`);
4. only then are the columns that identify a row (``identifies``: the fact, its value, a
   refusal's reason) cut, the widest first, down to their header's width;
5. then columns are left out from the right: a terminal narrower than the intervals
   themselves gets fewer columns, never garbled ones.

Room freed by a hidden column goes back to what was cut. Instants, intervals and ids are never
cut (kg_memory.cli.instants makes instants short instead; an id cut is an id that cannot be
pasted back, so an id is shown whole or its column is left out). Every cell is one line: a
value's own line breaks and control characters are shown as escapes (``\\n``, ``\\x1b``), so no
stored text can split a row or drive the terminal, and rich markup in stored text prints as
written. A title or caption longer than the terminal is cut with an ellipsis. ``wide`` shows
every column whole and instants in full, even past the terminal's width. The user-facing summary
of these rules is docs/cli.md, "Reading the tables" (generated from kg_memory.cli.docs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from rich import box
from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kg_memory import Interval
from kg_memory.cli.instants import Precision, TimeFormat, exact, single_year

__all__ = [
    "GAP", "MIN_WIDTH", "SOFT_WIDTH", "Column", "Ident", "Sheet", "cut_middle", "text",
]

SOFT_WIDTH = 24
MIN_WIDTH = 6
GAP = 2  # columns are two spaces apart: the narrowest gap that still reads as a gap

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Ident:
    """An id, always whole: what a table prints can be pasted into any command that takes an
    id (a shortened id names nothing). ``suffix`` follows it (``#2``, `` +3``)."""

    value: str
    suffix: str = ""

    def show(self, wide: bool) -> str:
        return self.value + self.suffix


Part = str | datetime | Interval | Ident | None
Cell = Part | tuple[Part, ...]


@dataclass(frozen=True)
class Column:
    """``priority`` 0 is always shown, higher numbers are left out first when there is no room.

    ``cut`` lets long text be shortened with an ellipsis: ``"end"`` for values and prose,
    ``"middle"`` for names, whose distinguishing part is often at the end
    (``j17.report_style @b2`` and ``@c1`` stay apart as ``j17.rep…e @b2`` and ``…e @c1``).
    ``identifies`` columns are cut only when nothing else is left to cut or leave out.
    """

    header: str
    priority: int = 0
    cut: Literal["end", "middle"] | None = None
    justify: Literal["left", "right"] = "left"
    #: the column names what the row is (a fact, its value, a refusal's reason): cut last
    identifies: bool = False


def text(value: object) -> str:
    """A stored value as one line: strings as written, anything else as JSON; line breaks and
    control characters as their escapes.

    >>> text("a\\nb\\x1b[2J"), text({"kind": "fish"}), text(True)
    ('a\\\\nb\\\\x1b[2J', '{"kind": "fish"}', 'true')
    """
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], shown)


@dataclass
class Sheet:
    """A titled table of typed cells, laid out when printed."""

    title: str | tuple[Part, ...]
    columns: Sequence[Column]
    caption: str = ""
    rows: list[tuple[Cell, ...]] = field(default_factory=list)

    def add_row(self, *cells: Cell) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(cells)

    def natural_widths(self, *, wide: bool = False) -> list[int]:
        """Each column's width with nothing cut: its header or its widest cell."""
        cells = self._texts(wide)
        return [max([cell_len(c.header), *(cell_len(row[i]) for row in cells)])
                for i, c in enumerate(self.columns)]

    def layout(self, width: int) -> tuple[list[int], list[int]]:
        """The columns shown at ``width`` (their indexes) and every column's width there:
        the rules of this module's docstring, in their order."""
        shown, widths, _ = self._fit(width, list(range(len(self.columns))),
                                     self.natural_widths())
        return shown, widths

    def render(self, width: int, *, wide: bool = False) -> Table:
        """The rich table for a terminal ``width`` columns wide (ignored when ``wide``)."""
        cells = self._texts(wide)
        shown = list(range(len(self.columns)))
        widths = self.natural_widths(wide=wide)
        hidden: list[str] = []
        if not wide:
            shown, widths, hidden = self._fit(width, shown, widths)
        caption = self._caption(hidden, width)
        title = self._title()
        if not wide:  # a title or caption is one line too
            title, caption = (str(_cut(t, width, "end")) for t in (title, caption))
        table = Table(
            title=title,
            caption=caption or None,
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            collapse_padding=True,
            padding=(0, 1),
            min_width=max(cell_len(title), cell_len(caption)),
        )
        for i in shown:
            column = self.columns[i]
            table.add_column(
                column.header,
                justify=column.justify,
                no_wrap=True,
                overflow="ellipsis",
                max_width=None if wide else widths[i],
            )
        for row in cells:
            table.add_row(*(_cut(row[i], widths[i], self.columns[i].cut) for i in shown))
        return table

    def print(self, console: Console, *, wide: bool = False) -> None:
        """Print for ``console``'s width; wide, as wide as the table needs (the terminal wraps)."""
        table = self.render(console.width, wide=wide)
        if not wide:
            console.print(table)
            return
        needed = console.measure(table, options=console.options.update_width(10**4)).maximum
        # A console never prints wider than itself, so a wide table gets one of its own that
        # writes to the same file with the same colours.
        Console(
            file=console.file,
            width=max(console.width, needed),
            force_terminal=console.is_terminal,
            color_system=console.color_system,  # type: ignore[arg-type]
            no_color=console.no_color,
        ).print(table)

    # -- layout ------------------------------------------------------------------------------

    def _fit(
        self, width: int, shown: list[int], widths: list[int]
    ) -> tuple[list[int], list[int], list[str]]:
        def total() -> int:
            return sum(widths[i] for i in shown) + GAP * (len(shown) - 1)

        def floor(i: int) -> int:
            return max(MIN_WIDTH, cell_len(self.columns[i].header))

        cut = [i for i, c in enumerate(self.columns) if c.cut]
        incidental = [i for i in cut if not self.columns[i].identifies]
        natural = list(widths)

        def narrow(columns: list[int], limit: Callable[[int], int]) -> None:
            while total() > width:
                narrowable = [i for i in columns if i in shown and widths[i] > limit(i)]
                if not narrowable:
                    return
                widths[max(narrowable, key=lambda i: widths[i])] -= 1

        narrow(incidental, lambda i: max(SOFT_WIDTH, floor(i)))
        droppable = sorted(
            (i for i, c in enumerate(self.columns) if c.priority > 0),
            key=lambda i: (self.columns[i].priority, i),
        )
        while total() > width and droppable:
            shown.remove(droppable.pop())
        narrow(incidental, floor)
        narrow(cut, floor)  # what identifies the row, last
        # Narrower still than the columns that are never cut: leave columns out from the right
        # rather than let them be squeezed into unreadable slivers.
        while total() > width and len(shown) > 1:
            shown.pop()
        # Hiding a column may leave room: give it back to what was cut, what identifies the
        # row first, then the most cut.
        while total() < width:
            short = [i for i in cut if i in shown and widths[i] < natural[i]]
            if not short:
                break
            widths[max(short, key=lambda i: (self.columns[i].identifies,
                                             natural[i] - widths[i]))] += 1
        hidden = [c.header for i, c in enumerate(self.columns) if i not in shown]
        return shown, widths, hidden

    def _formats(self, wide: bool) -> tuple[int | None, list[TimeFormat]]:
        per_column: list[list[datetime]] = [[] for _ in self.columns]
        for row in self.rows:
            for i, cell in enumerate(row):
                per_column[i].extend(_instants(cell))
        year = single_year(i for column in per_column for i in column)
        return year, [
            TimeFormat(year, Precision.EXACT if wide else Precision.of(column))
            for column in per_column
        ]

    def _texts(self, wide: bool) -> list[list[str]]:
        _, formats = self._formats(wide)
        return [
            [
                "".join(_show(p, fmt, wide) for p in _parts(cell))
                for fmt, cell in zip(formats, row, strict=True)
            ]
            for row in self.rows
        ]

    def _title(self) -> str:
        whole = TimeFormat(precision=Precision.EXACT)
        return "".join(exact(p) if isinstance(p, datetime) else _show(p, whole, wide=True)
                       for p in _parts(self.title))

    def _caption(self, hidden: list[str], width: int) -> str:
        year, _ = self._formats(wide=False)
        notes = [self.caption] if self.caption else []
        if any(_instants(cell) for row in self.rows for cell in row):
            notes.append("UTC" if year is None else f"UTC, {year}")
        if not hidden:
            return " · ".join(notes)
        named = " · ".join([*notes, f"{', '.join(hidden)}: --wide"])
        # The caption is one line too: name the hidden columns if they fit, else count them.
        return named if cell_len(named) <= width else " · ".join(
            [*notes, f"{len(hidden)} more column(s): --wide"])


def _parts(cell: Cell) -> tuple[Part, ...]:
    return cell if isinstance(cell, tuple) else (cell,)


def _instants(cell: Cell) -> list[datetime]:
    found: list[datetime] = []
    for part in _parts(cell):
        if isinstance(part, datetime):
            found.append(part)
        elif isinstance(part, Interval):
            found.extend(i for i in (part.start, part.end) if i is not None)
    return found


def _show(part: Part, fmt: TimeFormat, wide: bool) -> str:
    if part is None:
        return ""
    if isinstance(part, datetime):
        return fmt.instant(part)
    if isinstance(part, Interval):
        return fmt.interval(part)
    if isinstance(part, Ident):
        return text(part.show(wide))
    return text(part)


def cut_middle(value: str, width: int) -> str:
    """``value`` within ``width`` columns, an ellipsis in its middle if it is wider: a name,
    id or path keeps both its start and the end that often tells two apart."""
    if cell_len(value) <= width or width < 3:
        return value
    tail = (width - 1) // 2
    end = set_cell_size(value[::-1], tail)[::-1]
    return set_cell_size(value, width - 1 - tail) + "…" + end


def _cut(value: str, width: int, where: Literal["end", "middle"] | None) -> Text:
    """A cell as plain text (never markup), shortened with an ellipsis to ``width`` if wider."""
    if where == "middle":
        value = cut_middle(value, width)
    cell = Text(value, no_wrap=True, overflow="ellipsis")
    if cell_len(value) > width:
        cell.truncate(width, overflow="ellipsis")
    return cell
