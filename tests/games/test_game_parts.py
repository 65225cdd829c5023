"""The spaces, tray tiles and pool tiles of a game page, each drawn once per process and reused
(games/drawing/pieces.py): what each draws, and that a cached drawing never shows a
stale version, another game's links or another viewer's controls."""

import itertools
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
import time_machine
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from games import rules
from games.drawing import pieces, status, updates
from games.drawing.cache import looks
from games.drawing.controls import PoolControl, SpaceControl
from games.drawing.spaces import tile_view
from games.drawing.view import ClockView, Selection, game_view
from games.history.replay import replay_view
from games.markers import Marks, board_marks
from games.models import Seat
from games.play import actions
from games.rules.board import bits
from games.rules.tiles import TILE_PATHS, E, N, S, W
from infra import lru
from tests.conftest import settings_in_a_new_process

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


def templates_drawn(monkeypatch, module) -> list[str]:
    """The names of the templates `module` draws from now on, in order, one per drawing."""
    drawn = []
    real = module.render_to_string

    def counting(name, *args, **kwargs):
        drawn.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(module, "render_to_string", counting)
    return drawn


def owner_of(game, number):
    return game.seats.get(number=number).user


def a_placed_space(view):
    return next(space.index for space in view.viewer_seat.spaces if space.tile)


def an_empty_space(view):
    return next(space.index for space in view.viewer_seat.spaces if space.tile is None)


def test_the_owner_selects_tiles_and_everyone_else_sees_a_labelled_drawing(game, players):
    owner = owner_of(game, 0)
    mine = game_view(game, owner)
    spectator = players[4]
    theirs = game_view(game, spectator)
    placed = a_placed_space(mine)

    own = seat_html(mine, mine.viewer_seat, owner)
    seen = seat_html(theirs, theirs.seats[0], spectator)

    button = by_id(own)[f"my-space-{placed}"]
    assert button["class"] == "tile-button" and "data-rotate" not in button  # its id says
    # Its address is written by the page from its id (live.js); the answer pushes it.
    assert button["hx-get"] == "" and "hx-push-url" not in button
    space = mine.viewer_seat.spaces[placed]
    last = ", the last tile this player got" if space.tile.id == mine.viewer_seat.last_tile else ""
    # Its label names the tile and the space; what is wrong with it is its title (a tooltip and
    # its description), and the keys are the board's description.
    assert button["aria-label"] == f"Select the {space.name}{last}"
    assert button.get("title", "") == (space.marks.words() if space.marks else "")
    board = by_id(own)["seat-0-board"]
    keys = by_id(own)[board["aria-describedby"]]
    assert "visually-hidden" in keys["class"]
    assert "R rotates the focused tile" in own
    assert not elements(own, "button", id=f"my-space-{an_empty_space(mine)}")
    # The same board, drawn for someone else after the owner's drawing was cached: no controls.
    assert "my-space-" not in seen and "hx-get" not in seen and "hx-post" not in seen
    label = theirs.seats[0].spaces[placed].label + last
    assert elements(seen, "svg", **{"aria-label": label})
    # And for its owner again, after someone else's: the controls are back.
    assert seat_html(mine, mine.viewer_seat, owner) == own


def test_a_selected_tile_opens_its_menu_and_the_others_swap_or_move_whatever_the_version(game):
    owner = owner_of(game, 0)
    view = game_view(game, owner)
    placed = a_placed_space(view)
    view = game_view(game, owner, Selection(space=placed))
    other = next(s.index for s in view.viewer_seat.spaces if s.tile and s.index != placed)
    empty = an_empty_space(view)
    html = seat_html(view, view.viewer_seat, owner)
    drawn = by_id(html)

    selected, swap, move = (
        drawn[f"my-space-{placed}"],
        drawn[f"my-space-{other}"],
        drawn[f"my-space-{empty}"],
    )
    # Tapped again, the selected tile is put down (its menu closes); R still turns it.
    assert selected["aria-pressed"] == "true" and selected["aria-label"].startswith("Put down the ")
    assert selected["hx-get"] == "" and "hx-push-url" not in selected
    assert "hx-vals" not in selected
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
        # Posted to the game's address, which the page writes (live.js).
        assert button["hx-post"] == "" and f"the {name}" in button["aria-label"]
    assert elements(html, "div", role="group", **{"aria-label": f"The selected {name}"})
    assert json.loads(swap["hx-vals"]) == {"type": "swap", "space_a": placed, "space_b": other}
    assert json.loads(move["hx-vals"]) == {"type": "move", "from_space": placed, "to_space": empty}
    assert move["class"] == "space-button" and move["hx-post"] == swap["hx-post"] == ""

    # The next version of the same board and selection draws the same: the page's version
    # travels in a header (X-Page-Version), so the drawing serves both (issue 21).
    view.game.version += 1
    assert seat_html(view, view.viewer_seat, owner) == html
    # With nothing selected, no menu.
    plain = game_view(game, owner)
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
    view = game_view(game, owner, Selection(space=placed))

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
    view = game_view(game, drafter, Selection(tray_tile=tile))

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
    assert deselect["aria-pressed"] == "true" and deselect["hx-get"] == ""
    assert elements(html, "li", **{"class": "tile-box selected pending"})


def test_colour_blind_shapes_follow_each_viewer_not_the_cache(game, players):
    owner = owner_of(game, 0)
    spectator = players[4]
    view = game_view(game, spectator)

    spectator.colour_blind = True
    shapes = seat_html(view, view.seats[0], spectator) + pool_html(view, spectator)
    spectator.colour_blind = False
    plain = seat_html(view, view.seats[0], spectator) + pool_html(view, spectator)
    owner.colour_blind = True
    own = game_view(game, owner)
    owners = seat_html(own, own.viewer_seat, owner)

    assert "#cb-" in shapes and "#cb-" not in plain and "#cb-tile-" in owners
    assert shapes.replace("cb-", "") != plain


def test_a_boards_buttons_link_to_no_game_so_every_game_shares_their_drawings(start_game):
    """A tile's or space's button says no address: the page writes its game's (live.js), so the
    same drawing serves every game (issue 21); the game's own addresses are on #game."""
    first, second = start_game(2), start_game(2)
    for game in (first, second):
        drafter = owner_of(game, 0)
        tile = game.pool["columns"][-1][0]
        view = game_view(game, drafter)
        assert by_id(pool_html(view, drafter))[f"draw-{tile}"]["hx-post"] == ""
        actions.play(game_id=game.pk, user=drafter, action=rules.Draft(tile), seen_version=None)
        game.refresh_from_db()
        view = game_view(game, drafter, Selection(tray_tile=tile))
        context = {"view": view, "user": drafter}
        drawn = pieces.tray_tiles(context, view.viewer_seat) + [
            space for row in pieces.board_rows(context, view.viewer_seat) for space in row
        ]
        assert "/games/" not in "".join(drawn)
        buttons = elements("".join(drawn), "button")
        assert len(buttons) == 26  # the tray's tile, and a place on every space
        assert all(button.get("hx-post", button.get("hx-get")) == "" for button in buttons)


def test_a_refused_move_marks_its_space_on_the_viewers_own_board_only(game, players):
    owner = owner_of(game, 0)
    view = game_view(game, owner)
    view.error_space = 12

    own = seat_html(view, view.viewer_seat, owner)
    other = seat_html(view, view.other_seats[0], owner)
    plain = game_view(game, owner)

    assert len([a for a in elements(own, "div") if "error-here" in a.get("class", "")]) == 1
    assert "error-here" not in other
    assert "error-here" not in seat_html(plain, plain.viewer_seat, owner)


def test_only_the_player_to_move_gets_the_draft_buttons(start_game, players):
    game = start_game(2)
    mover, waiting = owner_of(game, 0), owner_of(game, 1)
    column = game.pool["columns"][-1]

    movers = pool_html(game_view(game, mover), mover)
    for_mover = by_id(movers)
    for_other = pool_html(game_view(game, waiting), waiting)
    view = game_view(game, mover)
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
    view = game_view(game, mover)
    view.columns[view.draw_column] = view.columns[view.draw_column][:1]

    assert "draftable" not in pool_html(view, mover)


def test_a_space_drawing_escapes_its_label():
    tile = tile_view(0)
    control = SpaceControl(
        index=3, colour="red", tile=tile, status="illegal", marks=None, selected=False,
        legal=False, error=False, structure="", last=False, action="select",
        label='<b onclick="x">&</b>',
    )  # fmt: skip
    html = pieces._space_html(control, False, "en-gb")

    assert "<b " not in html
    assert 'aria-label="&lt;b onclick=&quot;x&quot;&gt;&amp;&lt;/b&gt;"' in html


def test_the_drawing_of_a_tile_follows_its_rotation(start_game):
    game = start_game(2)
    tile = game.pool["columns"][-1][0]
    drawn = {
        rotation: pieces._pool_tile_html(
            PoolControl(tile_view(tile, rotation), False, False),
            False,
            "en-gb",
        )
        for rotation in range(4)
    }
    masks = {str(TILE_PATHS[tile][rotation]) for rotation in range(4)}
    paths = {
        use["href"].removeprefix("#tile-")
        for html in drawn.values()
        for use in elements(html, "use")
        if use["href"].startswith("#tile-")
    }
    assert paths == masks


# --- the markers on placed tiles ---------------------------------------------------------------

SIDE_OF = {"n": N, "e": E, "s": S, "w": W}  # the sprite's icon placed on each side: mark-open-e


def drawn_spaces(view, seat, user):
    """The 25 spaces of `seat`'s board as drawn for `user`, each parsed (they are well formed)."""
    rows = pieces.board_rows({"view": view, "user": user}, seat)
    return [ET.fromstring(html.strip()) for row in rows for html in row]


def having(element, name):
    return [el for el in element.iter() if name in (el.get("class") or "").split()]


def marked_sides(space, kind):
    """The sides of a drawn space's icons of `kind` ("broken", "open"), as a mask."""
    found = [re.fullmatch(f"#mark-{kind}-([nesw])", use.get("href")) for use in space.iter("use")]
    return sum(SIDE_OF[icon.group(1)] for icon in found if icon)


def words_of(space):
    """What the space says to a screen reader: its button's label, or its tile's, and its
    button's description (its title: what is wrong with its tile)."""
    labelled = [el for el in space.iter() if el.get("aria-label")]
    return " ".join(filter(None, (labelled[0].get("aria-label"), labelled[0].get("title"))))


def tooltip_of(space):
    """The words a pointer shows over the space's tile: its button's title, or the one title
    of its drawing."""
    titled = [el.get("title") for el in space.iter("button") if el.get("title")]
    return titled + [title.text for title in space.iter("title")]


def test_the_markers_show_on_the_spaces_and_sides_that_are_wrong_for_everyone(game, players):
    top, below = mark_every_way(game, 0)
    board = current_state(game).boards[0]
    found = rules.markers(board)
    owner, spectator = owner_of(game, 0), players[4]

    for viewer in (owner, spectator):
        view = game_view(game, viewer)
        spaces = drawn_spaces(view, view.seats[0], viewer)
        striped = [i for i, space in enumerate(spaces) if having(space, "tile-stripes")]
        assert striped == bits(found.wrong_colour) and striped
        broken = [i for i, space in enumerate(spaces) if marked_sides(space, "broken")]
        assert broken == bits(found.off_board | found.mismatch)
        opened = [i for i, space in enumerate(spaces) if marked_sides(space, "open")]
        assert opened == bits(found.open_path)
        # The tile above runs off the board (its north side) and disagrees with the tile below
        # (its south side, and the north side of the tile below).
        assert marked_sides(spaces[top.space], "broken") & N
        assert marked_sides(spaces[top.space], "broken") & S
        assert marked_sides(spaces[below.space], "broken") & N
        for index in (top.space, below.space):
            space, marks = spaces[index], board_marks(board)[index]
            # One tooltip says every mark, the sides of a kind together ("paths open to the east
            # and south"); so does what a screen reader hears: the label (another's board) or
            # the button's description (the owner's, the label leaving them out).
            assert tooltip_of(space) == [marks.words()]
            if viewer == owner:
                assert ": illegal" in words_of(space) and words_of(space).endswith(marks.words())
            else:
                assert f": illegal ({marks.words()})" in words_of(space)
            for words in marks.words().split("; "):  # the words name what each mark is
                assert re.match(r"wrong colour: a \w+ tile on a \w+ space$|broken connections? "
                                r"on its |paths? open to the ", words)  # fmt: skip
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
    assert [i for i, space in enumerate(spaces) if marked_sides(space, "broken")] == bits(
        found.off_board | found.mismatch
    )


def test_the_game_page_says_and_draws_the_markers(client, game):
    mark_every_way(game, 0)
    client.force_login(owner_of(game, 1))
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert page.count('class="tile-stripes') >= 1 and '<use href="#mark-broken-n"/>' in page
    assert "broken connection on its north side: the path runs off the board" in page
    assert 'class="marker ' not in page  # the old corner badges are gone


def test_spaces_that_differ_only_in_their_markers_never_share_a_drawing():
    control = SpaceControl(
        index=3, colour="red", tile=tile_view(12), status="warning", selected=False,
        legal=False, error=False, structure="", last=False, action="", label="a red end",
        marks=Marks("red", "red", 1, open=N),
    )  # fmt: skip
    others = [
        replace(control, marks=Marks("red", "red", 1, off=N)),
        replace(control, marks=Marks("red", "red", 1, clash=N)),
        replace(control, marks=Marks("red", "blue", 1, open=N)),
        replace(control, marks=None, status="ok"),
    ]
    drawn = [pieces._space_html(c, False, "en-gb") for c in (control, *others)]
    assert len(set(drawn)) == 5
    assert '"#mark-open-n"' in drawn[0] and "mark-broken" not in drawn[0]
    assert '"#mark-broken-n"' in drawn[1] and '"#mark-broken-n"' in drawn[2]
    assert "tile-stripes" in drawn[3]
    assert "tile-stripes" not in drawn[4] and "#mark-" not in drawn[4]


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
    assert html.count('<use href="#mark-open-n"/>') == 2  # built and best
    assert html.count("<title>path open to the north</title>") == 2
    assert "mark-broken" not in html and "tile-stripes" not in html


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"online": True},
        {"is_current": False},
        {"left": "resigned"},
        {"vacation_until": datetime(2031, 1, 2, 9, 30, tzinfo=UTC)},
        {"clock": ClockView(timedelta(hours=5, minutes=3), True, datetime(2031, 1, 1, tzinfo=UTC))},
        {"clock": ClockView(timedelta(hours=5, minutes=4), True, datetime(2031, 1, 1, tzinfo=UTC))},
        {"clock": ClockView(timedelta(minutes=50))},
        {"tray": []},
        {"score": rules.Score(7, 0, 0, 0, 0)},
    ],
)
def test_a_kept_seat_head_is_the_head_the_seat_shows_now(game, players, change):
    # A seat's head, its name line and the line under it, is kept by all it shows (issue 36):
    # every change of what they show draws them anew, whatever was kept before, in English
    # and in German, for the seat's player and for everyone else.
    for viewer in players[:2]:
        view = game_view(game, viewer)
        for seat in view.seats:
            changed = replace(seat, **change)
            for language in ("en", "de"):
                with translation.override(language):
                    for draw in (pieces.seat_head, pieces.seat_time):
                        draw({"view": view}, seat)  # kept as the seat is now
                        assert draw({"view": view}, changed) == drawn_now(draw, changed)
            for field in ("timeouts", "finished"):
                seat.seat.timeouts, seat.seat.finished = 0, False
                setattr(seat.seat, field, 2 if field == "timeouts" else True)
                with translation.override("en"):
                    for draw in (pieces.seat_head, pieces.seat_time):
                        assert draw({"view": view}, seat) == drawn_now(draw, seat)


def drawn_now(draw, seat):
    name = draw.__name__  # seat_head, seat_time: the template and the piece of the same name
    drawn = render_to_string(f"games/partials/{name}.html", {"seat": seat})
    return pieces.make_piece(drawn, f"seat-{seat.number}-{name.removeprefix('seat_')}")


def test_a_turn_passing_changes_the_line_under_a_name_not_the_head(game, players):
    # What a turn changes of another player's seat is the line under their name (issue 36:
    # the heads were most of a draft's push to a watcher); the name line stays as it was.
    view = game_view(game, players[0])
    other = next(seat for seat in view.seats if not seat.is_viewer)
    passed = replace(other, is_current=not other.is_current, tray=[*other.tray, None])
    assert pieces.seat_head({"view": view}, passed) == pieces.seat_head({"view": view}, other)
    assert pieces.seat_time({"view": view}, passed) != pieces.seat_time({"view": view}, other)


def test_kept_board_buttons_are_what_the_owner_sees_now(start_game):
    # The owner's Undo and Redo, buttons and hint are kept by what each shows (issue 36): a
    # tray tile picked up, a placed tile picked up, nothing picked up, with and without a step
    # to undo, in two languages: each as it is drawn afresh.
    game = start_game(2)
    drafter = owner_of(game, 0)
    tile = game.pool["columns"][-1][0]
    actions.play(game_id=game.pk, user=drafter, action=rules.Draft(tile), seen_version=None)
    game.refresh_from_db()
    assert_buttons_drawn_afresh(game, drafter, [Selection(), Selection(tray_tile=tile)])
    space, rotation = next(iter(rules.legal_spots(current_state(game).boards[0], tile)))
    place = rules.Place(tile, space, rotation)
    actions.play(game_id=game.pk, user=drafter, action=place, seen_version=None)
    game.refresh_from_db()
    undo = assert_buttons_drawn_afresh(game, drafter, [Selection(space=space), Selection()])
    assert "disabled" not in undo.html.split("redo-arranging")[0]  # Undo may now be pressed


def assert_buttons_drawn_afresh(game, owner, selections):
    for language in ("en", "de", "en"):
        for selection in selections:
            view = game_view(game, owner, selection)
            seat = view.viewer_seat
            parts = {
                "view": view,
                "seat": seat,
                "user": owner,
                "urls": pieces.game_urls(game),
                "sel": view.selection,
                "arranging": True,
            }
            with translation.override(language):
                drawn = pieces.seat_drawing({"view": view, "user": owner}, seat)
                for name in ("history", "actions", "hint"):
                    fresh = render_to_string(f"games/partials/board_{name}.html", parts)
                    assert getattr(drawn, name) == pieces.make_piece(fresh, f"seat-0-{name}")
    return drawn.history


def test_players_who_wait_share_one_status_that_shows_each_of_them_what_it_should(
    start_game, players
):
    # The status of a player who waits while another drafts is kept by what it shows of them
    # (`status_audience`, issue 36): whoever has the same key sees the very same status, and in
    # a 4-player game the three who wait share one, though only one of them resigned.
    game = start_game(4)
    shared = 0
    for step in range(12):
        if step == 11:  # last, a waiting player resigns: their status is their own then
            waiting = current_state(game).current ^ 1
            leaver = game.seats.get(number=waiting).user
            actions.resign(game_id=game.pk, user=leaver)
        game.refresh_from_db()
        audiences: dict = {}
        for player in players[:4]:
            view = game_view(game, player)
            with translation.override("en"):
                html = status.status_piece({"view": view, "user": player}).html
            audiences.setdefault(status.status_audience(view), []).append(html)
        for statuses in audiences.values():
            assert len(set(statuses)) == 1
        shared += any(len(statuses) > 1 for statuses in audiences.values())
        game = play(game, 1) if step < 11 else game
    assert len(audiences) >= 3  # the drafter's, the one who left, the others'
    assert shared >= 3  # most steps had waiting players sharing one drawing


def test_a_kept_status_is_the_status_drawn_afresh(start_game, players):
    # The status is kept by what it shows (games/drawing/status.py `StatusFacts`), its deadline
    # drawn apart for each: at every step of a game, for both players and a watcher, in two
    # languages and two time zones, the status drawn while the earlier steps' drawings are kept
    # is the one drawn with nothing kept; and the deadline it shows is the step's own.
    game = start_game(2)
    viewers = [*players[:2], players[4]]
    deadlines = set()
    # A minute between moves: the deadlines say the second, and ten moves may take less.
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        for _ in range(10):
            traveller.shift(timedelta(minutes=1))
            deadlines.add(_status_deadline_of(game, players, viewers))
            game = play(game, 1)
    assert len(deadlines) > 1  # the deadline moved with the turns, and each status said so


def _status_deadline_of(game, players, viewers) -> str:
    """Check that the game's status, drawn while the earlier steps' drawings are kept, is the
    one drawn with nothing kept, for each viewer, language and time zone; return the deadline
    it shows."""
    game.refresh_from_db()
    readers = [(language, zone) for language in ("en", "de") for zone in ("UTC", "Asia/Tokyo")]
    drawn = {}
    for kept in (True, False):
        if not kept:
            lru.clear_all()
        for (language, zone), viewer in itertools.product(readers, viewers):
            view = game_view(game, viewer)
            with translation.override(language), timezone.override(zone):
                piece = status.status_piece({"view": view, "user": viewer})
            drawn.setdefault((language, zone, viewer.pk), []).append(piece)
    assert all(kept == fresh for kept, fresh in drawn.values())
    english = drawn[("en", "UTC", players[0].pk)][0].html
    assert drawn[("en", "Asia/Tokyo", players[0].pk)][0].html != english  # its own hour
    return re.search(r'data-deadline="([^"]+)"', english).group(1)


def test_a_deadline_is_drawn_once_for_every_status_that_shows_it(start_game, players, monkeypatch):
    # Each waiting player's status shows the drafter's deadline, the same on every version of
    # the turn: it is drawn once and kept by all it shows (issue 36: each status drew it again,
    # a twentieth of daphne's CPU in five-player games). The drafter's own says it to them.
    game = start_game(4)
    drawn = templates_drawn(monkeypatch, status)
    lru.clear_all()
    drafter = current_state(game).current
    deadlines = set()
    for viewer in (owner_of(game, number) for number in range(4)):
        with translation.override("en"), timezone.override("UTC"):
            html = status.status_piece({"view": game_view(game, viewer), "user": viewer}).html
        deadlines.add(re.search(r'<span class="deadline".*?</span></span>', html).group(0))
    assert drawn.count("games/partials/status_deadline.html") == 2  # the drafter's, the others'
    assert len(deadlines) == 1  # the same words for all four
    with translation.override("de"), timezone.override("UTC"):
        viewer = owner_of(game, (drafter + 1) % 4)
        german = status.status_piece({"view": game_view(game, viewer), "user": viewer}).html
    assert drawn.count("games/partials/status_deadline.html") == 3  # its own words
    assert "Verbleibende Zeit:" in german


def test_a_moves_news_in_the_log_is_drawn_once_for_every_reader_it_says_nothing_to(
    start_game, players
):
    # What a version adds to the move log reads the same to every player it does not say "you"
    # to (`Log.readers_of`, issue 36): they share one drawing; the mover, and a player whose
    # seat was voted on, read their own words.
    game = start_game(4)
    logged = 0
    for step in range(12):
        if step == 6:  # a vote on a seat: the news says "your seat" to that seat's reader
            game.refresh_from_db()
            drafter = current_state(game).current
            target = game.seats.get(number=drafter)
            target.timeouts_in_row = 3
            target.save(update_fields=["timeouts_in_row"])
            voter = game.seats.get(number=(drafter + 1) % 4).user
            actions.vote_to_expel(game_id=game.pk, user=voter, seat_number=drafter)
        else:
            game = play(game, 1)
        game.refresh_from_db()
        readers: dict = {}
        for player in players[:4]:
            view = game_view(game, player)
            reader = view.reader if view.reader in view.log.readers_of(game.version) else None
            with translation.override("en"):
                news = updates.log_news({"view": view, "user": player}, game.version).strip()
            readers.setdefault(reader, []).append(news)
        if not any(news for drawn in readers.values() for news in drawn):
            continue  # a draft not yet confirmed writes nothing in the log
        logged += 1
        anyone = readers.pop(None)
        assert len(anyone) >= 2 and len(set(anyone)) == 1, step  # shared, and the same
        assert readers, step  # someone reads it as "you"
        for reader, (news,) in readers.items():
            assert news != anyone[0], (step, reader)
    assert logged >= 4


def test_a_pieces_look_is_the_one_its_drawing_carries_and_no_two_drawings_share_one(game, players):
    # A space's or a pool column's look is a digest of what it is drawn from, not of its
    # markup (issue 36), so it is known before the piece is drawn. The page reports the looks
    # its markup carries; a look shared by two different drawings would leave a page showing
    # the wrong one. Every space of both boards and every column, for the players (one of
    # them to draft) and a spectator, with and without the colour-blind shapes, in two
    # languages, with a tray tile picked up and without.
    drawings = {}
    for viewer in (owner_of(game, 0), owner_of(game, 1), players[4]):
        for colour_blind in (False, True):
            viewer.colour_blind = colour_blind
            for selection in (Selection(), Selection(tray_tile=0)):
                view = game_view(game, viewer)
                view.selection = selection
                for seat in view.seats:
                    for language in ("en", "de"):
                        with translation.override(language):
                            drawn = pieces.seat_drawing({"view": view, "user": viewer}, seat)
                            whole = seat_html(view, seat, viewer)
                        for space in (space for row in drawn.rows for space in row):
                            markup = space.html
                            assert by_id(whole)[space.id]["data-look"] == space.look
                            assert by_id(markup)[space.id]["data-look"] == space.look
                            body = markup.replace(f' id="{space.id}"', "")  # every board's
                            assert drawings.setdefault(space.look, body) == body
                for language in ("en", "de"):
                    with translation.override(language):
                        drawn = pieces.pool_drawing({"view": view, "user": viewer})
                        whole = pool_html(view, viewer)
                    for column in drawn.columns:
                        assert by_id(whole)[column.id]["data-look"] == column.look
                        assert drawings.setdefault(column.look, column.html) == column.html
    assert len(drawings) > 100


def test_an_answer_draws_only_the_spaces_and_columns_it_sends(game, monkeypatch):
    # The mover's board and the pool in a move's answer: of the board's 25 spaces and the
    # pool's columns only those whose look differs from the page's are drawn (issue 36: each
    # web process drew all of them to learn their looks, most of them never drawn there
    # before, and sent two or three).
    mover = owner_of(game, 0)
    before = game_view(game, mover)
    context = {"view": before, "user": mover}
    shown = {
        **looks.looks_of(pieces.seat_drawing(context, before.viewer_seat)),
        **looks.looks_of(pieces.pool_drawing(context)),
    }
    board = current_state(game).boards[0]
    for _ in range(60):  # the greedy player may draft and rearrange a while before it places
        game = play(game, 1)
        if current_state(game).boards[0] != board:
            break
    assert current_state(game).boards[0] != board
    after = game_view(game, mover)
    lru.clear_all()  # a web process that has drawn none of this board's spaces
    drawn = templates_drawn(monkeypatch, pieces)
    context = {"view": after, "user": mover}
    sent = looks.seat_changes(context, after.viewer_seat, shown, oob=False)
    spaces = re.findall(r'id="seat-0-space-\d+"', sent)
    assert 0 < len(spaces) < 25
    assert drawn.count("games/partials/space.html") == len(spaces)
    sent = looks.pool_changes(context, shown, oob=False)
    columns = re.findall(r'id="pool-column-\d+"', sent)
    assert 0 < len(columns) < len(after.columns)
    assert drawn.count("games/partials/pool_column.html") == len(columns)


SPACE_LOOKS = """
import django
django.setup()
from django.utils import translation
from games.drawing import pieces
from games.drawing.spaces import tile_view
from games.markers import Marks
from games.rules.analysis import SpaceStatus
translation.activate("de")
tile = tile_view(12, 1)
keys = [
    (3, "red", tile, SpaceStatus("warning", ("open_path",)), False, 1, "closed",
     Marks("red", "red", 1, open=1), (5, None), False, True, "de"),
    (7, "blue", None, None, False, None, "", None, None, False, False, "de"),
]
looks = [
    pieces._look_of_key(pieces.SPACE_TEMPLATES, (key, blind))
    for key in keys for blind in (False, True)
]
print(" ".join(looks))
"""


def test_a_spaces_look_is_the_same_in_every_process(tmp_path):
    # A page's looks come back to whichever web process answers its next move, or daphne
    # process pushes to it: each must find the same looks for the same spaces, whatever the
    # order Python's hashing gives sets and dicts there.
    looks_in = [
        settings_in_a_new_process(SPACE_LOOKS, tmp_path, PYTHONHASHSEED=str(seed))
        for seed in (1, 2)
    ]
    assert all(found.returncode == 0 for found in looks_in), looks_in[0].stderr[-2000:]
    first, second = (found.stdout.split() for found in looks_in)
    assert first == second and len(set(first)) == 4


def test_a_piece_drawn_later_is_drawn_in_the_language_it_was_made_in(game, players):
    # A space or a column is drawn when a page first needs it (`LaterPiece`), maybe after the
    # language active when it was made has changed: it is drawn in its own all the same, as
    # its look says.
    view = game_view(game, players[4])
    with translation.override("de"):
        seat = pieces.seat_drawing({"view": view, "user": players[4]}, view.seats[0])
        pool = pieces.pool_drawing({"view": view, "user": players[4]})
        german = seat_html(view, view.seats[0], players[4]), pool_html(view, players[4])
    lru.clear_all()
    with translation.override("en"):
        for piece in (*(space for row in seat.rows for space in row), *pool.columns):
            assert piece.html in german[0] or piece.html in german[1]
