"""The time controls and vacations on the pages: the new-game form, the lobby, the game page's
clocks, the dashboard's vacation switch; and what a Fischer draft costs."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from accounts import vacations as days
from accounts.models import User
from games import rules
from games.models import Game
from games.play import actions, vacations

from .playing import current_state
from .test_query_counts import queries_of, sql_of, statements

pytestmark = pytest.mark.django_db

HOUR, DAY = timedelta(hours=1), timedelta(days=1)


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def create(client, **fields):
    data = {"name": "Clocked", "player_count": 2, "access": "open", "rated": "on", **fields}
    return client.post(reverse("games:create"), data)


def test_a_fischer_table_is_created_from_the_form_and_shown_in_the_lobby(players):
    response = create(
        client_for(players[0]),
        clock="fischer",
        fischer_bank="3d",
        fischer_increment="12h",
        fischer_cap="7d",
        finishing_time="2d",
        weekends_off="on",
    )
    assert response.status_code == 302
    game = Game.objects.get(name="Clocked")
    assert (game.clock, game.fischer_bank, game.fischer_increment, game.fischer_cap) == (
        "fischer",
        DAY * 3,
        HOUR * 12,
        DAY * 7,
    )
    assert (game.finishing_time, game.weekends_off) == (DAY * 2, True)
    words = (
        "Fischer clock: 3 days to start, +12 hours a draft, at most 7 days; 2 days to finish; "
        "weekends off"
    )
    assert game.time_control == words

    lobby = client_for(players[1]).get(reverse("games:lobby")).content.decode()
    assert words in lobby
    waiting = client_for(players[1]).get(reverse("games:game", args=[game.pk])).content.decode()
    assert words in waiting


def test_the_form_refuses_a_cap_below_the_bank_and_keeps_the_time_per_move_by_default(players):
    client = client_for(players[0])
    response = create(
        client, clock="fischer", fischer_bank="14d", fischer_increment="1d", fischer_cap="7d"
    )
    assert response.status_code == 200
    assert (
        "The cap must be at least the starting bank and the increment." in response.content.decode()
    )
    assert not Game.objects.exists()

    assert create(client, time_per_move="2d").status_code == 302  # as before: per move
    game = Game.objects.get()
    assert (game.clock, game.time_per_move, game.finishing_period) == ("per_move", DAY * 2, DAY * 2)
    assert game.time_control == "2 days per move"


def test_the_game_page_shows_each_players_clock_and_the_time_control(start_game, players, clock):
    game = start_game(
        2, clock="fischer", fischer_bank=DAY * 2, fischer_increment=DAY, fischer_cap=DAY * 3
    )
    drafter, waiting = game.seats.get(number=0).user, game.seats.get(number=1).user
    clock.advance(HOUR)
    game.refresh_from_db()

    page = client_for(waiting).get(reverse("games:game", args=[game.pk])).content.decode()

    assert "Fischer clock: 2 days to start, +1 day a draft, at most 3 days</p>" in page
    # The drafter's clock runs (in the status and by their name); the other's bank rests.
    assert page.count('<span class="clock-left">1 day 23 hours</span>') == 2
    assert 'Time left: <span class="seat-clock" data-clock' in page
    assert 'bank <span class="clock-left">2 days</span>' in page
    # Each running one carries its deadline (no weekend or vacation before it), to tick by.
    running = re.findall(r"<span class=\"seat-clock\" data-clock ([^>]*)>", page)
    deadline = (game.turn_started_at + DAY * 2).isoformat(timespec="seconds")
    assert running == [f'data-deadline="{deadline}" data-pauses=""'] * 2
    assert f"{drafter.username} is drafting." in page


def test_the_dashboards_vacation_switch_starts_and_ends_a_vacation(start_game, players, clock):
    game = start_game(2)
    ada = game.seats.get(number=0).user
    client = client_for(ada)
    dashboard = client.get(reverse("dashboard")).content.decode()
    assert "You have <strong>30 days</strong> of vacation." in dashboard

    response = client.post(reverse("vacation"), {"days": "4.5"}, follow=True)

    page = response.content.decode()
    assert "You are on vacation until" in page and 'id="end-vacation"' in page
    ada = User.objects.get(pk=ada.pk)
    assert ada.vacation_until == clock.now() + DAY * 4.5
    other = game.seats.get(number=1).user
    game_page = client_for(other).get(reverse("games:game", args=[game.pk])).content.decode()
    assert f"{ada.username} is on vacation until" in game_page  # the status
    assert '<span class="vacation-marker">on vacation until <time' in game_page  # by her name

    clock.advance(DAY)
    page = client.post(reverse("vacation"), {"end": "1"}, follow=True).content.decode()
    assert "Welcome back" in page
    assert "You have <strong>29 days</strong> of vacation." in page
    assert not days.on_vacation(User.objects.get(pk=ada.pk), clock.now())


def test_the_vacation_switch_refuses_more_days_than_are_left(players):
    client = client_for(players[0])
    page = client.post(reverse("vacation"), {"days": "31"}, follow=True).content.decode()
    assert "You have 30 days of vacation left." in page or "less than or equal to 30" in page
    page = client.post(reverse("vacation"), {"days": "many"}, follow=True).content.decode()
    assert "Give the number of days" in page
    assert User.objects.get(pk=players[0].pk).vacation_until is None


def test_a_fischer_draft_writes_its_players_bank_one_update_more(start_game):
    per_move = start_game(2)
    fischer = start_game(
        2, clock="fischer", fischer_bank=DAY, fischer_increment=HOUR, fischer_cap=DAY * 2
    )

    def confirm_costs(game):
        me = game.seats.get(number=0).user
        tile = current_state(game).draw_tiles()[0]
        actions.play(game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None)
        return sql_of(
            lambda: actions.play(
                game_id=game.pk, user=me, action=rules.ConfirmDraft(), seen_version=None
            )
        )

    plain, banked = confirm_costs(per_move), confirm_costs(fischer)
    assert len(banked) == len(plain) + 1
    extra = [sql for sql in statements(banked, "UPDATE") if '"bank"' in sql]
    assert len(extra) == 1 and 'UPDATE "games_seat" SET "bank"' in extra[0]


def test_another_players_vacation_costs_a_move_nothing(start_game):
    def draft_costs(game):
        me = game.seats.get(number=0).user
        tile = current_state(game).draw_tiles()[0]
        return queries_of(
            lambda: actions.play(
                game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None
            )
        )

    plain = draft_costs(start_game(2))
    game = start_game(2)
    vacations.start_vacation(user_id=game.seats.get(number=1).user_id, length=DAY)

    assert draft_costs(game) == plain
