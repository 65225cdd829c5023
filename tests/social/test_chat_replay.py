"""The replay shows the table talk as it was at each step: what was written by then, what was
written at that step marked, and only to those who may read the talk."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.history.replay import ReplayPage
from games.models import ChatMessage, Game
from games.play import chat as talk
from tests.games.playing import play_to_the_end

pytestmark = pytest.mark.django_db


def play_to_the_end_talking(game: Game, at_version: int, text: str) -> None:
    """Play `game` to its end with the greedy players; the first seat says `text` once the game
    reaches `at_version`."""
    said = []

    def talk_once(game):
        if not said and game.version >= at_version:
            talk.send_message(game_id=game.pk, user=game.seats.get(number=0).user, text=text)
            said.append(True)

    play_to_the_end(game, before_move=talk_once)


def replay_page(client, game, step) -> str:
    return client.get(reverse("games:replay", args=[game.pk]) + f"?step={step}").content.decode()


def fresh(html: str) -> list[str]:
    return re.findall(r'class="chat-message fresh".*?<span class="chat-text">([^<]*)<', html, re.S)


def test_each_step_shows_the_talk_written_by_then_and_marks_what_was_written_at_it(start_game):
    game = start_game(2)
    talk.send_message(game_id=game.pk, user=game.seats.get(number=1).user, text="good luck")
    play_to_the_end_talking(game, game.version + 10, "nice draft")
    said = ChatMessage.objects.get(text="nice draft")
    replay = ReplayPage(game)
    step = next(
        n
        for n in range(1, replay.last_step + 1)
        if replay.versions_at(n)[0] <= said.version
        and (replay.versions_at(n)[1] is None or said.version < replay.versions_at(n)[1])
    )
    watcher = Client()

    deal = replay_page(watcher, game, 0)
    assert "good luck" in deal and fresh(deal) == ["good luck"]
    before = replay_page(watcher, game, step - 1)
    assert "good luck" in before and "nice draft" not in before
    at = replay_page(watcher, game, step)
    assert fresh(at) == ["nice draft"] and "good luck" in at
    end = replay_page(watcher, game, replay.last_step)
    assert "nice draft" in end and fresh(end) == []


def test_a_table_that_keeps_its_talk_shows_none_in_the_replay_but_to_its_players(start_game):
    game = start_game(2, spectators_read_chat=False)
    player = game.seats.get(number=0).user
    talk.send_message(game_id=game.pk, user=player, text="between us")
    play_to_the_end(game)
    last = ReplayPage(game).last_step

    assert "between us" not in replay_page(Client(), game, last)
    client = Client()
    client.force_login(player)
    assert "between us" in replay_page(client, game, last)
