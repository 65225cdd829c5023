"""The two palettes (microchip/site.css's light one, microchip/dark.css's dark one): every colour
of the stylesheets is one of their names, and what is written on what is readable in both
(WCAG 2.1: 4.5:1 for text, 3:1 for marks and outlines). axe-core checks the pages it is shown;
this checks the pairs no test page may happen to show (a refusal, a provisional rating, a
notice)."""

import re

import pytest
from django.contrib.staticfiles import finders

STYLESHEETS = ["microchip/site.css", "microchip/dark.css", "games/game.css", "games/history.css"]
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(")
PALETTE_BLOCK = re.compile(r"^:root \{\n(.*?)^\}", re.DOTALL | re.MULTILINE)
NAME = re.compile(r"^\s*--([\w-]+):\s*([^;]+);", re.MULTILINE)

TEXT = [
    ("ink", "paper"),
    ("ink", "card"),
    ("ink", "field"),
    ("muted", "paper"),
    ("muted", "card"),
    ("accent", "paper"),  # links
    ("accent", "card"),
    ("accent-ink", "accent"),  # buttons
    ("danger", "card"),  # errors
    ("danger", "danger-bg"),  # refusals, timeouts
    ("danger-ink", "danger"),  # the nav's badge, the illegal marker
    ("ok", "card"),
    ("ok", "ok-bg"),
    ("ok-ink", "ok"),  # "drafting"
    ("warning-ink", "warning"),  # "provisional"
    ("muted-ink", "muted"),  # "finished"
    ("ink", "info-bg"),  # messages
    ("ink", "highlight-bg"),  # notices, the dashboard's "your turn" rows
    ("ok", "highlight-bg"),
    ("accent", "highlight-bg"),
    ("bot-badge-ink", "bot-badge-bg"),
    ("header-ink", "header"),
    ("header-link", "header"),
    ("marker-open-ink", "marker-open"),  # the open path's triangle
    ("marker-broken-ink", "marker-broken"),  # the broken-circuit icon
]
MARKS = [
    ("warning", "draw-column-bg"),  # the draw column's outline
    ("accent", "column-bg"),  # a draftable tile's ring
    ("ok", "card"),  # the current seat's outline
    ("on-board", "board"),  # the legal spaces, the selected tile
    ("focus-inner", "focus-outer"),  # the focus ring's two colours
    ("header-ink", "header"),  # the focus ring in the nav
    *[("focus-inner", f"tile-{colour}") for colour in ("blue", "red", "green", "yellow", "pink")],
]
# Where the focus ring of a tile or a space is drawn: one of its two colours stands out.
RING_GROUNDS = ["board", "card", "column-bg", "draw-column-bg"]


def read(name):
    with open(finders.find(name)) as stylesheet:
        return stylesheet.read()


def palette(name):
    [block] = PALETTE_BLOCK.findall(read(name))
    return dict(NAME.findall(block))


LIGHT = palette("microchip/site.css")
DARK = {**LIGHT, **palette("microchip/dark.css")}


def luminance(hex_colour):
    def linear(channel):
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one, other):
    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_every_colour_of_the_stylesheets_is_a_name_of_the_palette():
    for name in STYLESHEETS:
        rules = PALETTE_BLOCK.sub("", read(name))
        assert COLOUR.findall(rules) == [], f"{name}: a colour outside the palette"


def test_the_tiles_stylesheet_falls_back_to_the_light_palette():
    """games/tiles.css works on its own (its var()s have fallbacks): the same colours."""
    fallbacks = re.findall(r"var\(--([\w-]+), (#[0-9a-fA-F]+)\)", read("games/tiles.css"))
    assert len(fallbacks) >= 10
    for name, fallback in fallbacks:
        assert full(LIGHT[name]) == full(fallback), name


def full(hex_colour):
    """#fff as #ffffff."""
    digits = hex_colour.lower().removeprefix("#")
    return "#" + ("".join(digit * 2 for digit in digits) if len(digits) == 3 else digits)


def test_the_dark_palette_names_only_colours_of_the_light_one():
    assert set(palette("microchip/dark.css")) <= set(LIGHT)
    assert DARK["paper"] != LIGHT["paper"]


@pytest.mark.parametrize("colours", [LIGHT, DARK], ids=["light", "dark"])
def test_what_is_written_on_what_is_readable_in_both_themes(colours):
    too_faint = [
        (ink, ground, round(contrast(colours[ink], colours[ground]), 2))
        for pairs, least in ((TEXT, 4.5), (MARKS, 3))
        for ink, ground in pairs
        if contrast(colours[ink], colours[ground]) < least
    ]
    assert too_faint == []
    for ground in RING_GROUNDS:
        ring = [contrast(colours[f"focus-{band}"], colours[ground]) for band in ("inner", "outer")]
        assert max(ring) >= 3, ground
