"""The "your move" email of a player who queued their draft, through a real SMTP server: none
when the queue drafted and confirmed for them, and a word of what it did otherwise."""

import pytest

from games.move_log import tile_words
from games.play import actions
from tests.games.playing import current_state, draft_the_top_tile

from .smtp import html_part, text_part
from .test_your_move import seat_user, your_moves

pytestmark = pytest.mark.django_db


def queue(game, number, tiles, confirm):
    actions.queue_drafts(
        game_id=game.pk,
        user=seat_user(game, number),
        tiles=tiles,
        confirm=confirm,
        seen_version=None,
    )


def test_a_queue_that_drafted_and_confirmed_sends_no_your_move(start_game, committed, inbox):
    game = start_game(2)
    player = seat_user(game, 1)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[1], column[2]], confirm=True)

    draft_the_top_tile(game, committed)  # seat 0 takes column[0]: seat 1's queue plays its turn

    assert current_state(game).trays[1] == (column[1],)
    assert your_moves(inbox, player, game) == []
    # Its next "your move" tells them what their queue did, among the rest.
    draft_the_top_tile(game, committed)
    [message] = your_moves(inbox, player, game)
    assert f"- your queued draft took a {tile_words(column[1])} from column 10" in text_part(
        message
    )


def test_your_move_says_the_queued_draft_waits_to_be_confirmed(start_game, committed, inbox):
    game = start_game(2)
    player = seat_user(game, 1)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[3]], confirm=False)

    draft_the_top_tile(game, committed)

    [message] = your_moves(inbox, player, game)
    words = f"Your queued draft took the {tile_words(column[3])} from column 10: confirm it"
    assert words in text_part(message)
    assert f"Your queued draft took the <strong>{tile_words(column[3])}</strong>" in html_part(
        message
    )


def test_your_move_says_none_of_the_queue_was_left(start_game, committed, inbox):
    game = start_game(2)
    player = seat_user(game, 1)
    column = current_state(game).draw_tiles()
    queue(game, 1, [column[0]], confirm=True)  # the very tile the other player takes

    draft_the_top_tile(game, committed)

    [message] = your_moves(inbox, player, game)
    assert "None of your queued tiles was left in column 10: choose one yourself." in text_part(
        message
    )
    assert "None of your queued tiles was left</strong>" in html_part(message)
