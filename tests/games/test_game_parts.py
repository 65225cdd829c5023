"""The spaces, tray tiles and pool tiles of a game page, each drawn once per process and reused
(games/templatetags/pieces.py): what each draws, and that a cached drawing never shows a
stale version, another game's links or another viewer's controls."""

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from games import rules, selectors
from games.history.replay import replay_view
from games.live import pieces
from games.markers import Marks, board_marks
from games.models import Seat
from games.play import actions
from games.rules.board import bits
from games.rules.tiles import TILE_PATHS, E, N, S, W

from .playing import current_state, mark_every_way, next_move

pytestmark = pytest.mark.django_db


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def elements(html, tag=None, **having):
    """The start tags in `html` (their attributes), of `tag`, with these attribute values."""
    parser = _Elements()
    parser.feed(html)
    return [
        attrs
        for name, attrs in parser.found
        if (tag is None or name == tag) and all(attrs.get(k) == v for k, v in having.items())
    ]


def by_id(html):
    return {attrs["id"]: attrs for attrs in elements(html) if "id" in attrs}


def seat_html(view, seat, user):
    return render_to_string("games/partials/seat.html", {"view": view, "seat": seat, "user": user})


def pool_html(view, user):
    return render_to_string("games/partials/pool.html", {"view": view, "user": user})


def play(game, moves):
    """Play `moves` sensible moves; return the game as it is then."""
    for _ in range(moves):
        game.refresh_from_db()
        state = current_state(game)
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
            continue
        seat, action = next_move(game)
        user = game.seats.get(number=seat).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=game.version)
    game.refresh_from_db()
    return game


@pytest.fixture
def game(start_game):
    """A game of two whose boards both hold at least two tiles."""
    game = start_game(2)
    while (
        min(len(board.cells) - board.cells.count(None) for board in current_state(game).boards) < 2
    ):
        game = play(game, 1)
    return game


def owner_of(game, number):
    return game.seats.get(number=number).user


def a_placed_space(view):
    return next(space.index for space in view.viewer_seat.spaces if space.tile)


def an_empty_space(view):
    return next(space.index for space in view.viewer_seat.spaces if space.tile is None)


def test_the_owner_selects_tiles_and_everyone_else_sees_a_labelled_drawing(game, players):
    owner = owner_of(game, 0)
    mine = selectors.game_view(game, owner)
    spectator = players[4]
    theirs = selectors.game_view(game, spectator)
    placed = a_placed_space(mine)
    urls = (reverse("games:fragment", args=[game.pk]), reverse("games:game", args=[game.pk]))

    own = seat_html(mine, mine.viewer_seat, owner)
    seen = seat_html(theirs, theirs.seats[0], spectator)

    button = by_id(own)[f"my-space-{placed}"]
    assert button["class"] == "tile-button" and button["data-rotate"] == str(placed)
    assert button["hx-get"] == f"{urls[0]}?sel=s{placed}"
    assert button["hx-push-url"] == f"{urls[1]}?sel=s{placed}"
    space = mine.viewer_seat.spaces[placed]
    last = ", the last tile this player got" if space.tile.id == mine.viewer_seat.last_tile else ""
    assert button["aria-label"] == f"Select the {space.label}{last} (R rotates it)"
    assert not elements(own, "button", id=f"my-space-{an_empty_space(mine)}")
    # The same board, drawn for someone else after the owner's drawing was cached: no controls.
    assert "my-space-" not in seen and "hx-get" not in seen and "hx-post" not in seen
    label = theirs.seats[0].spaces[placed].label + last
    assert elements(seen, "svg", **{"aria-label": label})
    # And for its owner again, after someone else's: the controls are back.
    assert seat_html(mine, mine.viewer_seat, owner) == own


def test_a_selected_tile_opens_its_menu_and_the_others_swap_or_move_whatever_the_version(game):
    owner = owner_of(game, 0)
    view = selectors.game_view(game, owner)
    placed = a_placed_space(view)
    view = selectors.game_view(game, owner, selectors.Selection(space=placed))
    other = next(s.index for s in view.viewer_seat.spaces if s.tile and s.index != placed)
    empty = an_empty_space(view)
    act, fragment, page = (
        reverse(f"games:{name}", args=[game.pk]) for name in ("act", "fragment", "game")
    )

    html = seat_html(view, view.viewer_seat, owner)
    drawn = by_id(html)

    selected, swap, move = (
        drawn[f"my-space-{placed}"],
        drawn[f"my-space-{other}"],
        drawn[f"my-space-{empty}"],
    )
    # Tapped again, the selected tile is put down (its menu closes); R still turns it.
    assert selected["aria-pressed"] == "true" and selected["aria-label"].startswith("Put down the ")
    assert selected["hx-get"] == fragment and selected["hx-push-url"] == page
    assert selected["data-rotate"] == str(placed) and "hx-vals" not in selected
    tile = view.viewer_seat.spaces[placed].tile
    name = f"{tile.colour} {tile.kind}"
    menu = {
        "tile-menu-anticlockwise": {"type": "rotate", "space": placed, "quarter_turns": 3},
        "tile-menu-clockwise": {"type": "rotate", "space": placed, "quarter_turns": 1},
        f"tile-menu-return-{tile.id}": {"type": "return", "space": placed},
    }
    for button_id, action in menu.items():
        button = drawn[button_id]
        assert json.loads(button["hx-vals"]) == action
        assert button["hx-post"] == act and f"the {name}" in button["aria-label"]
    assert elements(html, "div", role="group", **{"aria-label": f"The selected {name}"})
    assert json.loads(swap["hx-vals"]) == {"type": "swap", "space_a": placed, "space_b": other}
    assert json.loads(move["hx-vals"]) == {"type": "move", "from_space": placed, "to_space": empty}
    assert move["class"] == "space-button" and "data-rotate" not in move

    # The next version of the same board and selection draws the same: the page's version
    # travels in a header (X-Page-Version), so the drawing serves both (issue 21).
    view.game.version += 1
    assert seat_html(view, view.viewer_seat, owner) == html
    # With nothing selected, no menu.
    plain = selectors.game_view(game, owner)
    assert "tile-menu" not in seat_html(plain, plain.viewer_seat, owner)


def test_a_selected_placed_tile_lights_the_spaces_it_may_move_to_as_it_is_turned(game):
    owner = owner_of(game, 0)
    board = current_state(game).boards[0]

    def fitting(placed):
        cell, rest = board.cells[placed], board.with_cells({placed: None})
        return {
            space
            for space in range(25)
            if space != placed and rules.fits(rest, cell.tile, space, cell.rotation)
        }

    # The placed tile with the most spaces to go to (on a board of a few tiles, some).
    placed = max((s for s in range(25) if board.cells[s]), key=lambda s: len(fitting(s)))
    assert fitting(placed)
    view = selectors.game_view(game, owner, selectors.Selection(space=placed))

    html = seat_html(view, view.viewer_seat, owner)
    drawn = by_id(html)

    lit = [a for a in elements(html, "div", role="gridcell") if " legal" in a["class"]]
    assert len(lit) == len(fitting(placed))
    for space in range(25):
        if board.cells[space] is None:
            label = drawn[f"my-space-{space}"]["aria-label"]
            assert label.endswith(" (fits)") == (space in fitting(placed))


def test_a_selected_tray_tile_can_be_placed_on_every_empty_space_and_the_fitting_ones_say_so(
    start_game,
):
    game = start_game(2)
    drafter = owner_of(game, 0)
    tile = game.pool["columns"][-1][0]
    actions.play(game_id=game.pk, user=drafter, action=rules.Draft(tile), seen_version=None)
    game.refresh_from_db()
    view = selectors.game_view(game, drafter, selectors.Selection(tray_tile=tile))

    html = seat_html(view, view.viewer_seat, drafter)
    drawn = by_id(html)

    board = current_state(game).boards[0]
    legal = {}
    for space, rotation in rules.legal_spots(board, tile):
        legal.setdefault(space, rotation)
    assert legal
    for index in range(25):
        button = drawn[f"my-space-{index}"]
        assert json.loads(button["hx-vals"]) == {
            "type": "place", "tile_id": tile, "space": index, "rotation": legal.get(index, 0),
        }  # fmt: skip
        assert button["aria-label"].endswith(" (fits)") == (index in legal)
    assert len(elements(html, "div", role="gridcell")) == 25
    assert len([a for a in elements(html, "div") if " legal" in a.get("class", "")]) == len(legal)
    deselect = drawn[f"my-tray-{tile}"]
    assert deselect["aria-pressed"] == "true" and deselect["hx-get"] == reverse(
        "games:fragment", args=[game.pk]
    )
    assert elements(html, "li", **{"class": "tile-box selected pending"})


def test_colour_blind_shapes_follow_each_viewer_not_the_cache(game, players):
    owner = owner_of(game, 0)
    spectator = players[4]
    view = selectors.game_view(game, spectator)

    spectator.colour_blind = True
    shapes = seat_html(view, view.seats[0], spectator) + pool_html(view, spectator)
    spectator.colour_blind = False
    plain = seat_html(view, view.seats[0], spectator) + pool_html(view, spectator)
    owner.colour_blind = True
    own = selectors.game_view(game, owner)
    owners = seat_html(own, own.viewer_seat, owner)

    assert "cb-shape" in shapes and "cb-shape" not in plain and "cb-shape" in owners
    assert shapes.replace("cb-shape", "") != plain


def test_each_game_links_to_itself_even_when_its_boards_look_alike(start_game, players):
    first, second = start_game(2), start_game(2)
    # The same deal cannot be arranged, so compare the tray buttons of the same tile drafted.
    drawn = {}
    for game in (first, second):
        drafter = owner_of(game, 0)
        tile = game.pool["columns"][-1][0]
        actions.play(game_id=game.pk, user=drafter, action=rules.Draft(tile), seen_version=None)
        game.refresh_from_db()
        view = selectors.game_view(game, drafter)
        drawn[game.pk] = by_id(seat_html(view, view.viewer_seat, drafter))[f"my-tray-{tile}"]

    for game in (first, second):
        fragment = reverse("games:fragment", args=[game.pk])
        assert drawn[game.pk]["hx-get"].startswith(f"{fragment}?sel=t")


def test_a_refused_move_marks_its_space_on_the_viewers_own_board_only(game, players):
    owner = owner_of(game, 0)
    view = selectors.game_view(game, owner)
    view.error_space = 12

    own = seat_html(view, view.viewer_seat, owner)
    other = seat_html(view, view.other_seats[0], owner)
    plain = selectors.game_view(game, owner)

    assert len([a for a in elements(own, "div") if "error-here" in a.get("class", "")]) == 1
    assert "error-here" not in other
    assert "error-here" not in seat_html(plain, plain.viewer_seat, owner)


def test_only_the_player_to_move_gets_the_draft_buttons(start_game, players):
    game = start_game(2)
    mover, waiting = owner_of(game, 0), owner_of(game, 1)
    column = game.pool["columns"][-1]

    movers = pool_html(selectors.game_view(game, mover), mover)
    for_mover = by_id(movers)
    for_other = pool_html(selectors.game_view(game, waiting), waiting)
    view = selectors.game_view(game, mover)
    view.error_tile = column[0]
    refused = pool_html(view, mover)

    for tile in column:
        vals = json.loads(for_mover[f"draw-{tile}"]["hx-vals"])
        assert vals == {"type": "draft", "tile_id": tile}
    assert "draftable" not in for_other and "hx-post" not in for_other
    assert for_other.count("<li") == movers.count("<li") == sum(map(len, game.pool["columns"]))
    assert len([a for a in elements(refused, "li") if "error-here" in a.get("class", "")]) == 1


def test_the_last_tile_of_the_draw_column_is_not_draftable(start_game):
    game = start_game(2)
    mover = owner_of(game, 0)
    view = selectors.game_view(game, mover)
    view.columns[view.draw_column] = view.columns[view.draw_column][:1]

    assert "draftable" not in pool_html(view, mover)


def test_a_space_drawing_escapes_its_label():
    tile = selectors.tile_view(0)
    control = selectors.SpaceControl(
        index=3, colour="red", tile=tile, status="illegal", marks=None, selected=False,
        legal=False, error=False, structure="", last=False, action="select",
        label='<b onclick="x">&</b>',
    )  # fmt: skip
    urls = pieces.GameUrls('/a?"<', "/f", "/g")

    html, _ = pieces._space_html(control, False, urls)

    assert "<b " not in html
    assert 'aria-label="&lt;b onclick=&quot;x&quot;&gt;&amp;&lt;/b&gt;"' in html


def test_the_drawing_of_a_tile_follows_its_rotation(start_game):
    game = start_game(2)
    tile = game.pool["columns"][-1][0]
    drawn = {
        rotation: pieces._pool_tile_html(
            selectors.PoolControl(selectors.tile_view(tile, rotation), False, False),
            False,
            None,
        )
        for rotation in range(4)
    }
    masks = {str(TILE_PATHS[tile][rotation]) for rotation in range(4)}
    paths = {
        use["href"].removeprefix("#tile-paths-")
        for html in drawn.values()
        for use in elements(html, "use")
        if use["href"].startswith("#tile-paths-")
    }
    assert paths == masks


# --- the markers on placed tiles ---------------------------------------------------------------

SIDE_AT = {(50, 20): N, (80, 50): E, (50, 80): S, (20, 50): W}  # where each side's icon sits


def drawn_spaces(view, seat, user):
    """The 25 spaces of `seat`'s board as drawn for `user`, each parsed (they are well formed)."""
    rows = pieces.board_rows({"view": view, "user": user}, seat)
    return [ET.fromstring(html.strip()) for row in rows for html in row]


def having(element, name):
    return [el for el in element.iter() if name in (el.get("class") or "").split()]


def marked_sides(space, name):
    """The sides of the icons of class `name` on a drawn space, as a mask."""
    centres = [re.match(r"translate\((\d+) (\d+)\)", icon.get("transform")).groups()
               for icon in having(space, name)]  # fmt: skip
    return sum(SIDE_AT[int(x), int(y)] for x, y in centres)


def words_of(space):
    """What the space says to a screen reader: its button's label, or its tile's."""
    labelled = [el for el in space.iter() if el.get("aria-label")]
    return labelled[0].get("aria-label")


def test_the_markers_show_on_the_spaces_and_sides_that_are_wrong_for_everyone(game, players):
    top, below = mark_every_way(game, 0)
    board = current_state(game).boards[0]
    found = rules.markers(board)
    owner, spectator = owner_of(game, 0), players[4]

    for viewer in (owner, spectator):
        view = selectors.game_view(game, viewer)
        spaces = drawn_spaces(view, view.seats[0], viewer)
        striped = [i for i, space in enumerate(spaces) if having(space, "tile-stripes")]
        assert striped == bits(found.wrong_colour) and striped
        broken = [i for i, space in enumerate(spaces) if having(space, "mark-broken")]
        assert broken == bits(found.off_board | found.mismatch)
        opened = [i for i, space in enumerate(spaces) if having(space, "mark-open")]
        assert opened == bits(found.open_path)
        # The tile above runs off the board (its north side) and disagrees with the tile below
        # (its south side, and the north side of the tile below).
        assert marked_sides(spaces[top.space], "mark-broken") & N
        assert marked_sides(spaces[top.space], "mark-broken") & S
        assert marked_sides(spaces[below.space], "mark-broken") & N
        for index in (top.space, below.space):
            space, marks = spaces[index], board_marks(board)[index]
            # Each mark's tooltip says it of its side; the label says them all, the sides of a
            # kind together ("paths open to the east and south").
            titles = [title.text for title in space.iter("title")]
            assert titles == [mark.words for mark in marks.each()]
            assert f": illegal ({marks.words()})" in words_of(space)
            for title in titles:  # the words name what each mark is
                assert re.match(r"wrong colour: a \w+ tile on a \w+ space$|broken connection "
                                r"on its \w+ side: |path open to the \w+$", title)  # fmt: skip
        said = words_of(spaces[top.space])
        # North alone, or with east or west at a corner (a tile there may run off both edges).
        off = (
            r"broken connection on its north side: the path runs off the board"
            r"|broken connections on its north and (east|west) sides: the paths run off the board"
        )
        assert re.search(off, said), said
        assert " side of the tile below" in said or " path of the tile below" in said
        assert "of the tile above" in words_of(spaces[below.space])
    # Empty spaces carry nothing of it.
    for index, space in enumerate(spaces):
        if not board.occ >> index & 1:
            assert not having(space, "mark") and not having(space, "tile-stripes")


def test_the_replay_draws_the_same_markers(game, players):
    mark_every_way(game, 0)
    state = current_state(game)
    seats = list(game.seats.select_related("user").order_by("number"))
    view = replay_view(game, seats, state)
    spaces = drawn_spaces(view, view.seats[0], players[4])
    found = rules.markers(state.boards[0])
    assert [i for i, space in enumerate(spaces) if having(space, "tile-stripes")] == bits(
        found.wrong_colour
    )
    assert [i for i, space in enumerate(spaces) if having(space, "mark-broken")] == bits(
        found.off_board | found.mismatch
    )


def test_the_game_page_says_and_draws_the_markers(client, game):
    mark_every_way(game, 0)
    client.force_login(owner_of(game, 1))
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert page.count('class="tile-stripes') >= 1 and 'class="mark mark-broken"' in page
    assert "broken connection on its north side: the path runs off the board" in page
    assert 'class="marker ' not in page  # the old corner badges are gone


def test_spaces_that_differ_only_in_their_markers_never_share_a_drawing():
    control = selectors.SpaceControl(
        index=3, colour="red", tile=selectors.tile_view(12), status="warning", selected=False,
        legal=False, error=False, structure="", last=False, action="", label="a red end",
        marks=Marks("red", "red", 1, open=N),
    )  # fmt: skip
    others = [
        replace(control, marks=Marks("red", "red", 1, off=N)),
        replace(control, marks=Marks("red", "red", 1, clash=N)),
        replace(control, marks=Marks("red", "blue", 1, open=N)),
        replace(control, marks=None, status="ok"),
    ]
    drawn = [pieces._space_html(c, False, None)[0] for c in (control, *others)]
    assert len(set(drawn)) == 5
    assert 'class="mark mark-open"' in drawn[0] and "mark-broken" not in drawn[0]
    assert 'class="mark mark-broken"' in drawn[1]
    assert "tile-stripes" in drawn[3]
    assert "tile-stripes" not in drawn[4] and 'class="mark ' not in drawn[4]


def test_the_analysis_boards_draw_the_same_markers(players):
    """A final board may keep an open path (it only warns): the analysis shows its triangle."""
    names = ["blue", "red", "green", "yellow", "pink"]
    colours = [names[(row + col) % 5] for row in range(5) for col in range(5)]
    end = next(t.id for t in rules.TILES if t.kind == "end" and t.colour == colours[12])
    built = [None] * 25
    built[12] = [end, 0]  # an end at the centre, its path north to an empty space
    seat = Seat(user=players[0], number=0, colours=colours, board=built, tray=[], score=-2,
                best_score=-2, best_board=built, best_optimal=True)  # fmt: skip
    view = SimpleNamespace(seats=[SimpleNamespace(seat=seat)])  # analysis_rows reads this
    html = render_to_string("games/partials/analysis.html", {"view": view, "user": players[0]})
    assert html.count('class="mark mark-open"') == 2  # built and best
    assert html.count("<title>path open to the north</title>") == 2
    assert "mark-broken" not in html and "tile-stripes" not in html
