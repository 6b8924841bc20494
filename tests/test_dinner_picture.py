"""The picture of all 89 reads (seed 000's lab), drawn by the CLI and then looked at.

The PNG is opened with Pillow and its pixels are sampled at the block centres the layout
computes. Colours are recognised by name (grey, red, amber, violet, white) from their channels,
not compared with the drawing code's constants, and the reads checked by name come from the
seed's prose, so a picture that drew the wrong data, the wrong colour or in the wrong place
fails.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from kg_memory.cli import app
from kg_memory.sim.dinner import POLICIES, Verdict
from kg_memory.sim.picture import Box, Layout

runner = CliRunner()
KEYS = ["ana_diet", "next_dinner", "deposit_preapproved", "favourite"]
SESSION_DAYS = list(range(3, 88, 3))
SHAPE = {Verdict.RIGHT: "grey", Verdict.STALE: "red", Verdict.MISSING: "amber"}
SHAPE[Verdict.INJECTED] = "violet"


def colour_name(rgb: tuple[int, ...]) -> str:
    r, g, b = rgb[:3]
    if min(r, g, b) > 235:
        return "white"
    if max(r, g, b) - min(r, g, b) < 20 and 90 < r < 200:
        return "grey"
    if r > 170 and g < 90 and b < 90:
        return "red"
    if r > 200 and 110 < g < 200 and b < 70:
        return "amber"
    if 100 < r < 190 and g < 110 and b > 140:
        return "violet"
    return f"other{rgb[:3]}"


@cache
def drawn(tmp: str, *policies: str) -> tuple[Image.Image, dict[str, Any]]:
    path = Path(tmp) / f"reads-{len(policies)}.png"
    args = ["sim", "dinner", "reads", "--plot", str(path), "--json"]
    for p in policies:
        args += ["--policy", p]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with Image.open(path) as image:
        return image.convert("RGB"), json.loads(result.output)


@pytest.fixture(scope="module")
def picture(tmp_path_factory: pytest.TempPathFactory) -> tuple[Image.Image, dict[str, Any]]:
    return drawn(str(tmp_path_factory.mktemp("picture")))


def at(image: Image.Image, xy: tuple[int, int]) -> str:
    pixel = image.getpixel(xy)
    assert isinstance(pixel, tuple)
    return colour_name(pixel)


def block(panel: int, key: str, day: int, verdict: Verdict) -> Box:
    layout = Layout(panels=8, columns=len(SESSION_DAYS))
    return layout.block(panel, KEYS.index(key), SESSION_DAYS.index(day), verdict)


def seen(image: Image.Image, panel: int, key: str, day: int) -> str:
    """What the picture shows for one read: grey, red, violet, hollow amber or nothing."""
    # Sample where a full-height block's centre is: every drawn block covers it, except a
    # hollow one, whose outline is found on its left edge.
    box = block(panel, key, day, Verdict.STALE)
    inside = at(image, box.centre)
    if inside != "white":
        return inside
    x0, cy = round(box.x0), box.centre[1]
    edge = {at(image, (x, cy)) for x in range(x0 - 2, x0 + 3)}
    return "hollow amber" if "amber" in edge else "nothing"


def test_the_image_has_the_size_of_eight_stacked_panels(
    picture: tuple[Image.Image, dict[str, Any]], tmp_path: Path
) -> None:
    image, grid = picture
    layout = Layout(panels=8, columns=29)
    assert image.size == layout.size
    assert image.size[0] == 1000
    single, one = drawn(str(tmp_path), "provenance")
    assert [p["policy"] for p in one["panels"]] == ["provenance"]
    # Each extra panel adds exactly one band (title gap + four rows) to the height.
    assert image.size[1] - single.size[1] == 7 * (layout.gap + layout.panel)
    assert single.size[0] == image.size[0]
    assert [p["policy"] for p in grid["panels"]] == list(POLICIES)


def test_every_panel_draws_four_rows_with_each_reads_colour(
    picture: tuple[Image.Image, dict[str, Any]],
) -> None:
    image, grid = picture
    assert grid["days"] == SESSION_DAYS
    for p, panel in enumerate(grid["panels"]):
        assert [row["key"] for row in panel["rows"]] == KEYS
        for row in panel["rows"]:
            read_days = {c["day"]: Verdict(c["verdict"]) for c in row["cells"]}
            for day in SESSION_DAYS:
                got = seen(image, p, row["key"], day)
                if day not in read_days:
                    assert got == "nothing", (panel["policy"], row["key"], day)
                elif read_days[day] is Verdict.MISSING:
                    assert got == "hollow amber", (panel["policy"], row["key"], day)
                else:
                    assert got == SHAPE[read_days[day]], (panel["policy"], row["key"], day)
        # Nothing is drawn below the fourth row, in the gap before the next panel's title.
        below = block(p, "favourite", 3, Verdict.STALE)
        assert at(image, (below.centre[0], round(below.y1) + 6)) == "white"


# (policy, memory, day, what the picture shows), each from seed 000's prose.
SEED_READS = [
    # "written once on day 2, it was returned on every one of the 29 deposit reads"
    *[("contra-all", "deposit_preapproved", d, "violet") for d in SESSION_DAYS],
    # "Only the day-51 dinner read is right: 28 of the 29 are stale."
    *[("contra-chat", "next_dinner", d, "grey" if d == 51 else "red") for d in SESSION_DAYS],
    # "The favourite was last read on day 3, so its lease ran out long before day 81."
    ("ttl-refresh", "favourite", 3, "grey"),
    ("ttl-refresh", "favourite", 81, "hollow amber"),
    ("unused", "favourite", 81, "hollow amber"),
    # "The facts written on day 0 expire by day 7" / the claim is "returned on days 3 and 6"
    ("ttl-fixed", "ana_diet", 9, "hollow amber"),
    ("ttl-fixed", "deposit_preapproved", 3, "violet"),
    ("ttl-fixed", "deposit_preapproved", 6, "violet"),
    ("ttl-fixed", "deposit_preapproved", 9, "grey"),
    # "Ana's old diet ... survive[s]": vegetarian is still served after day 30
    ("keep", "ana_diet", 27, "grey"),
    ("keep", "ana_diet", 33, "red"),
    # "0 stale, 0 missing and 0 injected reads"
    *[("provenance", k, d, "grey") for k in KEYS[:3] for d in SESSION_DAYS],
    ("provenance", "favourite", 81, "grey"),
    # "watch the next-dinner row turn red": R1 never retired, R2 presented on day 81
    ("provenance-misfiled", "next_dinner", 3, "red"),
    ("provenance-misfiled", "next_dinner", 81, "red"),
    ("provenance-misfiled", "ana_diet", 81, "grey"),
]


def test_the_seeds_reads_have_the_seeds_colours(
    picture: tuple[Image.Image, dict[str, Any]],
) -> None:
    image, _ = picture
    panels = list(POLICIES)
    wrong = [
        (policy, key, day, expected, got)
        for policy, key, day, expected in SEED_READS
        if (got := seen(image, panels.index(policy), key, day)) != expected
    ]
    assert wrong == []


def test_a_right_read_is_a_short_block(picture: tuple[Image.Image, dict[str, Any]]) -> None:
    image, _ = picture
    p = list(POLICIES).index("provenance")
    short = block(p, "ana_diet", 3, Verdict.RIGHT)
    full = block(p, "ana_diet", 3, Verdict.STALE)
    x = short.centre[0]
    assert at(image, short.centre) == "grey"
    # Between the short block's top and where a full block's top would be: background.
    assert at(image, (x, round((short.y0 + full.y0) / 2))) == "white"
    stale = block(list(POLICIES).index("keep"), "next_dinner", 3, Verdict.STALE)
    assert at(image, (stale.centre[0], round(stale.y0) + 2)) == "red"


def test_the_picture_says_clearly_when_matplotlib_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # None in sys.modules makes `import matplotlib` fail as it does where it is not installed.
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    path = tmp_path / "reads.png"
    result = runner.invoke(app, ["sim", "dinner", "reads", "--plot", str(path)])
    assert result.exit_code == 1
    assert "pip install 'kg-memory-bitemporal[lab]'" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not path.exists()
    # Without --plot the grid needs no matplotlib.
    result = runner.invoke(app, ["sim", "dinner", "reads"])
    assert result.exit_code == 0, result.output


def test_reads_prints_the_grid_as_text_and_refuses_a_bad_plot_path(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["sim", "dinner", "reads", "-p", "provenance", "-p", "provenance-misfiled"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines)
    rows = [line for line in lines if line.startswith("next dinner")]
    assert len(rows) == 2
    assert set(rows[0][18:]) == {"."}
    assert rows[1][18:].count("S") == 28
    for bad in (str(tmp_path / "x.jpg"), str(tmp_path / "no" / "such" / "x.png")):
        result = runner.invoke(app, ["sim", "dinner", "reads", "--plot", bad])
        assert result.exit_code == 2, bad
