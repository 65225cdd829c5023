"""Fill a database with finished games, for load tests of the history pages.

    MICROCHIP_VAR_DIR=/tmp/bigdb python3 manage.py migrate
    MICROCHIP_VAR_DIR=/tmp/bigdb python3 manage.py generate_games --games 10000

Every game is a real one: played to the end by the rules engine's greedy players
(`rules.play_game`), stored as the platform stores it (the game and seat rows at the end, and the
whole event log, so each can be replayed), between players drawn from a pool of generated
accounts, ending one after another over the past year. To be quick, `--distinct` deals are
played and each is reused by many games (each game keeps its own copy of the log); rows go in
with bulk_create. Then every rating is recomputed from scratch in the order the games ended.
"""

import random
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from games import rules
from games.history import ratings
from games.models import Event, Game, Seat
from games.tools.simulate import play_game

USERNAME_PREFIX = "sim"


@dataclass(frozen=True)
class Played:
    """One simulated game: its deal, its event log and its final state."""

    players: int
    seed: int
    events: list[tuple[int, dict]]
    final: rules.GameState


def simulate(count: int, rng: random.Random) -> list[Played]:
    played = []
    for _ in range(count):
        players = rng.choice((2, 3, 4, 5))
        seed = rng.randrange(2**62)
        final, events = play_game(players, seed)
        played.append(Played(players, seed, [(seat, a.to_json()) for seat, a in events], final))
    return played


def make_users(count: int) -> list[int]:
    """Return the ids of `count` generated accounts (`sim0001`...), creating the missing ones."""
    names = [f"{USERNAME_PREFIX}{n:04d}" for n in range(1, count + 1)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    User.objects.bulk_create(
        [
            # "!" is an unusable password: these accounts cannot log in.
            User(username=name, email=f"{name}@example.invalid", password="!")
            for name in names
            if name not in existing
        ],
        batch_size=1000,
    )
    return list(User.objects.filter(username__in=names).order_by("pk").values_list("pk", flat=True))


def generate(
    *,
    games: int,
    users: int = 200,
    seed: int = 1,
    distinct: int = 500,
    unrated: float = 0.1,
    batch: int = 250,
    out=None,
) -> list[int]:
    """Create `games` finished games between `users` generated players; return their ids."""
    rng = random.Random(seed)
    user_ids = make_users(users)
    deals = simulate(min(distinct, games), rng)
    now = timezone.now()
    first_end = now - timedelta(days=365)
    gap = timedelta(days=365) / max(games, 1)
    created = []
    with transaction.atomic():
        for start in range(0, games, batch):
            numbers = range(start, min(start + batch, games))
            planned = []
            for number in numbers:
                played = deals[number % len(deals)]
                seated = rng.sample(user_ids, played.players)
                ended_at = first_end + gap * number
                started_at = ended_at - timedelta(hours=rng.randint(2, 24 * 14))
                planned.append((played, seated, started_at, ended_at))
            new_games = Game.objects.bulk_create(
                [_game(played, seated, rng, started, ended, unrated)
                 for played, seated, started, ended in planned]
            )  # fmt: skip
            seats, events = [], []
            for game, (played, seated, _, _) in zip(new_games, planned, strict=True):
                seats += _seats(game, played, seated, rng)
                events += _events(game, played, seated)
            Seat.objects.bulk_create(seats, batch_size=1000)
            Event.objects.bulk_create(events, batch_size=2000)
            created += [game.pk for game in new_games]
            if out is not None:
                out.write(f"{len(created)} games")
        # created_at is set to "now" by bulk_create (auto_now_add): put it at the start instead.
        Game.objects.filter(pk__in=created).update(created_at=F("started_at"))
    rated = ratings.rerate_all()
    if out is not None:
        out.write(f"rated {rated} games")
    return created


def _game(played: Played, seated, rng, started_at, ended_at, unrated: float) -> Game:
    final = played.final.to_json()
    return Game(
        created_by_id=seated[0],
        player_count=played.players,
        time_per_move=timedelta(days=rng.choice((1, 2, 3))),
        rated=rng.random() >= unrated,
        access=Game.Access.OPEN,
        invite_token=secrets.token_urlsafe(18),
        status=Game.Status.ENDED,
        version=len(played.events) + played.players + 1,
        seed=played.seed,
        pool={"columns": final["columns"], "removed": final["removed"]},
        phase=final["phase"],
        current_seat=None,
        pending_draft=None,
        drafts=final["drafts"],
        pool_version=0,
        started_at=started_at,
        ended_at=ended_at,
        turn_started_at=ended_at,
        deadline=None,
    )


def _seats(game: Game, played: Played, seated, rng) -> list[Seat]:
    final = played.final.to_json()
    results = {result.seat: result for result in played.final.results()}
    return [
        Seat(
            game=game,
            user_id=user_id,
            number=number,
            tray=final["trays"][number],
            board=final["boards"][number],
            colours=final["colours"][number],
            finished=True,
            board_version=game.version,
            timeouts=rng.choice((0, 0, 0, 0, 0, 0, 1, 2)),
            score=results[number].score,
            place=results[number].place,
            chip_tiles=results[number].chip_tiles,
            chip_value=results[number].chip_value,
            penalty_tiles=results[number].penalty_tiles,
        )
        for number, user_id in enumerate(seated)
    ]


def _events(game: Game, played: Played, seated) -> list[Event]:
    """The log the platform writes: created, joined, started, then every rules action."""
    events = [Event(game=game, number=1, kind="created", actor_id=seated[0],
                    data={"player_count": played.players})]  # fmt: skip
    for user_id in seated[1:]:
        events.append(Event(game=game, number=len(events) + 1, kind="joined", actor_id=user_id))
    start = {"seed": played.seed, "players": played.players, "first_seat": 0, "seats": seated}
    events.append(Event(game=game, number=len(events) + 1, kind="started", data=start))
    for seat, action in played.events:
        forced = action["type"] == "take_last"
        events.append(
            Event(
                game=game,
                number=len(events) + 1,
                kind=action["type"],
                seat=seat,
                actor_id=None if forced else seated[seat],
                cause=Event.Cause.FORCED_TAKE if forced else Event.Cause.PLAYER,
                action=action,
            )
        )
    return events


class Command(BaseCommand):
    help = "Create finished games (real, replayable, rated) for load tests of the history pages."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=10_000, help="games to create")
        parser.add_argument("--users", type=int, default=200, help="generated players to share")
        parser.add_argument("--seed", type=int, default=1, help="seed of every random choice")
        parser.add_argument(
            "--distinct", type=int, default=500, help="deals actually played, reused in turn"
        )
        parser.add_argument(
            "--unrated", type=float, default=0.1, help="share of unrated games (0 to 1)"
        )

    def handle(self, *args, games, users, seed, distinct, unrated, **options):
        if games < 1 or users < 5 or distinct < 1 or not 0 <= unrated <= 1:
            raise CommandError("Need --games >= 1, --users >= 5, --distinct >= 1, --unrated 0-1.")
        started = timezone.now()
        created = generate(
            games=games, users=users, seed=seed, distinct=distinct, unrated=unrated,
            out=self.stdout,
        )  # fmt: skip
        seconds = (timezone.now() - started).total_seconds()
        self.stdout.write(
            self.style.SUCCESS(f"Created {len(created)} finished games in {seconds:.1f} s.")
        )
