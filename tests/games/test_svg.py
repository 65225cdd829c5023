"""The SVG tiles and spaces of games/templatetags/microchip_svg.py."""

import copy
import logging
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils import translation
from django.utils.safestring import mark_safe

from games.drawing.svg import COLOUR_SHAPES, SPACE_FILLS, TILE_FILLS
from games.markers import Marks
from games.rules.tiles import COLOURS, KIND_PATHS, KINDS, TILES, Colour, E, Kind, N, S, W

TILE = Template(
    "{% load microchip_svg %}{% tile_svg kind colour paths colour_blind=cb label=label %}"
)
TILE_DEFAULTS = Template("{% load microchip_svg %}{% tile_svg kind colour paths %}")
SPACE = Template("{% load microchip_svg %}{% space_svg colour colour_blind=cb %}")
SPACE_DEFAULTS = Template("{% load microchip_svg %}{% space_svg colour %}")
MARKED = Template(
    "{% load microchip_svg %}{% tile_svg kind colour paths colour_blind=cb marks=marks %}"
)

SPRITE_TAG = Template("{% load microchip_svg %}{% tile_sprite colour_blind=cb %}")
SPRITE = ET.fromstring(SPRITE_TAG.render(Context({"cb": True})))

SIDE_AT = {(50, 1): N, (99, 50): E, (50, 99): S, (1, 50): W}
SIDE_WORDS = {N: "north", E: "east", S: "south", W: "west"}
SHAPES = {"triangle", "square", "circle", "diamond", "cross"}
LOGGER = "games.drawing.svg"


def tile(kind, colour, paths, cb=False, label=""):
    return TILE.render(
        Context({"kind": kind, "colour": colour, "paths": paths, "cb": cb, "label": label})
    )


def space(colour, cb=False):
    return SPACE.render(Context({"colour": colour, "cb": cb}))


def marked(kind, colour, paths, marks, cb=False):
    return MARKED.render(
        Context({"kind": kind, "colour": colour, "paths": paths, "cb": cb, "marks": marks})
    )


def svg(markup):
    """Parse the markup as XML (it must be well formed) and return the root element, with each
    `<use>` replaced by what it refers to in the page's sprite (in colour-blind mode), as a
    browser draws it: a group's drawing, or a symbol's (its own 100 x 100 box, the tile's)."""
    root = ET.fromstring(markup)
    assert root.tag == "svg"
    expand(root)
    return root


def expand(parent):
    while any(child.tag == "use" for child in parent):
        children = []
        for child in parent:
            if child.tag == "use":  # in its place, what it refers to, which inherits its fill
                for part in sprite_part(child.get("href")):
                    part = copy.deepcopy(part)
                    if child.get("fill") and not part.get("fill"):
                        part.set("fill", child.get("fill"))
                    children.append(part)
            else:
                children.append(child)
        parent[:] = children
    for child in parent:
        expand(child)


def uses(markup):
    """What the markup refers to in the sprite, in order (without the "#")."""
    return re.findall(r'<use href="#([a-z0-9-]+)"', markup)


def sprite_part(href):
    assert href.startswith("#"), href
    (found,) = [el for el in SPRITE.iter() if el.get("id") == href[1:]]
    return found


def test_the_sprite_is_drawn_once_a_page_and_has_every_tiles_paths(client, db):
    # The home page: a visitor's, which lists what is on the site (the database).
    page = client.get("/").content.decode()
    assert page.count('class="tile-sprite"') == 1
    masks = {mask for kind in KINDS for mask in KIND_PATHS[kind]}
    colours = [colour.value for colour in COLOURS]
    placed = {f"mark-{kind}-{side}" for kind in ("broken", "open") for side in "nesw"}
    plain = {"tile-face", "mark-broken", "mark-open", "tile-stripes"} | placed
    plain |= {f"tile-paths-{mask}" for mask in masks} | {f"tile-{mask}" for mask in masks}
    plain |= {f"space-{colour}" for colour in colours}
    plain |= {f"icon-{name}" for name in ("anticlockwise", "return", "clockwise")}
    plain_sprite = ET.fromstring(SPRITE_TAG.render(Context({"cb": False})))
    assert {el.get("id") for el in plain_sprite.iter() if el.get("id")} == plain
    # Colour-blind mode adds each colour's shape: in a tile's corner, a space's middle, a badge.
    shapes = {f"cb-{where}-{colour}" for where in ("tile", "space", "badge") for colour in colours}
    assert {el.get("id") for el in SPRITE.iter() if el.get("id")} == plain | shapes
    # What a tile, a space, a placed mark or a shape refers to is a symbol, its own 100 x 100 box.
    boxed = [el for el in SPRITE.iter() if el.tag == "symbol"]
    assert {el.get("id") for el in boxed} >= placed | shapes | {f"tile-{mask}" for mask in masks}
    assert {el.get("viewBox") for el in boxed if not el.get("id").startswith("icon-")} == {
        "0 0 100 100"
    }
    # The page's sprite follows its reader's setting (base.html).
    assert 'id="cb-tile-blue"' not in page


def by_class(root, name):
    return [el for el in root.iter() if name in (el.get("class") or "").split()]


def trace_ends(root):
    """Return the sides reached by the white paths, as a list (one entry per segment end)."""
    (trace,) = by_class(root, "tile-trace")
    numbers = [int(n) for n in re.findall(r"\d+", trace.get("d"))]
    points = list(zip(numbers[::2], numbers[1::2], strict=True))
    assert all(p in SIDE_AT or p == (50, 50) for p in points), points
    return [SIDE_AT[p] for p in points if p in SIDE_AT]


ALL_ORIENTATIONS = [
    pytest.param(kind.value, rotation, KIND_PATHS[kind][rotation], id=f"{kind.value}-r{rotation}")
    for kind in KINDS
    for rotation in range(4)
]


@pytest.mark.parametrize(("kind", "rotation", "mask"), ALL_ORIENTATIONS)
def test_every_kind_and_rotation_draws_exactly_its_connections(kind, rotation, mask):
    root = svg(tile(kind, "blue", mask))

    ends = trace_ends(root)
    assert len(ends) == mask.bit_count()  # one segment per connection, none twice
    assert sum(ends) == mask
    # Every segment starts or ends at the centre: the paths meet there.
    assert "50 50" in by_class(root, "tile-trace")[0].get("d")
    assert uses(tile(kind, "blue", mask)) == [f"tile-{mask}"]  # the sprite's, by mask
    assert uses(ET.tostring(sprite_part(f"#tile-{mask}"), encoding="unicode")) == [
        "tile-face",
        f"tile-paths-{mask}",
    ]


@pytest.mark.parametrize("kind", [k.value for k in KINDS])
def test_only_the_end_has_the_square_pad_and_only_the_cross_a_junction(kind):
    for mask in set(KIND_PATHS[Kind(kind)]):
        root = svg(tile(kind, "red", mask))
        pads = by_class(root, "tile-pad")
        assert len(pads) == (1 if kind == "end" else 0)
        if pads:
            assert pads[0].tag == "rect"
            assert pads[0].get("width") == pads[0].get("height")
            assert by_class(root, "tile-pad-hole")
        assert len(by_class(root, "tile-node")) == (1 if kind == "cross" else 0)


def test_a_tee_is_its_straight_line_with_a_stub_and_no_bulge_on_its_blank_side():
    """Its line runs through the centre between its opposite sides, the third side a stub from
    the centre; no junction dot wider than the path pokes out towards the blank side."""
    for mask, line, stub in (
        (N | E | S, "M50 1L50 50L50 99", "M50 50L99 50"),
        (E | S | W, "M99 50L50 50L1 50", "M50 50L50 99"),
        (N | S | W, "M50 1L50 50L50 99", "M50 50L1 50"),
        (N | E | W, "M99 50L50 50L1 50", "M50 50L50 1"),
    ):
        root = svg(tile("tee", "blue", mask))
        assert by_class(root, "tile-trace")[0].get("d") == line + stub
        assert not by_class(root, "tile-node") and not root.findall(".//{*}circle")


def test_a_straight_is_one_line_and_a_corner_one_bend():
    straight = by_class(svg(tile("straight", "green", N | S)), "tile-trace")[0].get("d")
    assert straight == "M50 1L50 50L50 99"
    corner = by_class(svg(tile("corner", "green", E | S)), "tile-trace")[0].get("d")
    assert corner == "M99 50L50 50L50 99"
    assert by_class(svg(tile("corner", "green", E | S)), "tile-trace")[0].get(
        "stroke-linejoin"
    ) == ("round")


def test_the_tile_is_a_scalable_rounded_square_of_its_colour():
    root = svg(tile("tee", "yellow", N | E | S))
    # The sprite's symbol is its 100 x 100 box: the tile needs none of its own.
    assert root.get("viewBox") is None
    assert sprite_part(f"#tile-{N | E | S}").get("viewBox") == "0 0 100 100"
    # Its colour (tiles.css); its kind is its paths'.
    assert root.get("class").split() == ["tile", "tile--yellow"]
    # Its size is its box's, from the stylesheet every page has (base.html), not sent with it.
    css = (Path(settings.BASE_DIR) / "games/static/games/tiles.css").read_text()
    sizing = re.search(r"\.tile,\s*\.space\s*\{([^}]*)\}", css).group(1)
    assert "width: 100%" in sizing and "height: 100%" in sizing and "overflow: hidden" in sizing
    (bg,) = by_class(root, "tile-bg")
    assert bg.tag == "rect"
    assert bg.get("rx")
    assert bg.get("fill") == "currentColor"  # the tile's colour, given on the tile by its class
    assert root.get("color") is None
    assert re.search(r"\.tile--yellow \{ color: var\(--tile-yellow, #e0b020\); \}", css)
    assert TILE_FILLS["yellow"] == "#e0b020"
    (trace,) = by_class(root, "tile-trace")
    assert trace.get("stroke") is None  # inherits the white of its group
    assert by_class(root, "tile-traces")[0].get("stroke") == "#ffffff"


@pytest.mark.parametrize(
    ("kind", "colour", "mask", "label"),
    [
        ("tee", "blue", N | E | S, "blue tee, paths north, east, south"),
        ("end", "red", W, "red end, path west"),
        ("straight", "green", E | W, "green straight, paths east, west"),
        ("corner", "yellow", S | W, "yellow corner, paths south, west"),
        ("cross", "pink", 15, "pink cross, paths north, east, south, west"),
    ],
)
def test_the_aria_label_names_the_colour_kind_and_paths(kind, colour, mask, label):
    root = svg(tile(kind, colour, mask))
    assert root.get("role") == "img"
    assert root.get("aria-label") == label


def test_a_given_label_replaces_the_default_one():
    root = svg(tile("cross", "pink", 15, label="Your tile: pink cross"))
    assert root.get("aria-label") == "Your tile: pink cross"


def test_the_tags_work_with_their_default_arguments_and_the_rules_enums():
    root = svg(TILE_DEFAULTS.render(Context({"kind": Kind.TEE, "colour": Colour.BLUE, "paths": 7})))
    assert root.get("aria-label") == "blue tee, paths north, east, south"
    assert not by_class(root, "cb-shape")
    root = svg(SPACE_DEFAULTS.render(Context({"colour": Colour.PINK})))
    assert root.get("aria-label") == "empty pink space"


def test_every_tile_of_the_game_in_every_rotation_draws_without_a_warning(caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    for t in TILES:
        for rotation in range(4):
            markup = tile(t.kind.value, t.colour.value, t.paths(rotation), cb=True)
            assert "unknown" not in markup
            assert len(markup) < 2000  # small enough for 60 tiles and 125 spaces on a page
    assert not caplog.records


@pytest.mark.parametrize("colour", [c.value for c in COLOURS])
def test_the_colour_blind_shape_appears_only_when_asked(colour):
    expected = COLOUR_SHAPES[colour]
    for markup in (tile("tee", colour, 7, cb=True), tile("end", colour, 1, cb=True)):
        shapes = by_class(svg(markup), "cb-shape")
        assert len(shapes) == 1
        assert f"cb-shape--{expected}" in shapes[0].get("class")
        # Dark ink with a white rim: it shows on every tile colour.
        assert shapes[0].get("fill") == "#1d2433"
        assert shapes[0].get("stroke") == "#ffffff"
    assert not by_class(svg(tile("tee", colour, 7, cb=False)), "cb-shape")
    assert "cb-shape" not in tile("tee", colour, 7)

    shapes = by_class(svg(space(colour, cb=True)), "cb-shape")
    assert len(shapes) == 1
    assert f"cb-shape--{expected}" in shapes[0].get("class")
    assert not by_class(svg(space(colour)), "cb-shape")


def test_the_colour_blind_shapes_follow_the_help_text():
    assert COLOUR_SHAPES == {
        "blue": "triangle",
        "red": "square",
        "green": "circle",
        "yellow": "diamond",
        "pink": "cross",
    }
    assert set(COLOUR_SHAPES.values()) == SHAPES


def shape_centre(shape):
    if shape.tag == "circle":
        return float(shape.get("cx")), float(shape.get("cy"))
    points = [tuple(map(float, p.split(","))) for p in shape.get("points").split()]
    xs, ys = zip(*points, strict=True)
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


@pytest.mark.parametrize("colour", [c.value for c in COLOURS])
def test_the_shape_sits_in_a_corner_of_a_tile_and_in_the_centre_of_a_space(colour):
    x, y = shape_centre(by_class(svg(tile("cross", colour, 15, cb=True)), "cb-shape")[0])
    assert x < 30 and y < 30  # the top-left corner, clear of the paths
    x, y = shape_centre(by_class(svg(space(colour, cb=True)), "cb-shape")[0])
    assert abs(x - 50) < 2 and abs(y - 50) < 2


@pytest.mark.parametrize("colour", [c.value for c in COLOURS])
def test_an_empty_space_is_a_light_tint_of_its_colour(colour):
    root = svg(space(colour))
    assert root.get("role") == "img"
    assert root.get("aria-label") == f"empty {colour} space"
    assert root.get("viewBox") is None  # the sprite's symbol's
    assert uses(space(colour)) == [f"space-{colour}"]
    assert root.get("class").split() == ["space", f"space--{colour}"]
    (fill,) = by_class(root, "space-fill")
    assert fill.get("fill") == SPACE_FILLS[colour]
    assert fill.get("stroke") == TILE_FILLS[colour]

    def lightness(hex_colour):
        return sum(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))

    assert lightness(SPACE_FILLS[colour]) > lightness(TILE_FILLS[colour]) + 150
    assert not by_class(root, "tile-trace")


@pytest.mark.parametrize(
    ("kind", "colour", "paths"),
    [
        ("bogus", "blue", 7),
        ("tee", "purple", 7),
        ("tee", "blue", 16),
        ("tee", "blue", -1),
        ("tee", "blue", "7x"),
        ("tee", "blue", None),
        ("tee", "blue", True),
        ("tee", "blue", 3.0),
        ("end", "blue", N | E),  # a mask the kind has in no rotation
        ("cross", "green", 0),
        ("", "", ""),
        (None, None, None),
        (["tee"], {"blue": 1}, [7]),
        ("<b>tee</b>", "<i>blue</i>", 7),
    ],
)
def test_unknown_tiles_draw_a_grey_fallback_and_log_a_warning(kind, colour, paths, caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    markup = tile(kind, colour, paths, cb=True)
    root = svg(markup)
    assert root.get("aria-label") == "unknown tile"
    assert root.get("class").split() == ["tile", "tile--unknown"]
    assert by_class(root, "tile-bg")[0].get("fill") == "#8a919e"
    assert not by_class(root, "tile-trace")
    assert not by_class(root, "cb-shape")
    assert "<b>" not in markup and "<i>" not in markup
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "unknown tile" in caplog.records[0].getMessage()


@pytest.mark.parametrize("colour", ["mauve", "", None, 3, "<script>x</script>"])
def test_unknown_spaces_draw_a_grey_fallback_and_log_a_warning(colour, caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    markup = space(colour, cb=True)
    root = svg(markup)
    assert root.get("aria-label") == "unknown space"
    assert root.get("class").split() == ["space", "space--unknown"]
    assert not by_class(root, "cb-shape")
    assert "<script" not in markup
    assert len(caplog.records) == 1


def test_inputs_are_normalised_where_the_meaning_is_clear():
    root = svg(tile(" Blue ", "TEE".lower(), "7"))  # kind and colour swapped: unknown
    assert root.get("aria-label") == "unknown tile"
    root = svg(tile(" TEE ", " Blue ", " 7 "))
    assert root.get("aria-label") == "blue tee, paths north, east, south"


@pytest.mark.parametrize(
    "label",
    [
        "<script>alert(1)</script>",
        mark_safe("<script>alert(1)</script>"),
        '" onload="alert(1)',
    ],
)
def test_labels_are_always_escaped(label):
    markup = tile("tee", "blue", 7, label=label)
    assert "<script" not in markup
    assert "onload=" not in markup.replace("onload=&quot;", "")
    root = svg(markup)  # still well formed
    assert root.get("aria-label") == str(label)
    assert "&lt;script&gt;" in markup or "&quot;" in markup


@pytest.mark.parametrize(
    "markup",
    [
        pytest.param(tile("end", "blue", 1, cb=True), id="end"),
        pytest.param(tile("cross", "pink", 15, cb=True), id="cross"),
        pytest.param(tile("nope", "pink", 15, cb=True), id="unknown-tile"),
        pytest.param(
            marked("cross", "red", 15, Marks("red", "blue", 15, off=N, clash=E, open=S), cb=True),
            id="marked",
        ),
        pytest.param(space("green", cb=True), id="space"),
        pytest.param(space("nope"), id="unknown-space"),
    ],
)
def test_the_markup_is_csp_friendly_and_self_contained(markup):
    assert markup == markup.strip()  # no stray text nodes around the inline svg
    lowered = markup.lower()
    assert "style" not in lowered  # no style attributes or elements
    assert "<script" not in lowered
    assert not re.search(r"\son\w+\s*=", lowered)  # no inline event handlers
    assert "url(" not in lowered and "http" not in lowered
    # Links only to the page's own sprite, which holds what they name.
    for href in re.findall(r"href=\"([^\"]*)\"", markup):
        assert sprite_part(href) is not None
    assert len(re.findall(r"href", lowered)) == markup.count("<use href=")
    assert not re.search(r"\sid=", lowered)  # no ids to clash when many tiles share a page
    root = svg(markup)
    assert root.get("width") is None and "px" not in lowered  # sized by its box (tiles.css)
    # Its own 100 x 100 box only when it draws on it itself (an unknown tile or space).
    assert (root.get("viewBox") is not None) == ("unknown" in markup or "tile-stripes" in markup)


def test_numbers_are_not_localized():
    with translation.override("de"):
        for colour in COLOURS:
            for markup in (tile("tee", colour.value, 7, cb=True), space(colour.value, cb=True)):
                (shape,) = by_class(svg(markup), "cb-shape")
                values = [shape.get(a) for a in ("cx", "cy", "r") if shape.get(a)]
                values += [v for p in (shape.get("points") or "").split() for v in p.split(",")]
                assert len(values) >= 3
                assert all(re.fullmatch(r"-?\d+(\.\d)?", v) for v in values), values
                if shape.get("points"):
                    assert all(len(p.split(",")) == 2 for p in shape.get("points").split())


@pytest.mark.parametrize(
    ("value", "names"),
    [
        (7, "north, east, south"),
        (8, "west"),
        (N | S, "north, south"),
        (15, "north, east, south, west"),
        ("10", "east, west"),
        (0, ""),
        (16, ""),
        (-1, ""),
        ("x", ""),
        (None, ""),
    ],
)
def test_path_names_filter(value, names):
    rendered = Template("{% load microchip_svg %}{{ value|path_names }}").render(
        Context({"value": value})
    )
    assert rendered == names


def test_colour_shape_filter():
    template = Template("{% load microchip_svg %}{{ c|colour_shape }}")
    assert template.render(Context({"c": "yellow"})) == "diamond"
    assert template.render(Context({"c": "<b>"})) == ""


# --- markers over a placed tile ----------------------------------------------------------------

#: Where each side's marker is centred, and whether the icon is turned (its wire across that side).
MARK_AT = {N: (50, 20), E: (80, 50), S: (50, 80), W: (20, 50)}


def children_classes(root):
    return [(el.get("class") or "").split() for el in root]


def title_of(element):
    (title,) = element.findall("title")
    return title.text


def centre_of(mark):
    x, y = re.match(r"translate\((\d+) (\d+)\)", mark.get("transform")).groups()
    return int(x), int(y)


def tooltip(root):
    """The words of a drawing's marks: its one tooltip, over what is drawn over the tile."""
    (marks,) = by_class(root, "tile-marks")
    return title_of(marks)


@pytest.mark.parametrize(("tile_colour", "space_colour"), [("red", "blue"), ("yellow", "pink")])
def test_a_wrong_colour_stripes_the_tile_in_the_spaces_colour_under_its_paths(
    tile_colour, space_colour
):
    markup = marked("tee", tile_colour, 7, Marks(tile_colour, space_colour, 7))
    root = svg(markup)
    (stripes,) = by_class(root, "tile-stripes")
    assert f"space--{space_colour}" in stripes.get("class")  # tiles.css: var(--space-colour)
    assert stripes.find("path").get("fill") == TILE_FILLS[space_colour]
    # With no icon, the stripes carry the tooltip.
    assert title_of(stripes) == f"wrong colour: a {tile_colour} tile on a {space_colour} space"
    # Over the tile's colour, under its white paths: both colours show and the paths read.
    assert uses(markup) == ["tile-face", "tile-stripes", "tile-paths-7"]
    assert root.get("viewBox") == "0 0 100 100"  # the stripes' own box
    order = [next(iter(c), "") for c in children_classes(root)]
    assert order.index("tile-fill") < order.index("tile-stripes") < order.index("tile-shadow")
    assert order.index("tile-stripes") < order.index("tile-traces")
    # Diagonal stripes inside the rounded square, a good part of it left in the tile's colour.
    numbers = [float(n) for n in re.findall(r"[\d.]+", stripes.find("path").get("d"))]
    assert min(numbers) >= 4 and max(numbers) <= 96
    assert stripes.find("path").get("d").count("M") >= 8
    assert f"tile--{tile_colour}" in root.get("class").split()


def test_the_stripes_show_the_spaces_shape_in_colour_blind_mode():
    root = svg(marked("end", "red", 1, Marks("red", "blue", 1), cb=True))
    (badge,) = by_class(root, "tile-space-badge")
    assert [s.get("class") for s in by_class(badge, "cb-shape")] == ["cb-shape cb-shape--triangle"]
    assert tooltip(root) == "wrong colour: a red tile on a blue space"
    assert badge in by_class(root, "tile-marks")[0]  # under the tooltip, over the paths
    x, y = shape_centre(by_class(badge, "cb-shape")[0])
    assert abs(x - 80) < 1 and abs(y - 80) < 1  # the bottom-right corner
    # The tile's own shape is still there, in its corner.
    own = [s for s in by_class(root, "cb-shape") if s not in by_class(badge, "cb-shape")]
    assert [s.get("class") for s in own] == ["cb-shape cb-shape--square"]
    assert not by_class(svg(marked("end", "red", 1, Marks("red", "blue", 1))), "tile-space-badge")


def test_no_stripes_on_a_tile_of_its_spaces_colour():
    root = svg(marked("end", "green", 1, Marks("green", "green", 1, open=N), cb=True))
    assert not by_class(root, "tile-stripes") and not by_class(root, "tile-space-badge")


SIDE_LETTER = {N: "n", E: "e", S: "s", W: "w"}


@pytest.mark.parametrize("side", [N, E, S, W])
def test_a_broken_connection_gets_the_broken_circuit_icon_on_its_side(side):
    markup = marked("cross", "blue", 15, Marks("blue", "blue", 15, off=side))
    # The sprite's icon, placed on that side: one reference.
    assert uses(markup) == ["tile-15", f"mark-broken-{SIDE_LETTER[side]}"]
    root = svg(markup)
    (icon,) = by_class(root, "mark")
    assert icon.get("class").split() == ["mark", "mark-broken"]
    assert centre_of(icon) == MARK_AT[side]
    # Its wire runs across the side it marks: upright on north and south, turned on east/west.
    assert ("rotate(90)" in icon.get("transform")) == (side in (E, W))
    assert tooltip(root) == (
        f"broken connection on its {SIDE_WORDS[side]} side: the path runs off the board"
    )
    (face,) = by_class(icon, "mark-face")
    assert face.get("fill") == "#c62828" and face.get("stroke") == "#ffffff"
    # The wire is two pieces with a gap between them: a break.
    (ink,) = by_class(icon, "mark-ink")
    assert ink.get("d").count("M") == 2
    assert not by_class(root, "mark-open") and not by_class(root, "tile-stripes")


@pytest.mark.parametrize("side", [N, E, S, W])
def test_an_open_path_gets_the_warning_triangle_on_its_side(side):
    markup = marked("end", "pink", side, Marks("pink", "pink", side, open=side))
    assert uses(markup) == [f"tile-{side}", f"mark-open-{SIDE_LETTER[side]}"]
    root = svg(markup)
    (icon,) = by_class(root, "mark")
    assert icon.get("class").split() == ["mark", "mark-open"]
    assert centre_of(icon) == MARK_AT[side] and "rotate" not in icon.get("transform")
    assert tooltip(root) == f"path open to the {SIDE_WORDS[side]}"
    assert not by_class(root, "mark-broken")


def test_every_marker_at_once_one_per_side_above_everything_else():
    marks = Marks("red", "pink", 15, off=N, clash=E | S, open=W)
    root = svg(marked("cross", "red", 15, marks, cb=True))
    icons = by_class(root, "mark")
    assert [(icon.get("class"), centre_of(icon)) for icon in icons] == [
        ("mark mark-broken", MARK_AT[N]),
        ("mark mark-broken", MARK_AT[E]),
        ("mark mark-broken", MARK_AT[S]),
        ("mark mark-open", MARK_AT[W]),
    ]
    # One tooltip for them all: every mark's words, the sides of a kind together.
    assert tooltip(root) == marks.words()
    assert "wrong colour" in tooltip(root) and "open to the west" in tooltip(root)
    # Drawn last, over the paths and the shapes.
    (over,) = by_class(root, "tile-marks")
    assert list(root)[-1] is over and list(over)[-4:] == icons
    assert len(marked("cross", "red", 15, marks, cb=True)) < 1000


def test_a_tile_inside_a_control_says_nothing_itself():
    """Inside a labelled button (the player's own board): no role, label or tooltip of its own,
    nothing to hide; the button's label names it and its title says the marks."""
    marks = Marks("red", "red", 15, off=N, open=W)
    markup = DECORATIVE.render(Context({"marks": marks}))
    assert markup == (
        '<svg class="tile tile--red"><use href="#tile-15"/><use href="#mark-broken-n"/>'
        '<use href="#mark-open-w"/></svg>'
    )
    assert "<title" not in markup and "aria" not in markup and "role" not in markup
    space_markup = Template("{% load microchip_svg %}{% space_svg 'red' decorative=True %}")
    drawn = space_markup.render(Context())
    assert drawn == '<svg class="space space--red"><use href="#space-red"/></svg>'


DECORATIVE = Template(
    "{% load microchip_svg %}{% tile_svg 'cross' 'red' 15 marks=marks decorative=True %}"
)


def test_marks_that_are_not_marks_draw_nothing_and_log_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        markup = marked("end", "red", 1, ("red", "blue", 1, 1, 0, 0))
    assert markup == tile("end", "red", 1)
    assert "marks that are not Marks" in caplog.text


def test_tiles_that_differ_only_in_their_marks_are_drawn_apart():
    drawn = {
        marked("end", "red", 1, marks)
        for marks in (
            None,
            Marks("red", "blue", 1),
            Marks("red", "red", 1, off=N),
            Marks("red", "red", 1, open=N),
            Marks("red", "red", 1, clash=N),
        )
    }
    assert len(drawn) == 5
