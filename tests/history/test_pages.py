"""The archive, the leaderboard and the profile: what they show, and what they cost."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from benchmarks.generate import generate
from games.history import archive as history
from games.history import ratings
from games.models import Game, Rating

pytestmark = pytest.mark.django_db


def archive_url(user, **query):
    url = reverse("archive", args=[user.username])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def shown_games(response):
    return [seat.game_id for seat in response.context["page"].object_list]


@pytest.fixture
def history_of_ada(players, ended_game):
    """Ada's games: won, lost, shared first, a 3-player loss, one running, one unrated."""
    ada, brian, chloe, dmitri, _ = players
    games = {
        "won": ended_game([(ada, 1, 20, 8, 24), (brian, 2, 4, 3, 8)]),
        "lost": ended_game([(ada, 2, 6, 4, 10), (chloe, 1, 12, 6, 16)]),
        "shared": ended_game(
            [(ada, 1, 9, 5, 13), (brian, 1, 9, 5, 13), (dmitri, 3, 0, 1, 4)], timeouts={"ada": 1}
        ),
        "three": ended_game([(chloe, 1, 15, 6, 19), (ada, 3, -2, 9, 30), (dmitri, 2, 3, 2, 5)]),
        "running": ended_game(
            [(ada, None, None, None, None), (dmitri, None, None, None, None)],
            status=Game.Status.PLAYING,
            timeouts={"ada": 2},
        ),
        "unrated": ended_game([(ada, 2, 1, 1, 3), (brian, 1, 5, 2, 5)], rated=False),
    }
    for key in ("won", "lost", "shared", "three"):
        ratings.atomic_rate_game(games[key].pk)
    return games


def test_the_archive_lists_running_games_then_the_last_finished_first(players, history_of_ada):
    ada = players[0]
    response = Client().get(archive_url(ada))  # public
    assert response.status_code == 200
    finished = [g for g in history_of_ada.values() if g.ended_at]
    assert shown_games(response) == [history_of_ada["running"].pk] + [
        g.pk for g in sorted(finished, key=lambda g: g.ended_at, reverse=True)
    ]
    page = response.content.decode()
    assert "playing" in page and "unrated" in page
    assert "1st of 2" in page and "<strong>won</strong>" in page
    # each player of each game, with places and scores, links to their profile
    assert f'href="{reverse("players:profile", args=["chloe"])}"' in page
    # the rating change the game made
    change = history_of_ada["won"].rating_changes.get(user=ada)
    assert f"{change.display} " in page
    # a replay link for finished games only
    assert reverse("games:replay", args=[history_of_ada["won"].pk]) in page
    assert reverse("games:replay", args=[history_of_ada["running"].pk]) not in page


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"result": "won"}, ["won", "shared"]),
        ({"result": "lost"}, ["lost", "three", "unrated"]),
        ({"result": "playing"}, ["running"]),
        ({"players": 3}, ["shared", "three"]),
        ({"opponent": "BRIAN"}, ["won", "shared", "unrated"]),
        ({"opponent": "dmitri", "result": "won"}, ["shared"]),
        ({"opponent": "dmitri", "players": 2}, ["running"]),
    ],
)
def test_the_archive_filters_by_result_player_count_and_opponent(
    players, history_of_ada, query, expected
):
    response = Client().get(archive_url(players[0], **query))
    assert sorted(shown_games(response)) == sorted(history_of_ada[key].pk for key in expected)


def test_an_unknown_opponent_is_said_so_and_matches_nothing(players, history_of_ada):
    response = Client().get(archive_url(players[0], opponent="nobody"))
    assert shown_games(response) == []
    assert "There is no player called “nobody”." in response.content.decode()


def test_the_archive_is_paginated_and_pages_keep_the_filters(players, ended_game):
    ada, brian = players[:2]
    for number in range(history.ARCHIVE_PAGE_SIZE + 5):
        ended_game([(ada, 1 + number % 2, 0, 0, 0), (brian, 2 - number % 2, 0, 0, 0)])

    first = Client().get(archive_url(ada, players=2))
    assert len(shown_games(first)) == history.ARCHIVE_PAGE_SIZE
    assert 'href="?players=2&amp;page=2"' in first.content.decode()
    second = Client().get(archive_url(ada, players=2, page=2))
    assert len(shown_games(second)) == 5
    assert not set(shown_games(first)) & set(shown_games(second))
    # htmx asks for the list alone when the filters change
    partial = Client().get(
        archive_url(ada, result="won"), headers={"HX-Request": "true", "HX-Target": "archive"}
    )
    assert "<html" not in partial.content.decode() and 'id="archive"' in partial.content.decode()


def test_my_games_leads_to_my_own_archive(players, history_of_ada):
    client = Client()
    client.force_login(players[0])
    response = client.get(reverse("games:mine"), follow=True)
    assert response.context["is_me"] and "Your games" in response.content.decode()

    filtered = client.get(reverse("games:mine"), {"result": "won", "page": "1"})
    assert filtered.url == archive_url(players[0], result="won", page="1")


def test_the_profile_shows_rating_chart_and_statistics(players, history_of_ada):
    ada = players[0]
    response = Client().get(reverse("players:profile", args=["ada"]))
    stats = response.context["stats"]
    assert stats.played == 5  # finished games, rated or not; not the running one
    assert stats.wins == 2  # a shared first place is a win
    assert stats.average_score == pytest.approx((20 + 6 + 9 - 2 + 1) / 5)
    assert (stats.best_chip_tiles, stats.best_chip_value) == (9, 30)
    assert stats.timeouts == 3  # counted over every game, running ones too
    assert stats.playing == 1

    mine = Rating.objects.get(user=ada)
    page = response.content.decode()
    assert f'<strong class="rating-value">{mine.display}</strong>' in page
    assert "provisional" in page  # four rated games so far
    chart = response.context["chart"]
    assert len(chart.points) == 5  # the start and four rated games
    assert chart.last.rating == mine.display
    polyline = re.search(r'<polyline class="rating-line" points="([^"]+)"', page).group(1)
    assert len(polyline.split()) == 5
    assert "<svg" in page and " style=" not in page
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page)
    assert reverse("archive", args=["ada"]) in page


def test_a_player_without_games_has_an_empty_profile(players):
    response = Client().get(reverse("players:profile", args=["esme"]))
    page = response.content.decode()
    assert response.status_code == 200
    assert response.context["chart"] is None and "No rated game yet" in page
    assert response.context["stats"].played == 0 and "No games yet." in page
    assert f'<strong class="rating-value">{ratings.INITIAL.display}</strong>' in page


def test_the_leaderboard_ranks_players_with_enough_rated_games(players, ended_game):
    ada, brian, chloe, dmitri, esme = players
    for _ in range(history.LEADERBOARD_MIN_GAMES):
        for game in (
            ended_game([(ada, 1, 0, 0, 0), (brian, 2, 0, 0, 0)]),
            ended_game([(chloe, 1, 0, 0, 0), (brian, 2, 0, 0, 0)]),
        ):
            ratings.atomic_rate_game(game.pk)
    game = ended_game([(dmitri, 1, 0, 0, 0), (esme, 2, 0, 0, 0)])  # only one game: provisional
    ratings.atomic_rate_game(game.pk)

    response = Client().get(reverse("leaderboard"))
    ranked = [rating.user.username for rating in response.context["page"].object_list]
    assert ranked[-1] == "brian" and set(ranked) == {"ada", "brian", "chloe"}
    displays = [rating.display for rating in response.context["page"].object_list]
    assert displays == sorted(displays, reverse=True)
    page = response.content.decode()
    assert "dmitri" not in page
    assert f'href="{reverse("leaderboard")}"' in page  # the nav links to it


def test_the_leaderboard_counts_its_pages_once_and_again_when_a_rated_game_ends(
    players, ended_game, monkeypatch
):
    monkeypatch.setattr(history, "LEADERBOARD_MIN_GAMES", 1)
    ada, brian, chloe, dmitri, esme = players
    for pair in ((ada, brian), (chloe, dmitri)):
        ratings.atomic_rate_game(ended_game([(pair[0], 1, 0, 0, 0), (pair[1], 2, 0, 0, 0)]).pk)

    def last_page():
        page = history.leaderboard_page(2, 3)
        return page.paginator.num_pages, [rating.user.username for rating in page]

    assert last_page() == (2, ["dmitri"])
    with CaptureQueriesContext(connection) as captured:
        assert last_page() == (2, ["dmitri"])
    assert not [q for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]

    # esme's first rated game puts her on the board at once, on the page counted anew.
    ratings.atomic_rate_game(ended_game([(esme, 1, 0, 0, 0), (ada, 2, 0, 0, 0)]).pk)
    pages, last = last_page()
    assert pages == 2 and len(last) == 2
    assert sum(len(history.leaderboard_page(n, 3)) for n in (1, 2)) == 5


# --- what the pages cost -----------------------------------------------------------------------


def page_costs(client, username, game_id):
    costs = {}
    for name, url in (
        ("archive", reverse("archive", args=[username])),
        ("archive filtered", reverse("archive", args=[username]) + "?result=lost&opponent=sim0002"),
        ("archive page 2", reverse("archive", args=[username]) + "?page=2"),
        ("leaderboard", reverse("leaderboard")),
        ("profile", reverse("players:profile", args=[username])),
        ("replay", reverse("games:replay", args=[game_id]) + "?step=30"),
    ):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200, url
        costs[name] = len(captured.captured_queries)
    return costs


@pytest.mark.slow
@pytest.mark.parametrize("logged_in", [False, True])
def test_the_history_pages_cost_the_same_queries_with_few_or_many_games(
    logged_in, django_assert_max_num_queries
):
    generate(games=30, users=6, distinct=4, seed=3)
    client = Client()
    if logged_in:
        from accounts.models import User

        client.force_login(User.objects.get(username="sim0002"))
    few = page_costs(client, "sim0001", Game.objects.order_by("pk").last().pk)

    generate(games=200, users=6, distinct=4, seed=4)  # the same players, many more games
    many = page_costs(client, "sim0001", Game.objects.order_by("pk").last().pk)

    assert few == many, (few, many)
    for url, budget in (
        (reverse("archive", args=["sim0001"]), 12),
        (reverse("leaderboard"), 12),
        # and the bot accounts the player runs (accounts/api_bots.py), and their tournaments
        (reverse("players:profile", args=["sim0001"]), 14),
    ):
        # the page's own reads, plus the session, the user and the nav's turn badge
        with django_assert_max_num_queries(budget):
            client.get(url)
    assert many["profile"] <= 14, many
    assert max(cost for name, cost in many.items() if name != "profile") <= 12, many
