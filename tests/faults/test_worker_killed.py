"""Celery workers are killed with SIGKILL in the middle of tasks while a game of bots and a game
whose one person never plays run on them, and a new worker is started each time. Every game
still ends correctly: its log replays to its final state, nothing is lost or done twice, it is
rated once and analysed once.

What each kill shows (settings.py explains the Celery settings they rely on):

- a prefork child killed in the middle of a bot's move: the worker gives the message back at once
  (reject_on_worker_lost) and another child runs the task again;
- the whole worker killed in the middle of a bot's move (before its body ran): the message stays
  unacknowledged in Redis, and no worker gets it for an hour (the visibility timeout), but the
  game goes on at once: the sweep queues the bot's move again after BOT_SWEEP_GRACE;
- kills at random moments while the worker runs a task: whatever it was doing is done again by
  the sweep, or was no longer needed;
- the whole worker killed after a bot's move committed and before the message was acknowledged
  (acks_late): an hour later (Redis's clock is moved on, `RedisServer.time_passes`) the next
  worker gets that message again, and the first lost one, and runs them; they do nothing that is
  not still due;
- the post-game analysis killed half-way: five minutes later the sweep queues it again, and it is
  stored once.
"""

import os
import random
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.bots import new_bot
from accounts.models import User
from games import rules
from games.models import Game, Seat
from games.play import actions
from games.play import clock as turn_clock

from .checks import check_game, check_ratings
from .conftest import Beat, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]

DAY = timedelta(days=1)
# settings.CELERY_BROKER_TRANSPORT_OPTIONS: when an unacknowledged message is delivered again.
VISIBILITY_TIMEOUT = 3600
# How long after a game ends the sweep queues its analysis again (clock.ANALYSIS_GRACE).
ANALYSIS_GRACE = 5 * 60
RANDOM_KILLS = 2


def a_bot(level: str) -> User:
    return User.objects.filter(bot_level=level).order_by("pk").first() or new_bot(level)


def version(game_id: int) -> int:
    return Game.objects.values_list("version", flat=True).get(pk=game_id)


def ran(journal, task_id: str, worker: str | None = None) -> bool:
    return any(
        entry["id"] == task_id and entry["event"] == "ran" and worker in (None, entry["worker"])
        for entry in journal
    )


class Faults:
    """Start and kill the workers, and keep the story of what each kill caught."""

    def __init__(self, stack, redis):
        self.stack = stack
        self.redis = redis
        self.worker = None
        self.workers: list[str] = []  # the names of the workers started, in order
        self.kills: list[dict] = []
        self.started = time.monotonic()
        self.timeline: list[str] = []

    def note(self, what: str) -> None:
        self.timeline.append(f"{time.monotonic() - self.started:5.1f} s  {what}")

    def start_worker(self):
        self.worker = self.stack.worker()
        self.workers.append(self.worker.name)
        self.note(f"{self.worker.name} ready")

    def running(self) -> list[dict]:
        """The tasks the current worker has started and not finished, or holds after their
        body ran (not acknowledged)."""
        started, finished = {}, set()
        for entry in self.stack.journal():
            if entry["worker"] == self.worker.name:
                if entry["event"] in ("started", "held-after"):
                    started[entry["id"]] = entry
                elif entry["event"] == "ran":
                    finished.add(entry["id"])
        return [
            entry
            for task_id, entry in started.items()
            if task_id not in finished or entry["event"] == "held-after"
        ]

    def kill(self, why: str, time_passes: float = 0) -> dict:
        """SIGKILL the worker and its children now; let `time_passes` seconds pass on Redis's
        clock (five minutes at least if an analysis was caught, as the sweep waits that long
        to queue it again); start a new worker. Return what the kill caught."""
        running = {entry["id"] for entry in self.running()}
        self.worker.kill()
        caught = [entry for entry in self.running() if entry["id"] in running]
        if any(entry["task"] == "games.analyse_game" for entry in caught):
            time_passes = max(time_passes, ANALYSIS_GRACE)
        kill = {"why": why, "worker": self.worker.name, "caught": caught}
        self.kills.append(kill)
        self.note(
            f"{self.worker.name} killed ({why}) running "
            f"{', '.join(entry['task'] for entry in caught) or 'nothing'}"
        )
        if time_passes:
            self.redis.time_passes(time_passes)
        self.start_worker()
        return kill

    def wait(self, condition, timeout: float, what: str, step: float = 0.05):
        """Wait for `condition`; meanwhile, kill the worker whenever it holds an analysis."""

        def check():
            held = self.stack.held("before", "games.analyse_game")
            if held and held["worker"] == self.worker.name:
                self.kill("an analysis half-way")
            return condition()

        return wait_until(check, timeout, what, step)

    def kill_at_random(self) -> dict:
        """Kill the worker at a random moment while it runs a task."""
        time.sleep(random.uniform(0.2, 1.0))  # a random moment, not a check
        self.wait(self.running, 20, f"{self.worker.name} running a task", step=0.01)
        return self.kill("at random")


def test_games_end_correctly_though_workers_are_killed_in_the_middle_of_tasks(
    stack, fault_redis, make_player, monkeypatch
):
    # The sweep of this process stands for the one five minutes later.
    monkeypatch.setattr(turn_clock, "ANALYSIS_GRACE", timedelta(seconds=1))
    idle = make_player("idle")
    easy = a_bot("easy")
    games = [
        actions.create_game(
            creator=easy, player_count=3, time_per_move=DAY, bots=("strong", "easy")
        ),
        # A person who never plays: each of their turns times out through the sweep until the
        # server hands their seat to its stand-in (3 in a row); nobody being left playing, the
        # game then ends at once.
        actions.create_game(creator=idle, player_count=3, time_per_move=DAY, bots=("easy", "easy")),
    ]
    game_ids = [game.pk for game in games]
    idle_game = games[1].pk
    assert Game.objects.filter(pk__in=game_ids, status=Game.Status.PLAYING).count() == 2
    idle_seat = Seat.objects.get(game_id=idle_game, user=idle).number

    def clock():
        """The test's clock, run before each sweep: the idle player's turn runs out at once."""
        game = Game.objects.get(pk=idle_game)
        if not game.is_playing or game.deadline <= timezone.now():
            return
        if game.phase == rules.DRAFTING and game.current_seat == idle_seat:
            Game.objects.filter(pk=game.pk, version=game.version).update(deadline=timezone.now())

    faults = Faults(stack, fault_redis)
    stack.hold("before", "games.analyse_game")  # the first analysis, whenever it runs
    with Beat(before=clock) as beat:
        # 1. A prefork child dies in the middle of a bot's move: the task runs again.
        stack.hold("before", "games.bot_move")
        faults.start_worker()
        orphan = faults.wait(lambda: stack.held("before", "games.bot_move"), 30, "a held bot move")
        os.kill(orphan["pid"], signal.SIGKILL)
        faults.note(f"a child of {faults.worker.name} killed running games.bot_move")
        # Not faults.wait: if the analysis is held meanwhile (the sweep can finish the game of
        # bots while the move waits), killing the worker for it would catch the rerun too.
        wait_until(
            lambda: ran(stack.journal(), orphan["id"], faults.worker.name),
            30,
            "the killed child's task running again",
        )

        # 2. The whole worker dies before a bot's move ran: the sweep makes up for it. The move
        # held is one due when it started, not one of the stale copies the sweep queued after
        # the first kill; if another bot of its game moved before the kill, hold another.
        seen = {orphan["id"]}
        for _ in range(8):
            stack.hold("before", "games.bot_move", only_due=True)
            # Held by the worker running now: the journal may still show a task taken by a
            # worker killed a moment ago.
            lost = faults.wait(
                lambda: (
                    (held := stack.held("before", "games.bot_move") or {}).get("id") not in seen
                    and held.get("worker") == faults.worker.name
                    and held
                ),
                30,
                "another held bot move",
            )
            seen.add(lost["id"])
            lost_game, _, lost_version = lost["args"]
            # Due now, read before the kill: once the worker is gone a copy the sweep queued
            # may run on the next one and move the game on at once.
            due = version(lost_game) == lost_version
            killed = faults.kill("a bot's move before its body")
            assert lost["id"] in {entry["id"] for entry in killed["caught"]}
            if due:
                break
        assert due, "every bot move held was stale"
        faults.wait(
            lambda: version(lost_game) > lost_version,
            30,
            f"game {lost_game} going on after its bot's task was lost",
        )
        assert not ran(stack.journal(), lost["id"])
        assert fault_redis.unacknowledged() >= 1

        # 3. Kills at random moments of a busy worker.
        for _ in range(RANDOM_KILLS):
            faults.kill_at_random()

        # 4. The whole worker dies after a bot's move committed, before the acknowledgement: an
        # hour later the next worker gets that message, and the one lost in step 2, again.
        # Held by the worker running now: if the worker that held it was killed meanwhile for
        # an analysis (faults.wait), that kill caught it, so hold another.
        stack.hold("after", "games.bot_move")
        caught_elsewhere = set()

        def held_after_by_this_worker():
            held = stack.held("after", "games.bot_move")
            if held is None or held["id"] in caught_elsewhere:
                return None
            if held["worker"] != faults.worker.name:
                caught_elsewhere.add(held["id"])
                stack.hold("after", "games.bot_move")
                return None
            return held

        done = faults.wait(held_after_by_this_worker, 30, "a bot's move held after its body")
        killed = faults.kill("a bot's move after its body", time_passes=VISIBILITY_TIMEOUT + 60)
        assert done["id"] in {entry["id"] for entry in killed["caught"]}
        assert ran(stack.journal(), done["id"], killed["worker"])  # its body had run

        def ran_later(task_id):  # in a worker started after this kill
            later = faults.workers[faults.workers.index(killed["worker"]) + 1 :]
            return any(ran(stack.journal(), task_id, name) for name in later)

        for task in (done, lost):
            faults.wait(
                lambda task=task: ran_later(task["id"]),
                30,
                f"{task['task']} {task['id']} delivered again and run",
            )

        # 5. Every game ends and is analysed (the first analysis was killed half-way).
        faults.wait(
            lambda: (
                Game.objects.filter(pk__in=game_ids, status=Game.Status.ENDED).count() == 2
                and not Seat.objects.filter(game_id__in=game_ids, best_score=None).exists()
            ),
            60,
            "every game ending and being analysed",
        )
    # The first analysis was killed half-way; every game was analysed all the same (once: see
    # check_game), by the sweep's task or by the killed one delivered again an hour later.
    analysis = stack.held("before", "games.analyse_game")
    assert analysis is not None
    assert any(analysis["id"] in {entry["id"] for entry in kill["caught"]} for kill in faults.kills)

    for game_id in game_ids:
        check_game(game_id)
    check_ratings(Seat.objects.filter(game_id__in=game_ids).values_list("user_id", flat=True))
    # The idle player's turns timed out until their seat was handed over, once, and the game
    # ended there.
    idle_events = Game.objects.get(pk=idle_game).events
    idle_moves = idle_events.filter(seat=idle_seat)
    assert not idle_moves.filter(cause="player").exists()
    timeouts = idle_moves.filter(kind="confirm_draft", cause="timeout").count()
    assert timeouts == Game.objects.get(pk=idle_game).abandon_after_row
    assert idle_moves.filter(kind="resign", cause="abandoned").count() == 1
    assert idle_events.filter(kind="conclude", cause="all_left").count() == 1
    random_kills = [kill for kill in faults.kills if kill["why"] == "at random"]
    print("\n" + "\n".join(faults.timeline))
    print(
        f"{sum(bool(kill['caught']) for kill in random_kills)} of {len(random_kills)} random "
        f"kills caught a task running; sweeps: {beat.runs}, failed: {beat.failures}"
    )
