"""The puzzle pages: the board drawn with the game's own controls, moves posted as the game page
posts them, the verdict beside the proved best; the daily puzzle on the dashboard, the same for
everyone that day; puzzles cut from a finished game once."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from games.puzzles import choosing, cutting
from games.puzzles.models import Puzzle, PuzzleAttempt

from .conftest import small_arrangement, small_drafting, store

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.mark.django_db
def test_a_puzzle_is_played_on_the_game_boards_controls(client, players, arrangement):
    client.force_login(players[0])
    url = reverse("puzzles:puzzle", args=[arrangement.pk])
    act = reverse("puzzles:act", args=[arrangement.pk])
    tiles = arrangement.data["tiles"]

    page = client.get(url).content.decode()
    assert f'data-act-url="{act}"' in page
    for tile in tiles:
        assert f'id="my-tray-{tile}"' in page  # the tray's tiles, as the game draws them
    picked = client.get(
        reverse("puzzles:fragment", args=[arrangement.pk]) + f"?sel=t{tiles[0]}", **HTMX
    )
    assert 'aria-pressed="true"' in picked.content.decode()
    assert picked["HX-Push-Url"] == f"{url}?sel=t{tiles[0]}"
    for space, cell in enumerate(arrangement.data["best_cells"]):
        if cell:
            answer = client.post(
                act,
                {"type": "place", "tile_id": cell[0], "space": space, "rotation": cell[1]},
                **HTMX,
            )
            assert answer.status_code == 200
    answer = client.post(act, {"type": "submit"}, **HTMX)

    html = answer.content.decode()
    assert "Solved!" in html and "The proved best" in html
    assert PuzzleAttempt.objects.get(user=players[0]).status == "solved"
    again = client.post(act, {"type": "submit"}, **HTMX)
    assert again.status_code == 409 and "answered this puzzle already" in again.content.decode()


@pytest.mark.django_db
def test_a_refused_move_says_why_on_the_board(client, players, arrangement):
    client.force_login(players[0])
    act = reverse("puzzles:act", args=[arrangement.pk])

    answer = client.post(
        act, {"type": "rotate", "space": 3, "quarter_turns": 1, "version": 0}, **HTMX
    )

    assert answer.status_code == 400
    assert 'role="alert"' in answer.content.decode()


@pytest.mark.django_db
def test_a_drafting_puzzle_shows_the_engines_values_after_the_answer(client, players, drafting):
    client.force_login(players[0])
    page = client.get(reverse("puzzles:puzzle", args=[drafting.pk])).content.decode()
    assert 'id="draw-20"' in page and 'id="draw-0"' not in page  # the draw column's tiles only

    answer = client.post(
        reverse("puzzles:act", args=[drafting.pk]), {"type": "draft", "tile_id": 33}, **HTMX
    )

    html = answer.content.decode()
    assert "Not the best" in html and "<td>6.5</td>" in html
    assert "the engine's choice" in html.replace("&#x27;", "'")


@pytest.mark.django_db
def test_the_daily_puzzle_is_the_same_all_day_for_everyone(client, players):
    old = timezone.now() - datetime.timedelta(days=2)
    for puzzle in (small_arrangement(), small_drafting()):
        store(puzzle)
    Puzzle.objects.update(created_at=old)
    today = timezone.now().date()

    daily = choosing.daily_puzzle(today)
    store_new = Puzzle.objects.create(
        id="new0000000000001",
        kind="arrangement",
        data=small_arrangement().to_json(),
        mu=25,
        sigma=8,
        display=1000,
    )

    assert (
        daily is not None and choosing.daily_puzzle(today) == daily
    )  # a new one changes nothing today
    assert store_new.created_at.date() == today
    days = {choosing.daily_puzzle(today + datetime.timedelta(days=n)).pk for n in range(1, 12)}
    assert len(days) == 3  # over the days every puzzle comes round (the new one too)
    for player in players[:2]:
        client.force_login(player)
        dashboard = client.get(reverse("dashboard")).content.decode()
        assert "The puzzle of the day" in dashboard
        assert reverse("puzzles:puzzle", args=[daily.pk]) in dashboard


@pytest.mark.django_db
def test_the_puzzles_page_lists_the_players_history(client, players, arrangement, drafting):
    from games.puzzles import actions

    actions.draft(user=players[0], puzzle_id=drafting.pk, tile=20)
    client.force_login(players[0])

    page = client.get(reverse("puzzles:index")).content.decode()

    assert "Your puzzle rating" in page and "Solved 1 of 1" in page
    assert reverse("puzzles:puzzle", args=[drafting.pk]) in page
    assert f'href="{reverse("puzzles:puzzle", args=[arrangement.pk])}"' in page  # the next one


@pytest.mark.django_db
def test_puzzles_are_stored_once(arrangement):
    cut = cutting.Cut(arrangement.pk, "arrangement", arrangement.data, [])
    other = small_drafting()
    new = cutting.Cut(
        "drafting00000002", "drafting", {**other.to_json(), "id": "drafting00000002"}, []
    )

    assert cutting.store_puzzles(game_id=None, cuts=[cut, new]) == 1
    assert cutting.store_puzzles(game_id=None, cuts=[cut, new]) == 0
    assert Puzzle.objects.count() == 2
