"""The home page for a visitor: the game shown (a computer game replayed, the tiles explained),
one obvious button, what is on the site now; small and readable without script."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.first_visit import showcase
from games.play import actions
from games.tournaments import actions as tournaments
from games.tournaments.models import Tournament

pytestmark = pytest.mark.django_db

MAX_BYTES = 50 * 1024
# The home page's queries for a visitor with no game on the site: the games to watch, the
# leaderboard, the open tables, and the tournaments (one, however many there are).
HOME_QUERIES = 4


def test_a_visitor_meets_the_game_and_one_button_under_50_kb(client, make_player):
    ada = make_player("ada")
    waiting = actions.create_game(creator=ada, player_count=3, time_per_move=timedelta(days=1),
                                  name="Friday table")  # fmt: skip
    playing = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1),
                                  bots=("easy",), name="Ada against the machine")  # fmt: skip
    response = client.get(reverse("home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert len(response.content) < MAX_BYTES, len(response.content)
    assert html.count("Play now against the computer") == 1
    assert f'action="{reverse("first_visit:play_now")}"' in html
    # The replayed game: every frame in the page, the last (the finished boards) shown.
    frames, _ = showcase.frames()
    assert len(frames) >= 5
    shown = re.findall(r'<div class="demo-tiles f(\d+)"( hidden)?>', html)
    assert len(shown) == 2 * len(frames)
    assert [frame for frame, hidden in shown if not hidden] == [str(len(frames) - 1)] * 2
    assert "as it ended" in html
    # The tiles explained, the rules in five steps.
    assert "Closed: 2 points" in html and "Open: no chip" in html
    assert len(re.findall(r"<li>", html.split('class="five-steps"')[1].split("</ol>")[0])) == 5
    # What is on the site now.
    assert "Friday table" in html and "Ada against the machine" in html
    assert reverse("games:game", args=[playing.pk]) in html
    assert waiting.pk


def test_the_replayed_game_is_a_real_game_played_to_its_end():
    frames, colours = showcase.frames()
    last = frames[-1]
    assert last.ended and last.seats[0].score != 0
    assert [frame.drafts for frame in frames] == sorted(frame.drafts for frame in frames)
    assert all(len(board) == 25 for board in colours)


def test_a_player_keeps_their_dashboard(client, make_player):
    client.force_login(make_player("ada"))
    assert client.get(reverse("home")).url == reverse("dashboard")


def test_a_guest_is_offered_their_game_back(client):
    client.post(reverse("first_visit:play_now"))
    html = client.get(reverse("home")).content.decode()
    assert "Continue your game" in html and "Play now against the computer" not in html


def test_a_visitor_sees_the_tournaments_taking_entries_in_one_query(
    client, make_player, django_assert_num_queries
):
    ada = make_player("ada")
    soon = timezone.now() + timedelta(hours=2)
    spring = tournaments.create_tournament(organiser=ada, name="Spring cup", starts_at=soon,
                                           min_players=2)  # fmt: skip
    tournaments.register(tournament_id=spring.pk, user=ada)
    tournaments.register(tournament_id=spring.pk, user=make_player("bo"))
    tournaments.create_tournament(organiser=ada, name="Friends only", starts_at=soon,
                                  access=Tournament.Access.INVITATION)  # fmt: skip
    html = client.get(reverse("home")).content.decode()
    part = html.split("<h2>Tournaments</h2>")[1].split("</div>")[0]
    assert "Spring cup" in part and "2 players entered, starts" in part
    assert reverse("tournaments:detail", args=[spring.pk]) in part
    assert "Friends only" not in html  # by invitation: not shown to everyone
    assert reverse("tournaments:list") in part
    # One query for the tournaments, with their entrants, however many there are.
    with django_assert_num_queries(HOME_QUERIES):
        client.get(reverse("home"))
    for number in range(4):
        organiser = make_player(f"organiser{number}")
        tournaments.create_tournament(organiser=organiser, name=f"Cup {number}", starts_at=soon)
    with django_assert_num_queries(HOME_QUERIES):
        html = client.get(reverse("home")).content.decode()
    part = html.split("<h2>Tournaments</h2>")[1].split("</div>")[0]
    assert part.count("<li>") == showcase.TOURNAMENTS_SHOWN


def test_no_tournament_says_so():
    assert showcase.tournaments_to_join() == []
