"""Two programs and a person finish a game together on the real stack: the person opens a table
for three in the browser and invites two players whose bots run the repository's API client
(`python -m games.api_client`, as anyone would run it, with a play token each). The bots hear the
invitation on the stream, accept it, and play every move through the API with the rules
package's strong player, while the person drafts and places by clicking; daphne serves the pages,
the API and the stream, and a Celery worker makes the forced takes."""

import os
import subprocess
import sys
import time

import pytest
from django.conf import settings

from accounts import tokens
from games import rules
from games.models import Game
from games.rules.greedy import choose_draft

from .helpers import (
    TIMEOUT,
    click_and_wait,
    game_state,
    place_where_it_fits,
    shows_at_least,
    shows_version,
)
from .test_play_in_browser import create_invitation_game

pytestmark = pytest.mark.servers

# How long the bots may take over their turns between two of the person's.
BOTS_TURNS = 120


def start_client(server, secret, log):
    command = [
        sys.executable, "-m", "games.api_client", "--url", server.url, "--token", secret,
        "--accept-invitations", "--games", "1", "--think", "0.1", "--verbose",
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=settings.BASE_DIR, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy()
    )


def wait_for(condition, what, timeout=BOTS_TURNS):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"waited {timeout} s for {what}")


def test_two_api_clients_and_a_person_finish_a_game(open_page, make_player, server, tmp_path):
    ada = make_player("ada")
    bots = [make_player("cogsworth"), make_player("gearbox")]
    logs = [open(tmp_path / f"{bot.username}.log", "w") for bot in bots]  # noqa: SIM115
    clients = [
        start_client(server, tokens.create_token(bot, name="bot", scope="play")[1], log)
        for bot, log in zip(bots, logs, strict=True)
    ]
    try:
        page = open_page(ada)
        game_id = create_invitation_game(page, "cogsworth, gearbox", players=3)
        # The bots accept on hearing of the invitation: the table starts by itself.
        wait_for(
            lambda: Game.objects.get(pk=game_id).status == Game.Status.PLAYING,
            "the bots to take their seats",
            timeout=60,
        )
        page.goto(f"/games/{game_id}/")
        game, state = game_state(game_id)
        seat = next(s.number for s in game.seats.all() if s.user_id == ada.pk)
        drafted = 0
        while game.status == Game.Status.PLAYING:
            if state.phase == rules.FINISHING:
                if not state.finished[seat]:
                    # The bots finish meanwhile: the page may pass this version between polls.
                    shows_at_least(page, game.version)
                    click_and_wait(page, "button:has-text('Finish')", game_id)
                wait_for(
                    lambda: Game.objects.get(pk=game_id).status == Game.Status.ENDED,
                    "the bots to finish",
                )
                break
            if state.current != seat or state.forced_action() is not None:
                version = game.version
                wait_for(
                    lambda v=version: Game.objects.get(pk=game_id).version > v,
                    "the bots' moves",
                )
                game, state = game_state(game_id)
                continue
            shows_version(page, game.version)  # the bots' moves reached the page live
            tile = choose_draft(state, seat).tile_id
            click_and_wait(page, f"#draw-{tile}", game_id)
            place_where_it_fits(page, game_id, seat, tile)
            click_and_wait(page, "button:has-text('Confirm draft')", game_id)
            drafted += 1
            game, state = game_state(game_id)
        for client in clients:  # each stops by itself once its one game has ended
            assert client.wait(timeout=60) == 0
    finally:
        for client in clients:
            if client.poll() is None:
                client.kill()
        for log in logs:
            log.close()
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.ENDED
    assert drafted >= 5
    places = {seat.user.username: seat.place for seat in game.seats.select_related("user")}
    assert set(places) == {"ada", "cogsworth", "gearbox"} and None not in places.values()
    page.wait_for_selector("section.results", timeout=TIMEOUT)
    for bot in bots:  # the bots moved through the API: their own tokens' moves
        log = (tmp_path / f"{bot.username}.log").read_text()
        assert "accepting the invitation" in log, log[-2000:]
    assert page.errors == []


def test_the_api_docs_page_draws_every_endpoint_under_the_sites_policy(open_page, server):
    page = open_page()
    page.goto("/api/v1/docs")
    page.wait_for_selector(".opblock", timeout=TIMEOUT)  # Swagger UI drew the operations
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/v1/games/{game_id}/actions" in path for path in paths)
    assert any("/api/v1/stream" in path for path in paths)
    assert page.errors == []  # no script error, no Content Security Policy violation
