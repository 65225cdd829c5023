"""The move log: every draft, forced take, timeout, finish and deadline of a game, in words,
from one fold of its event log."""

from datetime import timedelta

import pytest

from games import rules
from games.models import Event
from games.move_log import Log, read_log, summary
from games.play import actions
from tests.history.playing import play_recorded

from .playing import current_state

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def seats_of(game):
    return list(game.seats.select_related("user").order_by("number"))


def draw(game, seat_number, tile=None):
    """The seat drafts (the top tile, or `tile`) and confirms."""
    state = current_state(game)
    user = game.seats.get(number=seat_number).user
    tile = state.draw_tiles()[0] if tile is None else tile
    for action in (rules.Draft(tile), rules.ConfirmDraft()):
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    return tile


def test_each_completed_draft_is_told_once_with_its_tile_and_column(start_game):
    game = start_game(3)
    play_recorded(game)
    game.refresh_from_db()
    log = read_log(game, seats_of(game))

    # What the log says against the state before each confirmation, folded independently.
    events = list(game.events.exclude(action=None).order_by("number"))
    start = game.events.get(kind="started").data
    state = rules.new_game(start["players"], start["seed"], start["first_seat"])
    expected = []
    for event in events:
        if event.kind == "confirm_draft":
            expected.append((event.number, "draft", event.seat, state.pending.tile_id,
                             state.pending.column))  # fmt: skip
        elif event.kind == "take_last":
            expected.append((event.number, "forced_take", event.seat, event.action["tile_id"],
                             state.draw_column()))  # fmt: skip
        state = state.apply(event.action, event.seat)
    taken = [
        (e.number, e.kind, e.seat, e.tile, e.column) for e in log.entries if e.tile is not None
    ]
    assert taken == expected
    assert len(expected) == 60  # every tile of a 3-player game was drafted or taken
    finished = [entry.seat for entry in log.entries if entry.kind == "finish"]
    assert sorted(finished) == [0, 1, 2]
    assert log.entries[-1].kind == "ended"
    assert log.version == game.version


def test_a_draft_put_back_never_happened(start_game):
    game = start_game(2)
    first = game.seats.get(number=0).user
    state = current_state(game)
    top, other = state.draw_tiles()[:2]
    for action in (rules.Draft(top), rules.UndoDraft()):
        actions.play(game_id=game.pk, user=first, action=action, seen_version=None)
    draw(game, 0, other)

    drafts = [entry for entry in read_log(game, seats_of(game)).entries if entry.kind == "draft"]

    assert [(entry.seat, entry.tile) for entry in drafts] == [(0, other)]


def test_the_words_say_you_to_the_player_concerned(start_game, clock):
    game = start_game(2, time_per_move=HOUR)
    names = [seat.user.username for seat in seats_of(game)]
    tile = draw(game, 0)
    clock.advance(HOUR * 2)
    game.refresh_from_db()
    actions.time_out_turn(game_id=game.pk, expected_version=game.version)

    log = read_log(game, seats_of(game))
    draft, timeout = [entry for entry in log.entries if entry.kind in ("draft", "timeout")]

    colour, kind = rules.TILES[tile].colour.value, rules.TILES[tile].kind.value
    assert draft.text() == f"{names[0]} took a {colour} {kind} from column {draft.column + 1}"
    assert draft.text(0).startswith("you took a ")
    assert draft.text(1).startswith(f"{names[0]} took a ")
    assert timeout.text(1).startswith("your time ran out: the server took a ")
    assert timeout.text(1).endswith(" for you")
    assert timeout.text(0).startswith(f"{names[1]}'s time ran out")
    assert timeout.concerns(1) and not timeout.concerns(0) and not draft.concerns(0)


def test_forced_takes_and_deadlines_are_the_servers_doing(start_game, clock):
    game = start_game(2, time_per_move=HOUR)
    while current_state(game).forced_action() is None:
        draw(game, current_state(game).current)
    actions.take_last_tile(game_id=game.pk)
    forced = read_log(game, seats_of(game)).entries[-1]
    assert forced.kind == "forced_take" and forced.concerns(forced.seat)
    said = forced.text(forced.seat)
    assert said.startswith(f"the server took the last tile of column {forced.column + 1}, a ")
    assert said.endswith(" for you")

    while current_state(game).phase == rules.DRAFTING:  # to the finishing phase
        if current_state(game).forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
        else:
            draw(game, current_state(game).current)
    state = current_state(game)
    tile = state.trays[0][0]
    wrong = next(
        space for space, colour in enumerate(state.boards[0].colours)
        if colour != rules.TILES[tile].colour
    )  # fmt: skip
    slow = game.seats.get(number=0).user
    actions.play(game_id=game.pk, user=slow, action=rules.Place(tile, wrong), seen_version=None)
    clock.advance(HOUR * 2)
    game.refresh_from_db()
    actions.finish_at_deadline(game_id=game.pk, expected_version=game.version)

    entries = read_log(game, seats_of(game)).entries
    deadlines = [entry for entry in entries if entry.kind == "deadline"]
    assert [(entry.seat, entry.returned) for entry in deadlines] == [(0, 1), (1, 0)]
    assert deadlines[0].text(0) == (
        "your finishing time ran out: the board was submitted as it was, "
        "1 illegal tile back to the tray"
    )
    assert entries[-1].kind == "ended"


def test_the_turns_come_newest_first_and_the_summary_says_it_shortly(start_game):
    game = start_game(3)
    names = [seat.user.username for seat in seats_of(game)]
    tiles = [draw(game, 0), draw(game, 1), draw(game, 2), draw(game, 0)]
    log = read_log(game, seats_of(game))

    turns = log.turns()
    assert [turn.label for turn in turns] == [
        "Turn 4",
        "Turn 3",
        "Turn 2",
        "Turn 1",
        "At the table",
    ]
    assert [entry.tile for entry in turns[0].entries] == [tiles[3]]
    assert turns[-1].entries[0].kind == "started"  # newest first within a turn too

    seen = log.entries[-4].number - 1  # seat 0 saw the game just before its first draft
    news = log.since(seen, besides=0)
    assert [entry.seat for entry in news] == [1, 2]
    said = summary(news, 0)
    assert said.startswith(f"{names[1]} took a ") and f"; {names[2]} took a " in said


def test_extending_a_log_with_new_events_gives_the_log_read_whole(start_game):
    game = start_game(2)
    seats = seats_of(game)
    partial = Log(names={seat.user_id: seat.user.username for seat in seats})
    partial.extend(game.events.order_by("number"))
    draw(game, 0)
    draw(game, 1)

    partial.extend(game.events.filter(number__gt=partial.version).order_by("number"))

    assert partial.entries == read_log(game, seats).entries
    assert Event.objects.filter(game=game).count() == partial.version
