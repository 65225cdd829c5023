"""The replay: rebuilt from the event log alone, step by step, drawn by the game's partials."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from games import rules
from games.history import replay as history
from games.models import Game

from .playing import play_recorded

pytestmark = pytest.mark.django_db


def replay_url(game, **query):
    url = reverse("games:replay", args=[game.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


@pytest.mark.slow
@pytest.mark.parametrize("count", [2, 4])
def test_the_replay_of_a_recorded_game_reproduces_every_state_and_the_final_scores(
    count, start_game
):
    game = start_game(count)
    recorded = play_recorded(game)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED

    replay = history.ReplayPage(game)
    numbers = [event.number for event in replay.events]
    assert numbers == sorted(recorded)  # every rules event was recorded, and only those
    states = replay.moves.states
    assert len(states) == replay.last_step + 1
    assert states[0] == rules.new_game(count, game.seed)
    for step, number in enumerate(numbers, start=1):
        assert states[step] == recorded[number], f"step {step} (event {number}) differs"
        assert replay.state_at(step) == recorded[number]

    final = states[-1]
    assert final.is_terminal()
    for result in final.results():
        seat = game.seats.get(number=result.seat)
        assert (seat.score, seat.place, seat.chip_tiles, seat.chip_value, seat.penalty_tiles) == (
            result.score,
            result.place,
            result.chip_tiles,
            result.chip_value,
            result.penalty_tiles,
        )


@pytest.mark.slow
def test_the_replay_page_steps_forward_through_every_event_and_back(start_game):
    game = start_game(2)
    recorded = play_recorded(game)
    game.refresh_from_db()
    client = Client()  # finished games are public: no log-in
    replay = history.ReplayPage(game)

    response = client.get(replay_url(game, step=0))
    assert response.status_code == 200
    assert "The deal" in response.content.decode()
    assert 'id="replay-prev"' not in response.content.decode()
    step = 0
    while True:
        page = response.content.decode()
        view = response.context["view"]
        state = replay.state_at(step)
        if step:
            assert state == recorded[replay.events[step - 1].number]
        # the pool, every tray and every board as they were at this step
        assert [[tile.id for tile in column] for column in view.columns] == [
            list(column) for column in state.columns
        ]
        for seat in view.seats:
            assert [tile.id for tile in seat.tray] == list(state.trays[seat.number])
            cells = state.boards[seat.number].cells
            assert [
                None if space.tile is None else (space.tile.id, space.tile.rotation)
                for space in view.seats[seat.number].spaces
            ] == [None if cell is None else (cell.tile, cell.rotation) for cell in cells]
        assert f"Step <strong>{step}</strong> of {replay.last_step}" in page
        found = re.search(r'id="replay-next"[^>]*href="([^"]+)"', page) or re.search(
            r'href="([^"]+)"[^>]*id="replay-next"', page
        )
        if found is None:
            break
        response = client.get(replay_url(game) + found.group(1).replace("&amp;", "&"))
        step += 1
    assert step == replay.last_step
    assert "Results" in page

    back = re.search(r'id="replay-prev"[^>]*href="([^"]+)"', page).group(1)
    response = client.get(replay_url(game) + back)
    assert response.context["step"] == replay.last_step - 1


def test_the_last_step_shows_the_final_boards_and_each_score_breakdown(start_game):
    game = start_game(3)
    play_recorded(game)
    game.refresh_from_db()

    response = Client().get(replay_url(game))  # no step: the end
    page = response.content.decode()
    view = response.context["view"]

    assert response.context["step"] == history.ReplayPage(game).last_step
    results = page[page.index('aria-label="Results"') :]
    for seat in game.seats.select_related("user"):
        assert seat.user.username in results
        shown = view.seats[seat.number]
        assert shown.seat.finished
        assert (shown.score.score, shown.score.chip_tiles, shown.score.chip_value) == (
            seat.score,
            seat.chip_tiles,
            seat.chip_value,
        )
        row = re.search(
            rf"<td>{seat.user.username}</td>\s*<td><strong>(-?\d+)</strong></td>\s*"
            r"<td>(\d+)</td>\s*<td>(\d+)</td>\s*<td>(\d+)</td>",
            results,
        )
        assert row is not None
        assert [int(value) for value in row.groups()] == [
            seat.score,
            seat.chip_value,
            seat.chip_tiles,
            seat.penalty_tiles,
        ]
    assert "Replay this game" not in page  # the results partial links to the replay elsewhere


def test_jump_to_a_turn_shows_the_position_when_it_began(start_game):
    game = start_game(2)
    recorded = play_recorded(game)
    game.refresh_from_db()
    replay = history.ReplayPage(game)

    response = Client().get(replay_url(game, turn=5))
    step = response.context["step"]
    state = replay.state_at(step)
    assert state == recorded[replay.events[step - 1].number]
    assert state.drafts == 4 and state.pending is None  # four drafts done, the fifth begins
    assert state.current == (game.seats.get(number=0).number + 4) % 2
    assert response.context["turn"] == 5
    assert '<option value="5" selected>' in response.content.decode()

    response = Client().get(replay_url(game, turn="finishing"))
    assert replay.state_at(response.context["step"]).phase == rules.FINISHING

    assert Client().get(replay_url(game, turn="nonsense")).context["step"] == replay.last_step
    assert Client().get(replay_url(game, step="-4")).context["step"] == 0
    assert Client().get(replay_url(game, step="99999")).context["step"] == replay.last_step


def test_htmx_steps_answer_with_the_step_alone_and_push_its_address(start_game):
    game = start_game(2)
    play_recorded(game)
    response = Client().get(replay_url(game, step=3), headers={"HX-Request": "true"})

    page = response.content.decode()
    assert page.lstrip().startswith('<div id="replay"') or 'id="replay"' in page[:300]
    assert "<html" not in page
    assert response["HX-Push-Url"] == replay_url(game, step=3)


def test_the_keys_step_through_the_replay_from_a_script_file_not_inline(start_game):
    game = start_game(2)
    play_recorded(game)
    page = Client().get(replay_url(game, step=3)).content.decode()

    assert 'aria-keyshortcuts="ArrowLeft"' in page and 'aria-keyshortcuts="ArrowRight"' in page
    assert re.search(r'<script src="[^"]*games/replay[^"]*\.js"', page)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page), "an inline script"
    assert " style=" not in page and " onclick=" not in page


def test_only_finished_games_have_a_replay(start_game, players):
    game = start_game(2)
    assert Client().get(replay_url(game)).status_code == 302  # still playing: the game page
    waiting = Game.objects.create(
        created_by=players[0], player_count=2, time_per_move=game.time_per_move
    )
    assert Client().get(replay_url(waiting)).status_code == 404
    assert Client().get(reverse("games:replay", args=[999999])).status_code == 404


def test_the_finished_game_page_links_to_its_replay(start_game):
    game = start_game(2)
    play_recorded(game)
    page = Client().get(reverse("games:game", args=[game.pk])).content.decode()
    assert f'href="{replay_url(game)}"' in page
