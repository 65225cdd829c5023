"""Drafting ahead: a waiting player queues their next draft (games/play/actions/moves.py
`queue_drafts`), and the server drafts it for them when their turn begins
(games/play/applying.py `_draft_ahead`), in the transaction that began it."""

import re

import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import rules
from games.drawing import updates
from games.drawing.ahead import ahead_view
from games.models import Event
from games.move_log import tile_words
from games.play import actions
from games.play.errors import ActionRefused
from games.state_store import load_state, read_game
from infra.models import OutboxEmail

from .playing import current_state

pytestmark = pytest.mark.django_db


def user_at(game, number):
    return game.seats.get(number=number).user


def queue(game, number, tiles, *, confirm=False, seen_version=None):
    return actions.queue_drafts(
        game_id=game.pk,
        user=user_at(game, number),
        tiles=tiles,
        confirm=confirm,
        seen_version=seen_version,
    )


def queue_poster(game, number):
    """A browser signed in as the player of seat `number`, and the address its panel posts to."""
    client = Client()
    client.force_login(user_at(game, number))
    return client, reverse("games:queue", args=[game.pk])


def stored(game, number):
    return game.seats.get(number=number).queued_draft


def draft_and_confirm(game, committed, tile):
    """The player whose turn it is drafts `tile` and confirms it, each change committed."""
    state = current_state(game)
    user = user_at(game, state.current)
    for action in (rules.Draft(tile), rules.ConfirmDraft()):
        committed(actions.play, game_id=game.pk, user=user, action=action, seen_version=None)
    game.refresh_from_db()


def refused(call, code) -> ActionRefused:
    with pytest.raises(ActionRefused) as caught:
        call()
    assert caught.value.code == code, caught.value.message
    return caught.value


def your_moves(game, number):
    return list(
        OutboxEmail.objects.filter(game_id=game.pk, kind="your_turn", user=user_at(game, number))
    )


# --- queuing -----------------------------------------------------------------------------------


def test_a_waiting_player_queues_changes_and_clears_their_next_draft_without_a_new_version(
    start_game,
):
    game = start_game(2)
    column = current_state(game).draw_tiles()  # seat 1's next turn draws from it too
    version = game.version

    queue(game, 1, [column[3], column[1]], confirm=True, seen_version=version)
    assert stored(game, 1) == {"tiles": [column[3], column[1]], "confirm": True}
    queue(game, 1, [column[1], column[3], column[4]], seen_version=version)
    assert stored(game, 1) == {"tiles": [column[1], column[3], column[4]], "confirm": False}
    queue(game, 1, [], confirm=True, seen_version=None)  # cleared: "confirm it for me" is kept
    assert stored(game, 1) == {"tiles": [], "confirm": True}

    game.refresh_from_db()
    assert game.version == version  # not a move: no event, nobody's page goes stale
    assert not game.events.filter(number__gt=version).exists()


def test_each_refused_queue_says_why_and_changes_nothing(start_game, make_player):
    game = start_game(3)
    state = current_state(game)
    column, earlier = state.columns[11], state.columns[10]
    queue(game, 1, [column[0]])

    assert "draft now" in refused(lambda: queue(game, 0, [column[0]]), "your_turn_now").message
    error = refused(lambda: queue(game, 1, [column[0], earlier[0]]), "not_in_next_column")
    assert error.message == (
        f"The {tile_words(earlier[0])} is in column 11, but your next turn draws from column 12."
    )
    assert error.tile == earlier[0]
    refused(lambda: queue(game, 1, [column[2], column[2]]), "bad_queue")
    refused(lambda: queue(game, 1, [*column, *earlier[:2]]), "bad_queue")
    refused(lambda: queue(game, 1, [state.columns[0][0]]), "not_in_next_column")
    stranger = make_player("fay")
    refused(
        lambda: actions.queue_drafts(
            game_id=game.pk, user=stranger, tiles=[column[0]], confirm=False, seen_version=None
        ),
        "not_a_player",
    )
    assert stored(game, 1) == {"tiles": [column[0]], "confirm": False}


def test_a_queue_made_on_a_page_from_before_the_pool_changed_is_stale(start_game, committed):
    """The page showed another turn's columns: the player would be choosing for a turn that is
    no longer their next one."""
    game = start_game(3)
    seen = game.version
    draft_and_confirm(game, committed, current_state(game).draw_tiles()[0])
    tile = current_state(game).draw_tiles()[0]

    refused(lambda: queue(game, 2, [tile], seen_version=seen), "stale")
    queue(game, 2, [tile], seen_version=game.version)
    queue(game, 2, [], seen_version=seen)  # clearing is always allowed


def test_a_queue_for_a_turn_that_begins_with_a_forced_take_is_refused(start_game, committed):
    game = start_game(2)
    for _ in range(
        3
    ):  # two tiles left in the draw column: seat 1 drafts one, seat 0 gets the other
        draft_and_confirm(game, committed, current_state(game).draw_tiles()[0])
    column = current_state(game).draw_tiles()

    error = refused(lambda: queue(game, 0, [column[0]]), "nothing_to_queue")
    assert "the server takes it for you" in error.message


# --- taken as the turn begins ------------------------------------------------------------------


def test_the_first_queued_tile_still_there_is_drafted_and_confirmed_as_the_turn_begins(
    start_game, committed
):
    game = start_game(2)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[2], column[4]], confirm=True)
    before = len(your_moves(game, 1))

    draft_and_confirm(game, committed, column[2])  # seat 0 takes the first choice

    state = current_state(game)
    assert state.trays[1] == (column[4],)
    assert state.current == 0 and state.pending is None  # confirmed: the turn passed on
    queued = list(game.events.filter(cause=Event.Cause.QUEUED).order_by("number"))
    assert [(e.kind, e.seat, e.actor_id) for e in queued] == [
        ("draft", 1, None),
        ("confirm_draft", 1, None),
    ]
    assert queued[0].action == {"type": "draft", "tile_id": column[4]}
    # Used up; "confirm it for me" kept for the next queue.
    assert stored(game, 1)["tiles"] == [] and stored(game, 1)["confirm"] is True
    assert len(your_moves(game, 1)) == before  # played for them: no "your move" for that turn
    assert your_moves(game, 0)[-1].version == game.version  # and the turn is back with seat 0


def test_an_unconfirmed_queued_draft_waits_for_its_player_who_is_told(start_game, committed):
    game = start_game(2)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[1]])

    draft_and_confirm(game, committed, column[0])

    state = current_state(game)
    assert state.current == 1 and state.pending.tile_id == column[1]
    assert state.pending.seat == 1
    [email] = your_moves(game, 1)[-1:]
    assert email.data == {"queued": column[1], "column": state.pending.column}
    assert email.version == game.version == game.pool_version  # still true until they act
    assert stored(game, 1)["took"] == column[1] and stored(game, 1)["tiles"] == []
    words = f"Your queued draft took the {tile_words(column[1])}: confirm it, or undo it"
    assert words in panel(page(game, user_at(game, 1)))
    # They confirm it themselves: their own draft in the log.
    user = user_at(game, 1)
    actions.play(game_id=game.pk, user=user, action=rules.ConfirmDraft(), seen_version=None)
    assert current_state(game).current == 0


def test_when_none_of_the_queue_is_left_the_player_is_told_and_the_turn_waits(
    start_game, committed
):
    game = start_game(2)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[0]], confirm=True)

    draft_and_confirm(game, committed, column[0])

    state = current_state(game)
    assert state.current == 1 and state.pending is None
    assert not game.events.filter(cause=Event.Cause.QUEUED).exists()
    [email] = your_moves(game, 1)[-1:]
    assert email.data == {"queued": None, "column": state.draw_column()}
    assert stored(game, 1) == {"tiles": [], "confirm": True, "took": None, "at": game.version}
    words = "None of your queued tiles was left in column 10: choose one now."
    assert words in panel(page(game, user_at(game, 1)))
    # Gone once they act on the draw column.
    user = user_at(game, 1)
    actions.play(game_id=game.pk, user=user, action=rules.Draft(column[1]), seen_version=None)
    assert words not in page(game, user)


def test_queued_drafts_chain_round_the_table_in_one_move(start_game, committed):
    game = start_game(3)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[0], column[1]], confirm=True)
    queue(game, 2, [column[0], column[1], column[2]], confirm=True)

    draft_and_confirm(game, committed, column[0])

    state = current_state(game)
    assert (state.trays[1], state.trays[2]) == ((column[1],), (column[2],))
    assert state.current == 0
    assert your_moves(game, 0)[-1].version == game.version
    assert not your_moves(game, 1) or your_moves(game, 1)[-1].version < game.version


def test_the_queue_of_a_turn_that_begins_with_a_forced_take_just_goes(start_game, committed):
    """Refused when queued; should a turn begin with a forced take all the same (a seat's queue
    written some other way), the server takes the last tile and the queue is dropped."""
    game = start_game(2)
    for _ in range(3):
        draft_and_confirm(game, committed, current_state(game).draw_tiles()[0])
    last_two = current_state(game).draw_tiles()
    game.seats.filter(number=0).update(queued_draft={"tiles": [last_two[1]], "confirm": True})

    draft_and_confirm(game, committed, last_two[0])  # seat 1; seat 0's turn is a forced take

    assert game.events.filter(kind="take_last", seat=0).exists()
    assert not game.events.filter(cause=Event.Cause.QUEUED).exists()
    assert stored(game, 0) == {"tiles": [], "confirm": True}


def test_the_turn_beginning_while_the_player_queues_never_leaves_a_queue_behind(
    start_game, committed
):
    """Both orders of the same two changes on the locked game row: the queue comes first and is
    taken as the turn begins, or the turn comes first and the queue is refused as stale (the
    page showed the turn before) or as "it is your turn"."""
    for queue_first in (True, False):
        game = start_game(2)
        column = current_state(game).draw_tiles()
        user = user_at(game, 0)
        actions.play(game_id=game.pk, user=user, action=rules.Draft(column[0]), seen_version=None)
        game.refresh_from_db()
        seen = game.version

        def confirm(game=game, user=user):
            return committed(
                actions.play,
                game_id=game.pk,
                user=user,
                action=rules.ConfirmDraft(),
                seen_version=None,
            )

        def queue_it(game=game, column=column, seen=seen):
            return queue(game, 1, [column[3]], confirm=True, seen_version=seen)

        if queue_first:
            queue_it()
            confirm()
            assert current_state(game).trays[1] == (column[3],)
        else:
            confirm()
            error = refused(queue_it, "stale")
            assert error.message.startswith("The game has moved on")
            with pytest.raises(ActionRefused) as caught:
                queue(game, 1, [column[3]], confirm=True)
            assert caught.value.code == "your_turn_now"
            assert current_state(game).trays[1] == ()
        assert (stored(game, 1) or {}).get("tiles", []) == []


# --- in words, on the page ---------------------------------------------------------------------


def page(game, user, query="") -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("games:game", args=[game.pk]) + query).content.decode()


def panel(html: str) -> str:
    start = html.index('id="draft-ahead"')
    return html[start : html.index("</section>", start)]


def test_the_move_log_tells_the_player_their_queue_drafted_and_the_others_a_plain_draft(
    start_game, committed
):
    game = start_game(2)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[1]], confirm=True)
    draft_and_confirm(game, committed, column[0])
    words = tile_words(column[1])
    name = user_at(game, 1).username

    mine = page(game, user_at(game, 1))
    assert f"Your queued draft took a {words} from column 10" in mine
    # What they asked for is news, not a notice to dismiss: "Since your last visit" tells it.
    notices = mine[
        mine.index('id="my-notices"') : mine.index("</section>", mine.index('id="my-notices"'))
    ]
    assert "queued" not in notices
    since = mine[
        mine.index('id="since-visit"') : mine.index("</section>", mine.index('id="since-visit"'))
    ]
    assert f"your queued draft took a {words}" in since.lower()
    theirs = page(game, user_at(game, 0))
    assert f"{name} took a {words} from column 10" in theirs
    assert "queued" not in theirs.lower().split('id="draft-ahead"')[0]


def test_the_queue_is_on_its_player_s_page_only(start_game, make_player):
    game = start_game(3)
    column = current_state(game).columns[11]
    queue(game, 1, [column[4], column[2]])

    mine = panel(page(game, user_at(game, 1)))
    assert "Drafting ahead" in mine
    assert re.findall(r'class="ahead-item[^"]*" data-tile="(\d+)"', mine) == [
        str(column[4]),
        str(column[2]),
    ]
    assert f"1. {tile_words(column[4])}" in mine
    # Seat 2 waits for the same column: its own, empty queue, and every tile to choose from.
    other = panel(page(game, user_at(game, 2)))
    assert "Nothing queued" in other and 'data-queue=""' in other
    assert all(f'id="ahead-add-{tile}"' in other for tile in column)
    drafter = page(game, user_at(game, 0))
    assert 'class="draft-ahead"' in drafter and "ahead-item" not in drafter
    watcher = page(game, make_player("fay"))
    assert 'id="draft-ahead"' not in watcher


def test_the_pool_marks_the_column_the_viewer_s_next_turn_draws_from(start_game, committed):
    game = start_game(2)
    for _ in range(4):  # and the forced take of column 10's last tile: seat 1 drafts from 9
        draft_and_confirm(game, committed, current_state(game).draw_tiles()[0])
    assert current_state(game).current == 1 and current_state(game).draw_column() == 8

    html = page(game, user_at(game, 0))
    marked = re.findall(r'<ol [^>]*class="column[^"]*next-draw" data-column="(\d+)"', html)
    assert marked == ["8"]
    assert "Column 9, the draw column, your next turn draws from it" in html
    assert "next-draw" not in page(game, user_at(game, 1))  # their turn


def test_the_queue_endpoint_answers_with_the_panel_and_refuses_in_it(start_game):
    game = start_game(2)
    column = current_state(game).draw_tiles()
    client, url = queue_poster(game, 1)
    htmx = {"HTTP_HX_REQUEST": "true"}

    ok = client.post(
        url, {"tiles": f"{column[2]},{column[0]}", "confirm": "1", "version": game.version}, **htmx
    )
    assert ok.status_code == 200
    html = ok.content.decode()
    assert html.lstrip().startswith('<section id="draft-ahead"')
    assert f'id="ahead-remove-{column[2]}"' in html and "checked" in html
    assert stored(game, 1) == {"tiles": [column[2], column[0]], "confirm": True}

    bad = client.post(url, {"tiles": "1;2", "version": game.version}, **htmx)
    assert bad.status_code == 400 and "separated by commas" in bad.content.decode()
    other = current_state(game).columns[0][0]
    wrong = client.post(url, {"tiles": str(other), "version": game.version}, **htmx)
    assert wrong.status_code == 422
    assert f"The {tile_words(other)} is in column 1" in wrong.content.decode()
    assert 'role="alert"' in wrong.content.decode()
    assert stored(game, 1) == {"tiles": [column[2], column[0]], "confirm": True}

    drafter, _ = queue_poster(game, 0)
    mine = drafter.post(url, {"tiles": str(column[1]), "version": game.version}, **htmx)
    assert mine.status_code == 422 and "It is your turn: draft now." in mine.content.decode()

    plain = client.post(url, {"tiles": "", "version": game.version})
    assert plain.status_code == 302 and stored(game, 1)["tiles"] == []


def test_each_button_of_the_panel_posts_the_queue_it_makes(start_game):
    game = start_game(2)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[0], column[1], column[2]], confirm=True)

    html = panel(page(game, user_at(game, 1)))

    def vals(button_id):
        found = re.search(rf'id="{button_id}"[^>]*hx-vals="([^"]*)"', html, re.S)
        return found.group(1).replace("&quot;", '"')

    # No version in them: the page's goes in its X-Page-Version header (live.js), so that a
    # panel a move did not change is drawn once for many versions (issue 36).
    a, b, c = column[0], column[1], column[2]
    assert vals(f"ahead-up-{b}") == f'{{"tiles": "{b},{a},{c}", "confirm": "1"}}'
    assert vals(f"ahead-down-{b}") == f'{{"tiles": "{a},{c},{b}", "confirm": "1"}}'
    assert vals(f"ahead-remove-{a}") == f'{{"tiles": "{b},{c}", "confirm": "1"}}'
    assert vals(f"ahead-add-{column[3]}").startswith(f'{{"tiles": "{a},{b},{c},{column[3]}"')
    assert vals("ahead-clear") == '{"tiles": "", "confirm": "1"}'
    assert f'id="ahead-up-{a}"' not in html and f'id="ahead-down-{c}"' not in html


def test_the_panel_posts_with_the_page_s_version_from_its_header(start_game):
    game = start_game(2)
    column = current_state(game).draw_tiles()
    client, url = queue_poster(game, 1)
    posted = {"tiles": str(column[0]), "confirm": "1"}
    headers = {"HTTP_HX_REQUEST": "true"}

    missing = client.post(url, posted, **headers)
    assert missing.status_code == 400  # no version at all: refused, nothing queued
    assert not stored(game, 1)
    ok = client.post(url, posted, HTTP_X_PAGE_VERSION=str(game.version), **headers)
    assert ok.status_code == 200 and stored(game, 1)["tiles"] == [column[0]]
    # A page that shows a version from before the pool last changed is refused as stale.
    seen = game.version
    draft = {"type": "draft", "tile_id": column[1]}
    actions.play(game_id=game.pk, user=user_at(game, 0), action=draft, seen_version=None)
    again = {"tiles": f"{column[0]},{column[2]}", "confirm": "1"}
    stale = client.post(url, again, HTTP_X_PAGE_VERSION=str(seen), **headers)
    assert stale.status_code == 409 and stored(game, 1)["tiles"] == [column[0]]


def test_a_panel_a_move_did_not_change_is_the_same_at_the_next_version(start_game):
    game = start_game(3)
    state = current_state(game)
    waiting = (state.current + 2) % 3
    before = panel_of(game, waiting)
    drafter = user_at(game, state.current)
    draft = {"type": "draft", "tile_id": state.draw_tiles()[0]}
    actions.play(game_id=game.pk, user=drafter, action=draft, seen_version=None)
    actions.play(game_id=game.pk, user=drafter, action={"type": "undo_draft"}, seen_version=None)
    game.refresh_from_db()
    # Two versions later the pool is as it was: so is the panel, whose drawing is then kept,
    # not drawn again at every version for every player (issue 36).
    assert panel_of(game, waiting) == before and before.mode == "queue"


def test_a_panel_that_looks_the_same_a_turn_later_is_kept_not_drawn_again(start_game):
    # Its drawing is kept on the panel's view: nothing in the view that the panel does not show
    # (how many turns come before theirs) may change it, or every turn would draw every
    # waiting player's panel again (issue 36).
    game = start_game(5)
    kept = 0
    before = {number: panel_of(game, number) for number in range(5)}
    for _ in range(16):
        state = current_state(game)
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
        else:
            drafter = user_at(game, state.current)
            draft = {"type": "draft", "tile_id": state.draw_tiles()[0]}
            actions.play(game_id=game.pk, user=drafter, action=draft, seen_version=None)
            actions.play(
                game_id=game.pk, user=drafter, action={"type": "confirm_draft"}, seen_version=None
            )
        game.refresh_from_db()
        for number in range(5):
            now = panel_of(game, number)
            if now.mode == "queue" and before[number].mode == "queue":
                same = drawn_panel(game, number, now) == drawn_panel(game, number, before[number])
                assert same == (now == before[number]), number
                kept += same
            before[number] = now
    assert kept >= 5  # most turns leave most waiting players' panels as they were


def drawn_panel(game, number, ahead):
    user = user_at(game, number)
    return render_to_string("games/partials/draft_ahead.html", {"user": user, "ahead": ahead})


def panel_of(game, number):
    game, seats = read_game(game.pk)
    seat = next(seat for seat in seats if seat.number == number)
    return ahead_view(game, load_state(game, seats), seat)


def test_a_move_that_passes_the_turn_to_a_player_without_a_queue_costs_what_it_did(
    start_game, committed
):
    """The queue is read with the seats the move reads anyway; only a turn that begins with a
    queue costs more: its own changes (the queued draft and its confirmation) and one UPDATE of
    the queue."""
    game = start_game(2)
    column = current_state(game).draw_tiles()
    user = user_at(game, 0)

    def confirm_queries():
        actions.play(game_id=game.pk, user=user, action=rules.Draft(column[0]), seen_version=None)
        with CaptureQueriesContext(connection) as captured:  # the move, not its effects
            actions.play(game_id=game.pk, user=user, action=rules.ConfirmDraft(), seen_version=None)
        return [query["sql"] for query in captured.captured_queries]

    plain = confirm_queries()
    game.refresh_from_db()
    # Back to seat 0 with the draw column as it was for the next measure.
    draft_and_confirm(game, committed, current_state(game).draw_tiles()[0])
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[1]], confirm=True)
    with_queue = confirm_queries()

    assert len([q for q in plain if q.startswith("SELECT")]) == 1  # the game with its seats
    assert len([q for q in with_queue if q.startswith("SELECT")]) == 1  # nothing read again
    extra = [q for q in with_queue if 'SET "queued_draft"' in q]
    assert len(extra) == 1
    inserts = [q for q in with_queue if q.startswith("INSERT")]
    assert len([q for q in inserts if "games_event" in q]) == 3  # the confirm, and the queue's two


def test_a_resync_shows_the_queue_as_it_is_now_not_as_the_version_was_drawn(start_game):
    """A queue changes without a new version: a page that resyncs (a socket that missed a push)
    gets it as it is, not as the process's drawing of that version had it."""
    game = start_game(2)
    column = current_state(game).draw_tiles()
    player = user_at(game, 1)
    updates.draw_game(game.pk, player)  # this version, drawn and kept by the process

    queue(game, 1, [column[4]])

    _, html = updates.draw_game(game.pk, player)
    assert f'id="ahead-remove-{column[4]}"' in html
    _, theirs = updates.draw_game(game.pk, user_at(game, 0))
    assert "ahead-remove" not in theirs


def test_a_player_who_left_queues_nothing_and_their_queue_is_not_used(start_game, committed):
    """A resigned seat is the server's stand-in's (games/play/leaving.py): the queue its player
    left behind does not draft for it, and no new one is taken."""
    game = start_game(3)
    column = current_state(game).draw_tiles()
    queue(game, 2, [column[1]], confirm=True)
    committed(actions.resign, game_id=game.pk, user=user_at(game, 2))

    refused(lambda: queue(game, 2, [column[1]]), "already_left")
    draft_and_confirm(game, committed, column[0])  # seat 0; then seat 1's turn
    draft_and_confirm(game, committed, current_state(game).draw_tiles()[0])  # seat 2's begins

    assert not game.events.filter(cause=Event.Cause.QUEUED).exists()
