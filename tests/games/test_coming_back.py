"""Coming back to a game: the move log beside the boards, what happened since the last visit,
the server's doings kept as notices until dismissed, and the marks that say what counts."""

import functools
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from games import rules
from games.drawing import updates
from games.drawing.log_page import LOG_TURNS_PER_PAGE
from games.drawing.view import game_view
from games.live import pushes as live
from games.models import Seat
from games.play import actions

from .playing import current_state, next_move

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def page(client, game, **params):
    response = client.get(reverse("games:game", args=[game.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def draw(game, seat_number):
    """The seat drafts the top tile of the draw column and confirms; return the tile."""
    state = current_state(game)
    user = game.seats.get(number=seat_number).user
    tile = state.draw_tiles()[0]
    for action in (rules.Draft(tile), rules.ConfirmDraft()):
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    if current_state(game).forced_action() is not None:  # the task's work, done here
        actions.take_last_tile(game_id=game.pk)
    return tile


def draw_until_forced(game):
    """Draft until the next player must take the last tile of the draw column (not yet taken)."""
    while True:
        state = current_state(game)
        user = game.seats.get(number=state.current).user
        for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
            actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
        if current_state(game).forced_action() is not None:
            return


def tile_words(tile):
    return f"{rules.TILES[tile].colour.value} {rules.TILES[tile].kind.value}"


def between(html, start, end):
    return html[html.index(start) : html.index(end, html.index(start))]


def test_the_move_log_is_beside_the_boards_newest_first_in_the_readers_words(start_game):
    game = start_game(2)
    first, second = (game.seats.get(number=n).user for n in (0, 1))
    taken = [draw(game, current_state(game).current) for _ in range(2)]

    log = between(page(client_of(second), game), 'id="move-log"', "</aside>")

    texts = re.findall(r"<span>([^<]+)</span>", log)
    assert texts[0].startswith("You took a " + tile_words(taken[1]))  # the reader
    assert texts[1].startswith(f"{first.username} took a {tile_words(taken[0])} from column ")
    assert "Turn 2" in log and "Turn 1" in log and "At the table" in log
    assert log.index("Turn 2") < log.index("Turn 1")  # newest first
    assert "<time datetime=" in log


def test_a_long_game_s_log_is_paged_and_the_older_pages_come_by_their_own_address(start_game):
    game = start_game(2)
    for _ in range(LOG_TURNS_PER_PAGE + 2):
        draw(game, current_state(game).current)
    client = client_of(game.seats.get(number=0).user)

    newest = between(page(client, game), 'id="move-log"', "</aside>")
    assert f"Turn {LOG_TURNS_PER_PAGE + 2}" in newest and "Turn 1<" not in newest
    assert "page 1 of 2" in newest

    older = client.get(reverse("games:log", args=[game.pk]), {"page": "2"}).content.decode()
    assert "Turn 1<" in older and "page 2 of 2" in older and "Newer" in older
    # Junk pages are the first page, not an error.
    assert (
        "page 1 of 2"
        in client.get(reverse("games:log", args=[game.pk]), {"page": "x"}).content.decode()
    )


def test_since_your_last_visit_tells_what_others_did_once_and_marks_the_tiles(start_game):
    game = start_game(3)
    me = game.seats.get(number=0).user
    client = client_of(me)
    while current_state(game).current != 0:
        draw(game, current_state(game).current)
    page(client, game)  # seen as it is now
    draw(game, 0)
    taken = [draw(game, current_state(game).current) for _ in range(2)]
    others = [game.seats.get(number=n).user.username for n in (1, 2)]

    html = page(client, game)

    summary = between(html, 'id="since-visit"', "</section>")
    assert f"{others[0]} took a {tile_words(taken[0])}" in summary
    assert f"{others[1]} took a {tile_words(taken[1])}" in summary
    assert "you took" not in summary.lower()  # their own draft is no news to them
    news = re.search(r'data-news-tiles="([^"]*)"', html).group(1).split()
    assert sorted(map(int, news)) == sorted(taken)
    for tile in taken:  # the tiles the page highlights are on the page, by their id
        assert f'data-tile="{tile}"' in html

    again = page(client, game)
    assert "Since your last visit" not in again and "data-news-tiles" not in again
    game.refresh_from_db()
    assert Seat.objects.get(game=game, user=me).seen_version == game.version


def test_a_timeout_is_a_notice_until_dismissed_and_a_forced_take_is_only_news(start_game, clock):
    game = start_game(2, time_per_move=HOUR)
    draw_until_forced(game)
    forced_seat = current_state(game).current
    actions.take_last_tile(game_id=game.pk)
    user = game.seats.get(number=forced_seat).user
    client = client_of(user)

    # The server taking a column's last tile is routine: the move log and "Since your last
    # visit" tell it, no notice asks to be dismissed.
    html = page(client, game)
    assert "The server took" not in between(html, 'id="my-notices"', "</section>")
    assert "Dismiss" not in between(html, 'id="my-notices"', "</section>")
    assert "the server took the last tile of column" in between(
        html, 'id="since-visit"', "</section>"
    )
    assert "The server took the last tile of column" in between(html, 'id="move-log"', "</aside>")

    # A timeout of the same player is a notice, and their count shows by their name.
    while current_state(game).current != forced_seat or current_state(game).forced_action():
        if current_state(game).forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
        else:
            draw(game, current_state(game).current)
    clock.advance(HOUR * 2)
    game.refresh_from_db()
    actions.time_out_turn(game_id=game.pk, expected_version=game.version)
    html = page(client, game)
    assert (
        "your time ran out: the server took a "
        in between(html, 'id="my-notices"', "</section>").lower()
    )
    game.refresh_from_db()
    response = client.post(
        reverse("games:dismiss_notices", args=[game.pk]), {"version": str(game.version)}
    )
    assert response.status_code == 200
    assert "time ran out" not in response.content.decode()
    assert "time ran out" not in between(page(client, game), 'id="my-notices"', "</section>")
    other = client_of(game.seats.get(number=1 - forced_seat).user)
    seat_head = between(page(other, game), f'id="seat-{forced_seat}"', "</header>")
    assert "1 timeout<" in seat_head


def test_dismissing_needs_a_version(start_game):
    game = start_game(2)
    client = client_of(game.seats.get(number=0).user)
    response = client.post(reverse("games:dismiss_notices", args=[game.pk]), {"version": "x"})
    assert response.status_code == 400


def test_a_push_carries_the_log_and_the_notice_to_whom_the_server_acted_for(start_game):
    game = start_game(2, time_per_move=HOUR)
    draw_until_forced(game)
    forced_seat = current_state(game).current
    played = actions.take_last_tile(game_id=game.pk)
    event = played.change.event()
    owner = game.seats.get(number=forced_seat).user
    other = game.seats.get(number=1 - forced_seat).user

    for_owner, _ = updates.draw_change(event, owner, {})
    for_other, _ = updates.draw_change(event, other, {})

    # The turn it added to the move log, not the whole log (the page shows the rest).
    assert 'id="move-log"' not in for_owner + for_other
    turn = re.search(r'id="(log-turn-\d+)"', for_owner).group(1)
    assert f'id="{turn}"' in for_other
    assert "for you" in between(for_owner, f'id="{turn}"', "</section>")
    assert f"for {owner.username}" in between(for_other, f'id="{turn}"', "</section>")
    assert 'id="my-notices"' in for_owner and "The server took" in for_owner
    assert 'id="my-notices"' not in for_other


def test_the_status_asks_to_confirm_a_pending_draft(start_game):
    game = start_game(2)
    state = current_state(game)
    user = game.seats.get(number=state.current).user
    actions.play(
        game_id=game.pk, user=user, action=rules.Draft(state.draw_tiles()[0]), seen_version=None
    )
    status = between(page(client_of(user), game), 'id="game-status"', "</section>")
    assert "confirm your draft" in status and "take a tile from the draw column" not in status


def play_to_the_finishing(game):
    while current_state(game).phase == rules.DRAFTING:  # sensible play
        seat, action = next_move(game)
        user = game.seats.get(number=seat).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
        if current_state(game).forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)


def test_the_chip_and_the_last_tile_are_marked_on_every_board(start_game):
    chips = 0
    for _ in range(5):  # a deal where nobody closes a structure is rare; play another then
        game = start_game(2)
        play_to_the_finishing(game)
        for number in (0, 1):
            board = current_state(game).boards[number]
            chip = rules.find_chip(board.occ, board.n, board.e, board.s, board.w).mask
            closed = 0
            for structure in rules.structures(board):
                if structure.closed:
                    closed |= structure.mask
            viewer = client_of(game.seats.get(number=1 - number).user)  # another player's board

            seat = between(page(viewer, game), f'id="seat-{number}"', "</section>")

            in_chip = re.findall(r'class="space-box[^"]*\bin-chip\b', seat)
            in_closed = re.findall(r'class="space-box[^"]*\bin-closed\b', seat)
            assert len(in_chip) == chip.bit_count()
            assert len(in_closed) == (closed & ~chip).bit_count()
            assert len(re.findall(r"\blast-tile\b", seat)) == 1  # its last tile, wherever
            chips += chip.bit_count()
        if chips:
            break
    assert chips, "sensible play closes a structure"


def test_a_tray_tile_that_fits_nowhere_says_so_and_offers_deselect(start_game):
    game = start_game(2)
    found = None
    while found is None:  # play sensibly until a tray holds a tile with no legal space
        state = current_state(game)
        found = next(
            ((seat, tile) for seat in range(2) for tile in state.trays[seat]
             if state.can_arrange(seat) and not list(rules.legal_spots(state.boards[seat], tile))),
            None,
        )  # fmt: skip
        if found is None:
            move = next_move(game)
            assert move is not None, "no tray tile ever fitted nowhere"
            seat, action = move
            user = game.seats.get(number=seat).user
            actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
            if current_state(game).forced_action() is not None:
                actions.take_last_tile(game_id=game.pk)
    seat, tile = found
    fitting = (
        next(t for t in state.trays[seat] if list(rules.legal_spots(state.boards[seat], t)))
        if any(list(rules.legal_spots(state.boards[seat], t)) for t in state.trays[seat])
        else None
    )
    client = client_of(game.seats.get(number=seat).user)

    board = between(page(client, game, sel=f"t{tile}"), f'id="seat-{seat}"', "</section>")
    assert "fits nowhere on your board" in board and ">Deselect</button>" in board
    assert " legal" not in re.sub(
        r"legal\)", "", " ".join(re.findall(r'class="space-box[^"]*"', board))
    )
    if fitting is not None:  # a tile that fits somewhere still says to choose a lit space
        board = between(page(client, game, sel=f"t{fitting}"), f'id="seat-{seat}"', "</section>")
        assert "the highlighted ones fit" in board


def test_a_push_sends_the_log_s_page_buttons_only_when_a_new_turn_changed_them(
    start_game, monkeypatch, django_capture_on_commit_callbacks
):
    # Issue 36: the buttons ("page 1 of 2", Older) went with every move that wrote in the log;
    # a page that shows the version before has them right unless a new turn opened a page.
    game = start_game(2)
    watcher = game.seats.get(number=1).user
    sent = []
    monkeypatch.setattr(live, "send", sent.extend)
    pages, drawn = [1], []  # the log's pages at each version; each push drawn, and its version

    def played(change):
        sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            change()
        game.refresh_from_db()
        pages.append(game_view(game, watcher).log_first_page.pages)
        for _, event in sent:
            if event["type"] == "game.changed" and event["version"] == game.version:
                html, _ = updates.draw_change(event, watcher, {})
                drawn.append((len(pages) - 1, 'id="move-log-pages"' in html))

    while pages[-1] < 2 or len(pages) < 2 * LOG_TURNS_PER_PAGE + 8:
        state = current_state(game)
        user = game.seats.get(number=state.current).user
        for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
            move = functools.partial(actions.play, game_id=game.pk, user=user, action=action)
            played(functools.partial(move, seen_version=None))
        if current_state(game).forced_action() is not None:
            played(lambda: actions.take_last_tile(game_id=game.pk))
    grew = {at for at in range(1, len(pages)) if pages[at] != pages[at - 1]}
    assert grew and len(drawn) > 2 * LOG_TURNS_PER_PAGE
    assert {at for at, with_buttons in drawn if with_buttons} == grew
