"""The "your move" email as a player relies on it, through a real SMTP server: it says what
happened since their own last move, comes once a game until they have looked, still comes for
a timeout or the end they were watching but did not see, and its links (and an invitation's)
work for a player who is signed out."""

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client

from games import presence, rules, seen, tasks
from games.models import Event, Game
from games.move_log import tile_words
from games.play import actions
from infra.models import OutboxEmail
from infra.tasks import send_email
from tests.conftest import new_player
from tests.games.playing import current_state, draft_the_top_tile

from .digests import digest_for
from .smtp import html_part, text_part

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-Passphrase-42"  # tests/conftest.py new_player
SITE = "http://localhost:8000"


def your_moves(inbox, user, game=None) -> list:
    """The "your move" emails `user` received (of `game`, if given), in order."""
    title = f" in {game.title}" if game is not None else ""
    return [m for m in inbox.to(user.email) if f"] Your move{title}" in m["Subject"]]


def of_kind(inbox, user, words: str) -> list:
    return [m for m in inbox.to(user.email) if words in m["Subject"]]


def seat_user(game, number):
    return game.seats.get(number=number).user


# A table that lets a player time out many times before the server takes their seat
# (games/play/leaving.py): these tests are about the emails of turn after turn run out.
PATIENT = {"abandon_after_row": 10, "abandon_after_total": 30}


def time_out(game, committed, clock, watching=()):
    """The current player's time runs out: the server drafts for them (the players `watching`
    have the game open then)."""
    game.refresh_from_db()
    clock.advance(game.deadline - clock.now() + timedelta(seconds=1))
    for user in watching:  # presence expires with the clock: they arrive at the deadline
        presence.arrive(game.pk, user.pk, f"tab-{user.pk}")
    played = committed(actions.time_out_turn, game_id=game.pk, expected_version=game.version)
    assert played is not None
    game.refresh_from_db()


def step(game, committed, clock, away):
    """One move of the game: `away` lets their time run out, the other player drafts."""
    game.refresh_from_db()
    if seat_user(game, game.current_seat) == away:
        time_out(game, committed, clock)
    else:
        draft_the_top_tile(game, committed)
    game.refresh_from_db()


def timeouts_of(game, user) -> int:
    number = game.seats.get(user=user).number
    return game.events.filter(kind="confirm_draft", seat=number, cause=Event.Cause.TIMEOUT).count()


def look_at(game, user):
    """The player's visible page shows the game as it is now (its heartbeat, games/seen.py)."""
    game.refresh_from_db()
    seen.see_game(game_id=game.pk, user=user, version=game.version)


# --- what happened since your last move --------------------------------------------------------


def test_your_move_says_what_happened_since_your_own_last_move(start_game, committed, inbox):
    """After their own draft, the server took a column's last tile for them (a forced take) and
    the other player drafted: the email says both, in words for them, and nothing older."""
    game = start_game(2)
    for _ in range(60):
        draft_the_top_tile(game, committed)
        game.refresh_from_db()
        me = game.current_seat
        events = list(game.events.order_by("number"))
        own = [e.number for e in events if e.seat == me and e.kind == "confirm_draft"]
        after = [e for e in events if own and e.number > own[-1]]
        takes = [e for e in after if e.kind == "take_last" and e.seat == me]
        drafts = [e for e in after if e.kind == "confirm_draft" and e.seat != me]
        if takes and drafts:
            break
    else:
        raise AssertionError("no forced take in 60 drafts")
    player, other = seat_user(game, me), seat_user(game, 1 - me)
    taken = tile_words(takes[-1].action["tile_id"])
    draft_events = {e.number: e for e in events if e.kind == "draft"}
    other_tile = tile_words(draft_events[drafts[-1].number - 1].action["tile_id"])
    mine_before = tile_words(draft_events[own[-1] - 1].action["tile_id"])

    message = your_moves(inbox, player, game)[-1]

    text, html = text_part(message), html_part(message)
    assert "Since your last move:" in text
    assert re.search(rf"- the server took the last tile of column \d+, a {taken}, for you", text)
    # The other player's drafts since then, on one line (there may be more than one).
    [drafted] = [line for line in text.splitlines() if line.startswith(f"- {other.username} took")]
    assert drafted.endswith(f"a {other_tile}")
    assert f"you took a {mine_before}" not in text  # their own move is no news to them
    assert "Since your last move:" in html
    assert re.search(
        rf"<li>the server took the last tile of column \d+, a {taken}, for you</li>", html
    )
    assert re.search(rf"<li>{other.username} took [^<]*a {other_tile}</li>", html)
    # A direct link to the game, and one to the settings.
    assert f"Play your move: {SITE}/games/{game.pk}/" in text
    assert f'href="{SITE}/games/{game.pk}/"' in html
    assert f"{SITE}/settings/" in text and f'href="{SITE}/settings/"' in html


# --- one unread "your move" a game -------------------------------------------------------------


def test_one_unread_your_move_a_game_until_the_player_has_looked(
    start_game, committed, inbox, clock
):
    """A player away from the game lets turn after turn run out: one "your move" for all of
    them. Once they have looked at the game, the next turn brings the next email."""
    game = start_game(2, time_per_move=timedelta(hours=1), **PATIENT)
    mover, away = seat_user(game, 0), seat_user(game, 1)
    draft_the_top_tile(game, committed)
    assert len(your_moves(inbox, away, game)) == 1

    for _ in range(8):
        step(game, committed, clock, away)
    assert timeouts_of(game, away) >= 3  # turn after turn of theirs began, and ran out
    assert len(your_moves(inbox, away, game)) == 1
    assert len(of_kind(inbox, away, "time ran out")) == timeouts_of(game, away)  # each told
    assert len(your_moves(inbox, mover, game)) >= 3  # who keeps playing keeps hearing of it

    look_at(game, away)  # during a turn of theirs, which then runs out too
    before = timeouts_of(game, away)
    while timeouts_of(game, away) < before + 2:  # until a turn that began after they looked
        step(game, committed, clock, away)
    assert len(your_moves(inbox, away, game)) == 2


def test_a_player_in_many_fast_games_gets_one_email_a_game(players, committed, inbox, clock):
    away = players[1]
    games = []
    for opponent in (players[0], players[2], players[3]):
        game = committed(
            actions.create_game,
            creator=opponent,
            player_count=2,
            time_per_move=timedelta(hours=1),
            **PATIENT,
        )
        committed(actions.join_game, game_id=game.pk, user=away)
        games.append(game)

    for _ in range(8):  # in each game, whoever is to move: the other drafts, `away` times out
        for game in games:
            step(game, committed, clock, away)

    for game in games:
        assert timeouts_of(game, away) >= 3
        assert len(your_moves(inbox, away, game)) == 1, game


def test_a_your_move_queued_before_the_player_looked_is_dropped(start_game, committed, inbox):
    """The row was written when the turn began; the player looked at the game before it went
    (a slow queue, a retry): it is not sent."""
    game = start_game(2)
    away = seat_user(game, 1)
    lost = []
    original = send_email.apply_async

    def lose(*args, **kwargs):
        lost.append(args)

    send_email.apply_async = lose
    try:
        draft_the_top_tile(game, committed)
    finally:
        send_email.apply_async = original
    row = OutboxEmail.objects.get(game_id=game.pk, user=away, kind="your_turn")
    look_at(game, away)

    assert send_email.delay(row.pk).get() == "dropped"
    assert your_moves(inbox, away, game) == []


# --- watching ----------------------------------------------------------------------------------


def test_a_timeout_while_watching_is_emailed_later_if_the_player_left_without_seeing_it(
    start_game, committed, inbox, clock
):
    game = start_game(2, time_per_move=timedelta(hours=1))
    first = seat_user(game, 0)
    time_out(game, committed, clock, watching=[first])  # their time runs out as they watch

    assert of_kind(inbox, first, "time ran out") == []  # their page shows it
    [row] = OutboxEmail.objects.filter(game_id=game.pk, user=first, kind="timeout")
    assert row.status == OutboxEmail.Status.PENDING
    presence.depart(game.pk, first.pk, f"tab-{first.pk}")  # closed before it showed the notice
    clock.advance(timedelta(seconds=60))
    committed(tasks.sweep)
    assert of_kind(inbox, first, "time ran out") == []  # not yet: they may still come back
    clock.advance(timedelta(seconds=31))
    committed(tasks.sweep)

    [message] = of_kind(inbox, first, "time ran out")
    assert f"{SITE}/games/{game.pk}/" in text_part(message)


def test_a_timeout_the_watching_player_saw_is_not_emailed(start_game, committed, inbox, clock):
    game = start_game(2, time_per_move=timedelta(hours=1))
    first = seat_user(game, 0)
    time_out(game, committed, clock, watching=[first])
    look_at(game, first)  # their visible page's heartbeat: they saw the timeout
    presence.depart(game.pk, first.pk, f"tab-{first.pk}")
    clock.advance(timedelta(seconds=120))
    committed(tasks.sweep)

    assert of_kind(inbox, first, "time ran out") == []
    [row] = OutboxEmail.objects.filter(game_id=game.pk, user=first, kind="timeout")
    assert row.status == OutboxEmail.Status.DROPPED


def test_the_end_while_watching_is_emailed_only_to_who_left_without_seeing_it(
    start_game, committed, inbox, clock
):
    game = start_game(2)
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    last, other = seat_user(game, 0), seat_user(game, 1)
    committed(actions.play, game_id=game.pk, user=other, action=rules.Finish(), seen_version=None)
    for user in (last, other):
        presence.arrive(game.pk, user.pk, f"tab-{user.pk}")

    # The last player finishes, so the game ends, while both have the game open.
    committed(actions.play, game_id=game.pk, user=last, action=rules.Finish(), seen_version=None)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert of_kind(inbox, last, "is over") == of_kind(inbox, other, "is over") == []
    presence.depart(game.pk, other.pk, f"tab-{other.pk}")  # gone before their page showed it
    clock.advance(timedelta(seconds=100))
    committed(tasks.sweep)

    assert of_kind(inbox, last, "is over") == []  # they pressed Finish: they saw the end
    [message] = of_kind(inbox, other, "is over")
    assert f"{SITE}/games/{game.pk}/replay/" in text_part(message)


# --- the digest and its reminders --------------------------------------------------------------


def test_a_digest_reader_still_gets_the_reminder_near_a_deadline(
    start_game, committed, inbox, clock
):
    game = start_game(2, time_per_move=timedelta(hours=10))
    reader = seat_user(game, 0)
    reader.email_daily_digest = True
    reader.save()
    game.refresh_from_db()

    clock.advance(game.remind_at - clock.now() + timedelta(seconds=1))
    assert committed(actions.remind_players, game_id=game.pk) == [reader.pk]

    [message] = of_kind(inbox, reader, "Time is running out for your move")
    assert "It is still your move" in text_part(message)


def test_the_digest_and_the_settings_say_when_it_comes_and_the_rules(players, client, settings):
    reader = players[0]
    reader.time_zone = "Asia/Tokyo"
    digest, _ = digest_for(players, reader)
    assert "every morning at about 8:00 your time (Asia/Tokyo)" in " ".join(digest.body.split())
    assert "a reminder still comes when a deadline is near" in " ".join(digest.body.split())

    client.force_login(reader)
    page = " ".join(client.get("/settings/").content.decode().split())
    assert "comes every morning at about 8:00 in your time zone (Asia/Tokyo)" in page
    assert "A reminder that your time is running out still comes" in page
    assert "that game sends you no other until you have looked at it" in page
    assert "the email follows about 1.5 minutes later" in page


# --- the end's wording -------------------------------------------------------------------------


def test_a_tie_is_told_as_a_shared_place_with_a_link_to_the_replay(
    start_game, committed, django_capture_on_commit_callbacks
):
    game = start_game(3)
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    for seat in game.seats.select_related("user"):
        actions.play(game_id=game.pk, user=seat.user, action=rules.Finish(), seen_version=None)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    # Two players share the first place (the same score and chip size), one is third.
    seats = list(game.seats.select_related("user").order_by("number"))
    for seat, (place, score) in zip(seats, [(1, 7), (1, 7), (3, 2)], strict=True):
        seat.place, seat.score = place, score
        seat.save(update_fields=["place", "score"])
    mail.outbox.clear()
    row = OutboxEmail.objects.create(
        kind="game_over",
        user=seats[0].user,
        game_id=game.pk,
        version=game.version,
        message_id="<t@x>",
    )

    assert send_email.delay(row.pk).get() == "sent"
    [message] = mail.outbox
    assert message.subject.endswith("is over: you came 1st (shared)")
    assert "You came 1st (shared) with 7 points." in message.body
    assert f"1st (shared)  {seats[1].user.username}  7 points" in message.body
    assert f"3rd  {seats[2].user.username}  2 points" in message.body
    replay = f"{SITE}/games/{game.pk}/replay/"
    assert f"Replay every move: {replay}" in message.body
    assert f'href="{replay}"' in message.alternatives[0][0]
    assert Client().get(urlsplit(replay).path).status_code == 200


# --- links for a player who is signed out ------------------------------------------------------


def log_in_through_the_form(client, login_page: str, user):
    """Fill in allauth's log-in form as the page gives it (with its next=), following
    redirects; return the last response."""
    page = client.get(login_page)
    assert page.status_code == 200
    next_field = re.search(rb'name="next" value="([^"]*)"', page.content)
    data = {"login": user.username, "password": PASSWORD}
    if next_field:
        data["next"] = next_field[1].decode().replace("&#x2F;", "/")
    return client.post(login_page, data, follow=True)


def test_an_invitation_link_signed_out_goes_to_log_in_and_back_to_the_table(
    players, committed, inbox
):
    host, guest = players[0], players[3]
    game = committed(
        actions.create_game,
        creator=host,
        player_count=3,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=(guest.username,),
    )
    [message] = inbox.to(guest.email)
    link = f"{SITE}/games/{game.pk}/"
    assert link in text_part(message)
    path = urlsplit(link).path
    client = Client()

    answer = client.get(path)

    assert answer.status_code == 302
    assert answer["Location"] == f"/accounts/login/?next=/games/{game.pk}/"
    # A game that does not exist gets exactly the same answer: nobody learns which exist.
    missing = Game.objects.order_by("-pk").first().pk + 1000
    nothing = client.get(f"/games/{missing}/")
    assert nothing.status_code == 302
    assert nothing["Location"] == f"/accounts/login/?next=/games/{missing}/"
    assert nothing.content == answer.content
    # Signed in, someone not invited still gets a plain 404.
    stranger = Client()
    stranger.force_login(players[4])
    assert stranger.get(path).status_code == 404
    assert stranger.get(f"/games/{missing}/").status_code == 404

    landed = log_in_through_the_form(client, answer["Location"], guest)

    assert landed.redirect_chain[-1][0] == path
    assert landed.status_code == 200
    assert f'action="/games/{game.pk}/join/"' in landed.content.decode()  # they may take the seat


def test_a_your_move_link_signed_out_comes_back_to_the_game_after_log_in(
    start_game, committed, inbox
):
    game = start_game(2)
    second = seat_user(game, 1)
    draft_the_top_tile(game, committed)
    assert len(your_moves(inbox, second, game)) == 1
    path = urlsplit(f"{SITE}/games/{game.pk}/").path
    client = Client()

    page = client.get(path)  # a started game is public: shown, with a log-in link back here

    assert page.status_code == 200
    login_link = re.search(rb'<a href="(/accounts/login/\?next=[^"]+)">Log in</a>', page.content)
    assert login_link is not None
    landed = log_in_through_the_form(client, login_link[1].decode().replace("&amp;", "&"), second)
    assert landed.redirect_chain[-1][0] == path
    assert landed.context["view"].viewer_seat.seat.user_id == second.pk


def test_the_nav_log_in_link_keeps_the_page_and_on_the_log_in_page_its_next(client, players):
    page = client.get("/leaderboard/?page=2")
    assert b'href="/accounts/login/?next=/leaderboard/%3Fpage%3D2"' in page.content
    login = client.get("/accounts/login/?next=/games/7/")
    assert b'href="/accounts/login/?next=/games/7/"' in login.content
    assert b'href="/accounts/signup/?next=/games/7/"' in login.content
    assert b"next=https" not in client.get("/accounts/login/?next=https://evil.example/").content


def test_a_new_player_from_an_invitation_can_sign_in_with_email_too(players):
    """The log-in form takes the email address as well: the page comes back the same way."""
    host = players[0]
    guest = new_player("fatima")
    game = actions.create_game(
        creator=host,
        player_count=2,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=(guest.username,),
    )
    client = Client()
    answer = client.get(f"/games/{game.pk}/")
    landed = client.post(
        "/accounts/login/",
        {"login": guest.email, "password": PASSWORD, "next": f"/games/{game.pk}/"},
        follow=True,
    )
    assert answer["Location"] == f"/accounts/login/?next=/games/{game.pk}/"
    assert landed.redirect_chain[-1][0] == f"/games/{game.pk}/"
    assert landed.context["game"] == game
