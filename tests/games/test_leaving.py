"""Leaving a game that goes on (games/play/leaving.py): resigning, abandonment after timeouts
(on a simulated clock, through the sweep), the vote to expel, the server's stand-in, the end when
no person is left, and what the pages, the log and the emails say of it."""

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from games import move_log, rules, tasks
from games.bots.turns import STRONG_OPTIONS
from games.history import ratings
from games.history.replay import rebuild_state
from games.models import (
    Event,
    ExpelVote,
    Game,
    RatingChange,
    Seat,
    waiting_for_move,
    waiting_for_stand_in,
)
from games.play import actions
from games.play import clock as turn_clock
from games.play.errors import ActionRefused
from games.play.forms import ActionForm
from games.rules.bots import owned_tiles, solve
from games.rules.greedy import best_placement, choose_draft
from infra import outbox
from infra.models import OutboxEmail

from .playing import current_state, draft_the_top_tile

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)
HTMX = {"HTTP_HX_REQUEST": "true"}
Left = Seat.Left
Cause = Event.Cause


@pytest.fixture(autouse=True)
def _no_analysis(lost_tasks, settings):
    """The post-game analysis is not what these tests are about (it solves every board)."""
    settings.BOT_MOVE_DELAY = 0
    lost_tasks("games.analyse_game")


def seat_user(game, number):
    return game.seats.get(number=number).user


def seat_of(game, user) -> Seat:
    return Seat.objects.get(game=game, user=user)


def refusal(call, **kwargs) -> str:
    with pytest.raises(ActionRefused) as caught:
        call(**kwargs)
    return caught.value.code


def person_move(game):
    """(user, action) for the next sensible move of a person still playing, or None when the
    game waits for nobody but the server (its tasks run at each commit)."""
    state = current_state(game)
    if game.status != Game.Status.PLAYING:
        return None
    people = {
        seat.number: seat.user
        for seat in game.seats.select_related("user")
        if not seat.left and not seat.user.is_bot
    }
    for number, user in people.items():
        if state.can_arrange(number) and state.trays[number]:
            found = best_placement(state.boards[number], list(state.trays[number]))
            if found is not None:
                return user, found[1]
    if state.phase == rules.DRAFTING and state.current in people:
        user = people[state.current]
        if state.pending is not None:
            return user, rules.ConfirmDraft()
        return user, choose_draft(state, state.current)
    if state.phase == rules.FINISHING:
        for number, user in people.items():
            if not state.finished[number]:
                return user, rules.Finish()
    return None


def play_on(game, committed, *, until=None):
    """The people still playing make sensible moves, each committed (so the forced takes, the
    computer players' and the stand-in's moves run at once), to the end or until `until()`."""
    for _ in range(2000):
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING or (until is not None and until()):
            return
        move = person_move(game)
        assert move is not None, "the game waits for the server, which did not move"
        user, action = move
        committed(actions.play, game_id=game.pk, user=user, action=action, seen_version=None)
    raise AssertionError("the game did not end")


def time_out(game, clock, committed):
    """Let the current turn's time run out; the sweep plays it."""
    clock.advance(HOUR + timedelta(seconds=1))
    committed(tasks.sweep)


def run_to_turn_of(game, number, committed):
    """The others draft (their top tile) until it is seat `number`'s turn."""
    for _ in range(30):
        if current_state(game).current == number:
            return
        draft_the_top_tile(game, committed)
    raise AssertionError("the turn never came")


def subjects_to(user):
    return [message.subject for message in mail.outbox if message.to == [user.email]]


def assert_replays(game):
    """The stored state is the fold of the event log."""
    assert rebuild_state(game) == current_state(game)


# --- resigning ---------------------------------------------------------------------------------


def test_with_two_players_resigning_ends_the_game_at_once_and_the_other_wins(start_game, committed):
    game = start_game(2)
    draft_the_top_tile(game, committed)
    draft_the_top_tile(game, committed)
    quitter, winner = seat_user(game, 0), seat_user(game, 1)
    mail.outbox.clear()

    played = committed(actions.resign, game_id=game.pk, user=quitter)

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED and game.phase == rules.ENDED
    assert game.deadline is None
    gone, stayed = seat_of(game, quitter), seat_of(game, winner)
    assert (gone.left, gone.left_turn, gone.left_version) == (Left.RESIGNED, 3, game.version)
    assert (gone.place, stayed.place) == (2, 1)
    resign = game.events.get(kind="resign")
    assert (resign.seat, resign.actor, resign.cause) == (0, quitter, Cause.PLAYER)
    assert [event.kind for event in played.events] == ["resign"]
    # Rated once, with those places; the ending processed again changes nothing.
    changes = {change.user_id: change.place for change in RatingChange.objects.filter(game=game)}
    assert changes == {quitter.pk: 2, winner.pk: 1}
    assert ratings.atomic_rate_game(game.pk) == []
    assert RatingChange.objects.filter(game=game).count() == 2
    assert_replays(game)
    # Both hear of the end; the email names the resignation.
    assert subjects_to(winner) == [f"[Microchip Online] {game.title} is over: you came 1st"]
    assert subjects_to(quitter) == [f"[Microchip Online] {game.title} is over: you came 2nd"]
    told = next(m for m in mail.outbox if m.to == [quitter.email]).body
    assert "You left the game (resigned)" in told
    assert f"{quitter.username}  " in told and "(resigned, played by the server)" in told


def test_with_three_players_the_server_plays_the_seat_of_who_resigned_and_ranks_them_last(
    start_game, committed, settings
):
    settings.BOT_STRONG_OPTIONS = {**STRONG_OPTIONS, "finish_time": 0.2}
    game = start_game(3)
    for _ in range(4):
        draft_the_top_tile(game, committed)
    number = current_state(game).current  # they resign on their own turn
    quitter = seat_user(game, number)
    OutboxEmail.objects.all().delete()

    played = committed(actions.resign, game_id=game.pk, user=quitter)

    assert [event.kind for event in played.events] == ["resign"]
    game.refresh_from_db()
    assert game.is_playing
    # The stand-in drafted and confirmed for them at once, through the rules actions.
    stood_in = list(game.events.filter(cause=Cause.STAND_IN).order_by("number"))
    assert [event.kind for event in stood_in][:1] == ["draft"]
    assert "confirm_draft" in [event.kind for event in stood_in]
    assert all(event.seat == number and event.actor is None for event in stood_in)
    assert game.current_seat != number

    play_on(game, committed)

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    seats = list(game.seats.order_by("number"))
    assert seats[number].place == 3 and seats[number].left == Left.RESIGNED
    assert seats[number].finished  # the stand-in finished the board
    # It drafted as the easy player does, and finished with the best arrangement the solver
    # finds for the tiles it had (remembered from its own search: the same answer).
    final = current_state(game)
    best = solve(final.boards[number].colours, owned_tiles(final, number), 0.2)
    assert seats[number].score >= best.score
    assert seats[number].chip_tiles > 0
    others = [seat for seat in seats if seat.number != number]
    best = max(others, key=lambda seat: (seat.score, seat.chip_tiles))
    assert best.place == 1
    assert RatingChange.objects.get(game=game, user=quitter).place == 3
    assert RatingChange.objects.filter(game=game).count() == 3
    assert_replays(game)
    # Nothing asked them to move after they left; the end they heard of.
    kinds = set(OutboxEmail.objects.filter(user=quitter).values_list("kind", flat=True))
    assert kinds == {"game_over"}


def test_a_seat_that_left_is_not_waited_for_by_its_player_but_by_the_stand_in(
    start_game, committed, lost_tasks, settings, clock
):
    lost = lost_tasks("games.stand_in_move")
    game = start_game(3)
    number = current_state(game).current
    quitter = seat_user(game, number)
    assert Seat.objects.filter(waiting_for_move(), user=quitter).count() == 1

    committed(actions.resign, game_id=game.pk, user=quitter)

    assert [(task.name, task.args[:2]) for task in lost] == [
        ("games.stand_in_move", (game.pk, number))
    ]
    # Their dashboard and badge no longer count it; the server owes the move.
    assert Seat.objects.filter(waiting_for_move(), user=quitter).count() == 0
    assert Seat.objects.filter(waiting_for_stand_in(), game=game).count() == 1
    # The stand-in's task was lost: after the grace the sweep wakes it, as a computer player.
    settings.BOT_SWEEP_GRACE = timedelta(seconds=30)
    assert tasks.sweep()["bots"] == 0
    clock.advance(timedelta(minutes=1))
    game.refresh_from_db()
    assert turn_clock.stalled_bots(clock.now()) == [(game.pk, None, game.version, number)]
    assert committed(tasks.sweep)["bots"] == 1
    game.refresh_from_db()
    assert game.current_seat != number
    assert game.events.filter(cause=Cause.STAND_IN, kind="confirm_draft").count() == 1


def test_resigning_is_refused_to_whom_it_does_not_fit(start_game, players, committed):
    waiting = actions.create_game(creator=players[0], player_count=3, time_per_move=HOUR)
    assert refusal(actions.resign, game_id=waiting.pk, user=players[0]) == "not_started"
    game = start_game(3)
    assert refusal(actions.resign, game_id=game.pk, user=players[4]) == "not_a_player"
    assert refusal(actions.resign, game_id=987654, user=players[0]) == "no_such_game"

    quitter = seat_user(game, 1)
    committed(actions.resign, game_id=game.pk, user=quitter)
    assert refusal(actions.resign, game_id=game.pk, user=quitter) == "already_left"
    # Nor may they play the seat the server now plays.
    state = current_state(game)
    assert (
        refusal(
            actions.play,
            game_id=game.pk,
            user=quitter,
            action=rules.Clear(),
            seen_version=None,
        )
        == "already_left"
    )
    # Leaving is no move to post, and the stand-in plays only a seat that left.
    assert (
        refusal(
            actions.play,
            game_id=game.pk,
            user=seat_user(game, 0),
            action={"type": "resign"},
            seen_version=None,
        )
        == "bad_action"
    )
    assert not ActionForm({"type": "resign", "version": 1}).is_valid()
    assert not ActionForm({"type": "conclude", "version": 1}).is_valid()
    assert (
        refusal(
            actions.play_stand_in,
            game_id=game.pk,
            seat_number=0,
            action=rules.Draft(state.draw_tiles()[0]),
            seen_version=None,
        )
        == "not_left"
    )

    committed(actions.resign, game_id=game.pk, user=seat_user(game, 0))
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED  # one seat stays: it wins
    assert refusal(actions.resign, game_id=game.pk, user=seat_user(game, 2)) == "game_over"


def test_a_player_who_has_finished_may_not_resign(start_game, committed):
    game = start_game(2)
    while current_state(game).phase == rules.DRAFTING:
        draft_the_top_tile(game, committed)
    finisher = seat_user(game, 0)
    committed(
        actions.play, game_id=game.pk, user=finisher, action=rules.Finish(), seen_version=None
    )

    assert refusal(actions.resign, game_id=game.pk, user=finisher) == "board_finished"
    # The other may: the game ends, the one who finished first.
    other = seat_user(game, 1)
    committed(actions.resign, game_id=game.pk, user=other)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert (seat_of(game, finisher).place, seat_of(game, other).place) == (1, 2)


def test_a_your_move_email_written_before_the_player_left_is_not_sent(
    start_game, committed, lost_tasks
):
    lost_tasks("infra.send_email")
    game = start_game(3)
    draft_the_top_tile(game, committed)
    quitter = seat_user(game, current_state(game).current)
    [email] = OutboxEmail.objects.filter(user=quitter, kind="your_turn")

    committed(actions.resign, game_id=game.pk, user=quitter)

    assert outbox.send(email.pk) == "dropped"


# --- no person left -----------------------------------------------------------------------------


def test_when_the_only_person_among_computer_players_resigns_the_game_ends_at_once(
    players, committed
):
    ada = players[0]
    game = committed(
        actions.create_game,
        creator=ada,
        player_count=3,
        time_per_move=timedelta(days=1),
        bots=("easy", "easy"),
    )
    play_on(game, committed, until=lambda: current_state(game).drafts >= 7)

    played = committed(actions.resign, game_id=game.pk, user=ada)

    assert [event.kind for event in played.events] == ["resign", "conclude"]
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    conclude = game.events.get(kind="conclude")
    assert (conclude.cause, conclude.actor) == (Cause.ALL_LEFT, None)
    seats = list(game.seats.order_by("number"))
    mine = next(seat for seat in seats if seat.user_id == ada.pk)
    bots = sorted(
        (seat for seat in seats if seat is not mine), key=lambda s: (-s.score, -s.chip_tiles)
    )
    assert mine.place == 3
    assert bots[0].place == 1 and bots[1].place in (1, 2)
    assert RatingChange.objects.filter(game=game).count() == 3
    assert_replays(game)


def test_when_every_person_has_left_a_game_with_computer_players_it_ends(players, committed, clock):
    ada, brian = players[0], players[1]
    game = committed(
        actions.create_game,
        creator=ada,
        player_count=4,
        time_per_move=HOUR,
        bots=("easy", "easy"),
    )
    committed(actions.join_game, game_id=game.pk, user=brian)
    committed(actions.resign, game_id=game.pk, user=ada)
    game.refresh_from_db()
    assert game.is_playing  # brian plays on with the bots and ada's stand-in
    brian_seat = seat_of(game, brian).number
    # brian lets his time run out three times: his seat is handed over, and no person is left.
    for _ in range(3):
        run_to_turn_of_person(game, brian, committed)
        time_out(game, clock, committed)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert [e.kind for e in game.events.filter(kind__in=["resign", "conclude"])] == [
        "resign",
        "resign",
        "conclude",
    ]
    seats = {seat.user_id: seat for seat in game.seats.all()}
    assert seats[brian.pk].left == Left.ABANDONED and seats[brian.pk].number == brian_seat
    assert (seats[brian.pk].place, seats[ada.pk].place) == (3, 4)  # brian stayed longer
    assert_replays(game)


def run_to_turn_of_person(game, user, committed):
    """The people play on (the server's players move by themselves at each commit) until it is
    `user`'s turn."""
    number = seat_of(game, user).number
    for _ in range(200):
        game.refresh_from_db()
        if current_state(game).current == number or not game.is_playing:
            return
        other, action = person_move(game)
        committed(actions.play, game_id=game.pk, user=other, action=action, seen_version=None)
    raise AssertionError("their turn never came")


# --- abandonment ---------------------------------------------------------------------------------


def test_three_timeouts_in_a_row_hand_the_seat_to_the_server_and_tell_the_player(
    clock, start_game, committed
):
    game = start_game(3, time_per_move=HOUR)
    absent = seat_user(game, 1)
    mail.outbox.clear()

    for timeout in range(1, 4):
        run_to_turn_of(game, 1, committed)
        time_out(game, clock, committed)
        seat = seat_of(game, absent)
        assert (seat.timeouts, seat.timeouts_in_row) == (timeout, timeout)
        assert seat.left == ("" if timeout < 3 else Left.ABANDONED)

    handed = game.events.get(kind="resign")
    assert (handed.seat, handed.actor, handed.cause) == (1, None, Cause.ABANDONED)
    assert [subject for subject in subjects_to(absent) if "Your move" not in subject] == [
        f"[Microchip Online] Your time ran out in {game.title}",
        f"[Microchip Online] Your time ran out in {game.title}",
        f"[Microchip Online] The server has taken over your seat in {game.title}",
    ]
    second = [m for m in mail.outbox if m.to == [absent.email] and "ran out" in m.subject][1].body
    assert "2 in a row" in second and "One more and the server takes over your seat" in second
    told = [m for m in mail.outbox if m.to == [absent.email]][-1].body
    assert "Your time ran out 3 times in a row" in told
    assert "ranked after every player who stays" in told
    # From now on the stand-in plays the seat, at once: its turn never waits.
    stood_in = game.events.filter(seat=1, cause=Cause.STAND_IN, kind="confirm_draft")
    for _ in range(3):
        assert current_state(game).current != 1
        draft_the_top_tile(game, committed)
    assert stood_in.exists()
    assert seat_of(game, absent).timeouts == 3
    # Their page says so, as what the server did for them.
    client = Client()
    client.force_login(absent)
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "time ran out too often: the server plays your seat from now on" in page
    assert "You left this game (abandoned)" in page
    assert 'id="resign"' not in page
    assert_replays(game)


def test_timeouts_in_all_hand_the_seat_over_though_the_player_moved_between(
    clock, start_game, committed
):
    game = start_game(3, time_per_move=HOUR, abandon_after_row=3, abandon_after_total=4)
    absent = seat_user(game, 1)
    for _ in range(2):
        run_to_turn_of(game, 1, committed)
        time_out(game, clock, committed)
    run_to_turn_of(game, 1, committed)
    draft_the_top_tile(game, committed)  # they move by themselves: the row is over
    seat = seat_of(game, absent)
    assert (seat.timeouts, seat.timeouts_in_row, seat.left) == (2, 0, "")
    for _ in range(2):
        run_to_turn_of(game, 1, committed)
        time_out(game, clock, committed)
    seat = seat_of(game, absent)
    assert (seat.timeouts, seat.timeouts_in_row, seat.left) == (4, 2, Left.ABANDONED)
    told = [m for m in mail.outbox if m.to == [absent.email]][-1].body
    assert "Your time ran out 4 times in all" in told


def test_the_table_settings_of_abandonment_are_checked(players):
    create = actions.create_game
    options = {"creator": players[0], "player_count": 3, "time_per_move": HOUR}
    for row, total in ((1, 5), (11, 20), (3, 31), (4, 3)):
        with pytest.raises(ActionRefused) as caught:
            create(**options, abandon_after_row=row, abandon_after_total=total)
        assert caught.value.code == "bad_abandonment"
    game = create(**options)
    assert (game.abandon_after_row, game.abandon_after_total) == (3, 5)
    assert game.events.get(kind="created").data["abandon_after"] == [3, 5]


def test_in_a_two_player_game_abandonment_ends_it(clock, start_game, committed):
    game = start_game(2, time_per_move=HOUR, abandon_after_row=2, abandon_after_total=2)
    absent, other = seat_user(game, 0), seat_user(game, 1)
    for _ in range(2):
        run_to_turn_of(game, 0, committed)
        time_out(game, clock, committed)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert (seat_of(game, absent).place, seat_of(game, other).place) == (2, 1)
    assert seat_of(game, absent).left == Left.ABANDONED


# --- the vote to expel ---------------------------------------------------------------------------


def two_timeouts_in_a_row(game, number, clock, committed):
    for _ in range(2):
        run_to_turn_of(game, number, committed)
        time_out(game, clock, committed)


def vote(game, user, number):
    return actions.vote_to_expel(game_id=game.pk, user=user, seat_number=number)


def test_a_strict_majority_of_the_others_hands_the_seat_to_the_server(clock, start_game, committed):
    game = start_game(4, time_per_move=HOUR)
    target = seat_user(game, 1)
    first, second, third = seat_user(game, 0), seat_user(game, 2), seat_user(game, 3)
    run_to_turn_of(game, 1, committed)
    time_out(game, clock, committed)
    assert refusal(vote, game=game, user=first, number=1) == "no_vote"  # one timeout: not yet
    run_to_turn_of(game, 1, committed)
    time_out(game, clock, committed)
    mail.outbox.clear()

    committed(vote, game, first, 1)

    assert seat_of(game, target).left == ""  # 1 of the 2 votes needed (3 others)
    cast = game.events.get(kind="expel_vote")
    assert (cast.seat, cast.actor, cast.data) == (0, first, {"seat": 1, "votes": 1, "needed": 2})
    assert refusal(vote, game=game, user=first, number=1) == "already_voted"
    assert refusal(vote, game=game, user=target, number=1) == "own_seat"
    assert refusal(vote, game=game, user=first, number=2) == "no_vote"
    assert refusal(vote, game=game, user=first, number=7) == "bad_request"
    assert refusal(vote, game=game, user=first, number="1") == "bad_request"
    # The others see the count and a button; the voter sees their vote.
    pages = {}
    for user in (first, second, target):
        client = Client()
        client.force_login(user)
        pages[user] = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "1 of the 2 votes needed" in pages[second]
    assert f"Vote to hand {target.username}'s seat to the server</button>" in pages[second]
    assert "You voted to hand it over" in pages[first]
    assert 'id="expel-vote-1"' not in pages[target]

    committed(vote, game, third, 1)

    seat = seat_of(game, target)
    assert seat.left == Left.EXPELLED
    handed = game.events.get(kind="resign")
    assert (handed.seat, handed.actor, handed.cause) == (1, None, Cause.EXPELLED)
    assert not ExpelVote.objects.filter(game=game).exists()
    assert subjects_to(target) == [
        f"[Microchip Online] The server has taken over your seat in {game.title}"
    ]
    told = next(m for m in mail.outbox if m.to == [target.email]).body
    assert "the other players voted to hand your seat to the server" in told
    log = move_log.read_log(game, list(game.seats.all()))
    entries = [entry.text(None) for entry in log.entries]
    said = f"{third.username} voted to hand {target.username}'s seat to the server"
    assert f"{said} (2 of the 2 votes needed)" in entries
    assert f"the others voted: the server plays {target.username}'s seat from now on" in entries
    assert_replays(game)


def test_the_vote_ends_when_the_player_moves_again(clock, start_game, committed):
    game = start_game(4, time_per_move=HOUR)
    target, first, second = seat_user(game, 1), seat_user(game, 0), seat_user(game, 2)
    two_timeouts_in_a_row(game, 1, clock, committed)
    committed(vote, game, first, 1)
    assert ExpelVote.objects.filter(game=game).count() == 1

    run_to_turn_of(game, 1, committed)
    state = current_state(game)
    committed(
        actions.play,
        game_id=game.pk,
        user=target,
        action=rules.Draft(state.draw_tiles()[0]),
        seen_version=None,
    )

    seat = seat_of(game, target)
    assert (seat.timeouts, seat.timeouts_in_row, seat.left) == (2, 0, "")
    assert not ExpelVote.objects.filter(game=game).exists()
    assert refusal(vote, game=game, user=second, number=1) == "no_vote"


def test_computer_players_do_not_vote_and_one_other_person_is_a_majority(clock, players, committed):
    ada, brian = players[0], players[1]
    game = committed(
        actions.create_game, creator=ada, player_count=3, time_per_move=HOUR, bots=("easy",)
    )
    committed(actions.join_game, game_id=game.pk, user=brian)
    brian_seat = seat_of(game, brian).number
    for _ in range(2):
        run_to_turn_of_person(game, brian, committed)
        time_out(game, clock, committed)

    committed(vote, game, ada, brian_seat)

    assert seat_of(game, brian).left == Left.EXPELLED
    game.refresh_from_db()
    assert game.is_playing  # ada plays on with the computer player and brian's stand-in
    assert refusal(vote, game=game, user=brian, number=0) == "already_left"


# --- the pages -----------------------------------------------------------------------------------


def test_the_resign_button_asks_first_and_the_pages_show_who_resigned(start_game, committed):
    game = start_game(3)
    draft_the_top_tile(game, committed)
    quitter, other = seat_user(game, 2), seat_user(game, 0)
    clients = {}
    for user in (quitter, other):
        clients[user] = Client()
        clients[user].force_login(user)
    url = reverse("games:game", args=[game.pk])
    page = clients[quitter].get(url).content.decode()
    assert 'id="resign"' in page
    assert 'hx-confirm="Resign? The server&#x27;s easy player takes over your seat' in page
    assert 'id="resign"' not in Client().get(url).content.decode()  # a visitor
    assert clients[quitter].get(reverse("games:resign", args=[game.pk])).status_code == 405

    answer = clients[quitter].post(reverse("games:resign", args=[game.pk]), **HTMX)

    assert answer.status_code == 200
    text = answer.content.decode()
    assert "You left this game (resigned)" in text and 'id="resign"' not in text
    assert "resigned · played by the server" in text
    game.refresh_from_db()
    assert answer["X-Game-Version"] == str(game.version)
    others = clients[other].get(url).content.decode()
    assert f"{quitter.username} resigned: the server plays their seat from now on" in others
    assert "resigned · played by the server" in others
    # Again: refused beside the game, with the reason.
    again = clients[quitter].post(reverse("games:resign", args=[game.pk]), **HTMX)
    assert again.status_code == 422 and "You have left this game" in again.content.decode()
    # The dashboard and the profile count it.
    dashboard = clients[quitter].get(reverse("dashboard")).content.decode()
    assert "You left (resigned): the server plays your seat" in dashboard
    profile = clients[other].get(reverse("players:profile", args=[quitter.username]))
    assert "<dt>Resignations</dt><dd>1</dd>" in profile.content.decode()


def test_a_two_player_resignation_asks_naming_the_winner_and_works_without_htmx(
    start_game, committed
):
    game = start_game(2)
    quitter, winner = seat_user(game, 0), seat_user(game, 1)
    client = Client()
    client.force_login(quitter)
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert f"Resign? The game ends now and {winner.username} wins." in page

    answer = client.post(reverse("games:resign", args=[game.pk]))

    assert answer.status_code == 302 and answer["Location"] == reverse("games:game", args=[game.pk])
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "resigned · played by the server" in page  # the results
    assert f"<strong>{winner.username}</strong> wins" in page
    archive = client.get(reverse("archive", args=[quitter.username])).content.decode()
    assert "2nd of 2" in archive and "resigned" in archive
    replay = client.get(reverse("games:replay", args=[game.pk])).content.decode()
    assert f"{quitter.username} resigned: the server plays the seat from here." in replay


def test_the_expel_view_votes_and_refuses_bad_input(clock, start_game, committed):
    game = start_game(3, time_per_move=HOUR)
    two_timeouts_in_a_row(game, 1, clock, committed)
    voter = seat_user(game, 0)
    client = Client()
    client.force_login(voter)
    url = reverse("games:expel", args=[game.pk])
    assert client.post(url, {"seat": "x"}, **HTMX).status_code == 400
    assert client.post(url, {"seat": "9"}, **HTMX).status_code == 400

    answer = client.post(url, {"seat": "1"}, **HTMX)

    assert answer.status_code == 200 and "You voted to hand it over" in answer.content.decode()
    assert ExpelVote.objects.filter(game=game, voter=voter).count() == 1
