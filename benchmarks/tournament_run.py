"""A whole Swiss tournament of computer players on the platform, from registration to the final
standings (`python -m benchmarks tournament`; its short run is a test).

Every change is the platform's own: the tournament opened and entered through
games/tournaments/actions/, each round's games opened, seated and started in the round's one
transaction, every move played through games/play/actions/ by a greedy computer player
(games/rules/greedy.py: each arranges its tiles for the most points after each draft), each
game's end queueing `tournaments.game_ended` by name, which pairs the next round when the last
game of one ends. Tasks run in-process, at once (eager), as in the tests; the post-game solver is
skipped (its seconds a game are not a tournament's). A few players withdraw during round 2
(paired no more from round 3).

It reports each round's time to be made (the pairing, every game opened and started, the
pairings and notices written, one transaction), its repeat meetings beside their lower bound,
the time of the whole run, and checks every round (everyone still in seated once, the table
sizes) and that the final standings agree with a recount from the games' places.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from fractions import Fraction

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import effects
from games.models import Game
from games.play import actions as game_actions
from games.rules.greedy import next_action
from games.state_store import load_state
from games.tournaments import actions, reading
from games.tournaments.formats import table_sizes
from games.tournaments.models import Pairing, Round, Tournament

SKIPPED_TASKS = {"games.analyse_game"}


class CheckFailed(AssertionError):
    pass


@dataclass
class Report:
    players: int
    rounds: int
    table_size: int
    made: list[tuple[int, float, float]] = field(default_factory=list)  # round, wall, cpu
    repeats: list[tuple[int, int]] = field(default_factory=list)
    games: int = 0
    seats: int = 0
    moves: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    recount_agrees: bool = False
    withdrawn: int = 0

    def lines(self) -> list[str]:
        slowest = max(self.made, key=lambda made: made[1]) if self.made else (0, 0.0, 0.0)
        out = [
            f"{self.players} players, {self.rounds} rounds at tables of {self.table_size} "
            f"({self.withdrawn} withdrawing in round 2): {self.games} games, {self.seats} "
            f"seats, {self.moves} moves",
        ]
        for (number, wall, cpu), (repeats, bound) in zip(self.made, self.repeats, strict=True):
            out.append(
                f"  round {number}: made in {wall:.3f} s wall, {cpu:.3f} s CPU; "
                f"repeat meetings {repeats} (bound {bound})"
            )
        out.append(
            f"slowest round: {slowest[1]:.3f} s wall (round {slowest[0]}); whole run "
            f"{self.wall:.1f} s wall, {self.cpu:.1f} s CPU"
        )
        out.append(
            "standings agree with the recount from the games"
            if self.recount_agrees
            else "CHECK FAILED: the standings disagree with the recount"
        )
        return out


def run(players: int, rounds: int, table_size: int, *, withdrawing: int = 4, out=None) -> Report:
    """Play the whole tournament on the current database; raise CheckFailed if a check fails."""
    report = Report(players, rounds, table_size)
    started_wall, started_cpu = time.perf_counter(), time.process_time()
    real_apply, real_pair = effects.Task.apply_async, actions.rounds.pair_next_round

    def apply_async(task):
        if task.name not in SKIPPED_TASKS:
            real_apply(task)

    def timed_pair(tournament, caused, now):
        wall, cpu = time.perf_counter(), time.process_time()
        made = real_pair(tournament, caused, now)
        if made:
            report.made.append(
                (tournament.round, time.perf_counter() - wall, time.process_time() - cpu)
            )
            if out:
                out(f"  round {tournament.round} made")
        return made

    effects.Task.apply_async, actions.rounds.pair_next_round = apply_async, timed_pair
    try:
        tournament = _open(players, rounds, table_size)
        _play(tournament, report, withdrawing)
    finally:
        effects.Task.apply_async, actions.rounds.pair_next_round = real_apply, real_pair
    report.wall = time.perf_counter() - started_wall
    report.cpu = time.process_time() - started_cpu
    _check(tournament, report)
    return report


def _open(players: int, rounds: int, table_size: int) -> Tournament:
    stamp = time.monotonic_ns() % 10**9
    organiser = User.objects.create_user(f"organiser{stamp}", f"organiser{stamp}@example.com")
    entrants = User.objects.bulk_create(
        [
            User(username=f"cp{stamp}x{index}", email=f"cp{stamp}x{index}@example.com")
            for index in range(players)
        ]
    )
    tournament = actions.create_tournament(
        organiser=organiser,
        name=f"Benchmark {stamp}",
        table_size=table_size,
        rounds=rounds,
        starts_at=timezone.now() + timedelta(hours=1),
        min_players=2,
        max_players=max(players, 2),
        rated=False,
    )
    for user in entrants:
        actions.register(tournament_id=tournament.pk, user=user)
    return tournament


def _play(tournament: Tournament, report: Report, withdrawing: int) -> None:
    actions.start(tournament_id=tournament.pk, by=tournament.created_by)
    withdrawn = False
    while True:
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.RUNNING:
            return
        if tournament.round == min(2, report.rounds) and not withdrawn and report.rounds > 2:
            withdrawn = True
            leaving = list(
                tournament.entries.filter(withdrawn_at__isnull=True).order_by("-seed")[:withdrawing]
            )
            for entry in leaving:
                actions.withdraw(tournament_id=tournament.pk, user=entry.user)
            report.withdrawn = len(leaving)
        playing = Game.objects.filter(
            tournament_round__tournament=tournament, status=Game.Status.PLAYING
        ).order_by("pk")
        game = playing.first()
        if game is None:  # no game in play and still running: the sweep's work
            actions.advance(tournament_id=tournament.pk)
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.RUNNING and not playing.exists():
                raise CheckFailed("the tournament is stuck with no game in play")
            continue
        report.moves += _play_game(game)


def _play_game(game: Game) -> int:
    """Every seat by the greedy player, to the end; the forced takes as the worker makes them."""
    moves = 0
    users = {seat.number: seat.user for seat in game.seats.select_related("user")}
    while True:
        with transaction.atomic():
            game.refresh_from_db()
            if game.status != Game.Status.PLAYING:
                return moves
            state = load_state(game, list(game.seats.order_by("number")))
        if state.forced_action() is not None:
            game_actions.take_last_tile(game_id=game.pk)
            continue
        found = next_action(state)
        if found is None:
            return moves
        seat, action = found
        game_actions.play(game_id=game.pk, user=users[seat], action=action, seen_version=None)
        moves += 1


def _check(tournament: Tournament, report: Report) -> None:
    tournament.refresh_from_db()
    if tournament.status != Tournament.Status.FINISHED or tournament.round != report.rounds:
        raise CheckFailed(f"the tournament ended {tournament.status} after {tournament.round}")
    withdrawn_by_round = {}
    entries = list(tournament.entries.all())
    for made in Round.objects.filter(tournament=tournament).order_by("number"):
        report.repeats.append((made.repeats, made.repeat_bound or 0))
        seated = Counter(Pairing.objects.filter(round=made).values_list("user_id", flat=True))
        still = {
            entry.user_id
            for entry in entries
            if entry.withdrawn_at is None or entry.withdrawn_at > made.started_at
        }
        withdrawn_by_round[made.number] = len(entries) - len(still)
        if set(seated) != still or max(seated.values()) != 1:
            raise CheckFailed(f"round {made.number}: not everyone still in seated once")
        sizes = sorted(
            (g.player_count for g in Game.objects.filter(tournament_round=made)), reverse=True
        )
        expected = list(table_sizes(len(still), tournament.table_size))
        if tournament.table_size == 2:
            expected = [2] * (len(still) // 2)
        if sizes != expected:
            raise CheckFailed(f"round {made.number}: tables of {sizes}, not {expected}")
    games = list(Game.objects.filter(tournament_round__tournament=tournament))
    points = Counter()
    for game in games:
        seats = list(game.seats.order_by("number"))
        report.games += 1
        report.seats += len(seats)
        gained = tournament.points.points([seat.place for seat in seats])
        for seat, value in zip(seats, gained, strict=True):
            points[seat.user_id] += value
    for user_id in Pairing.objects.filter(
        round__tournament=tournament, game__isnull=True
    ).values_list("user_id", flat=True):
        points[user_id] += tournament.bye_value
    kept = {entry.user_id: entry.points_value for entry in tournament.entries.all()}
    shown = {row.entry.user_id: row.standing.points for row in reading.read(tournament).rows}
    report.recount_agrees = kept == shown == {user: points.get(user, Fraction(0)) for user in kept}
    if not report.recount_agrees:
        raise CheckFailed("the standings disagree with the recount from the games")
