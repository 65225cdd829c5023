"""Two beats by mistake: every periodic run happens twice at the same moment, on the same due
games, and each piece of work is still done once.

Beat must run once per deployment (README, "Production layout"), but a second one started by
mistake must not hurt the players. Each sweep (and each hourly digest run) below runs on its own
thread at the same instant; the tasks it queues run at once in that thread (eager), so the copies
of each task race one another as they would on two workers. On PostgreSQL when DATABASE_URL
points at it (CI), on SQLite otherwise.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from games import tasks
from games.history import analysis
from games.models import Event, Game
from tests.games.test_races import race
from tests.tasks.conftest import clock  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

SWEEPS = 3  # beats running at once


def emails(subject_part: str, game: Game) -> list:
    return [
        message
        for message in mail.outbox
        if subject_part in message.subject and f"/games/{game.pk}/" in message.body
    ]


def no_errors(outcomes):
    errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert not errors, errors


def test_concurrent_sweeps_time_out_each_turn_once_and_remind_once(start_game):
    now = timezone.now()
    overdue = [start_game(2) for _ in range(4)]
    Game.objects.filter(pk__in=[g.pk for g in overdue]).update(deadline=now - timedelta(minutes=1))
    reminded = [start_game(2) for _ in range(4)]
    Game.objects.filter(pk__in=[g.pk for g in reminded]).update(
        remind_at=now - timedelta(minutes=1)
    )
    versions = {game.pk: game.version for game in overdue + reminded}
    mail.outbox.clear()

    outcomes = race(*[tasks.sweep] * SWEEPS)

    no_errors(outcomes)
    assert sum(outcome["overdue"] for outcome in outcomes) >= len(overdue)
    for game in overdue:
        game.refresh_from_db()
        timed_out = game.events.filter(cause=Event.Cause.TIMEOUT)
        # One turn timed out: the server's draft and its confirmation, nothing more.
        assert list(timed_out.values_list("kind", flat=True)) == ["draft", "confirm_draft"]
        assert game.version == versions[game.pk] + 2
        assert sum(game.seats.values_list("timeouts", flat=True)) == 1
        assert len(emails("time ran out", game)) == 1
        assert game.deadline > timezone.now()  # the next turn's clock runs
    for game in reminded:
        game.refresh_from_db()
        assert game.version == versions[game.pk]  # a reminder is not a move
        assert game.remind_at is None
        [reminder] = emails("running out", game)
        current = game.seats.get(number=game.current_seat).user
        assert reminder.to == [current.email]


def test_concurrent_digest_runs_send_each_reader_one_digest(start_game, clock):  # noqa: F811
    clock.to(datetime(2030, 1, 15, 9, 5, tzinfo=UTC))  # 09:05 UTC: morning for UTC readers
    game = start_game(2)
    reader = game.seats.get(number=game.current_seat).user
    reader.email_daily_digest = True
    reader.time_zone = "UTC"
    reader.save()
    mail.outbox.clear()

    outcomes = race(*[tasks.send_daily_digests] * SWEEPS)

    no_errors(outcomes)
    assert outcomes == [1] * SWEEPS  # every run found the reader...
    digests = [m for m in mail.outbox if "waiting for your move" in m.subject]
    assert [m.to for m in digests] == [[reader.email]]  # ...and one digest went


def test_concurrent_sweeps_analyse_a_finished_game_once(bot, monkeypatch, lost_tasks):
    lost_tasks("games.analyse_game")  # its task was lost
    game = bot_game(bot)
    Game.objects.filter(pk=game.pk).update(ended_at=timezone.now() - timedelta(minutes=10))
    seats = game.seats.count()
    calls = []
    solve = analysis.best_for_seat

    def counted(seat, time_limit):
        calls.append(seat.number)
        return solve(seat, time_limit)

    monkeypatch.setattr(analysis, "best_for_seat", counted)

    outcomes = race(*[tasks.sweep] * SWEEPS)

    no_errors(outcomes)
    assert sorted(calls) == list(range(seats))  # the solver ran once for each seat
    assert not game.seats.filter(best_score__isnull=True).exists()
    assert game.events.filter(kind="analysed").count() == 1


def bot_game(bot) -> Game:
    from games.play import actions

    game = actions.create_game(
        creator=bot("easy"), player_count=2, time_per_move=timedelta(days=1), bots=("easy",)
    )
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    return game
