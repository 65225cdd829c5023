"""Player ratings with OpenSkill's Plackett-Luce model (the `openskill` package).

Plackett-Luce rates games of any number of players from their finishing order; players who
share a place are a tie (equal ranks). Each player's skill is a belief (mu, sigma); pages show
the conservative figure `display_rating(mu, sigma)`: mu - 3 sigma, scaled so that a new player
starts at 1000 and a strong one with a settled rating reaches about 2000. A player with fewer
than PROVISIONAL_GAMES rated games is provisional, and stays off the leaderboard.

`rate_game` is called by games/play/applying.py inside the transaction that ends a game; it rates a
game once, however many times the ending is processed.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Game, Rating, RatingChange, Seat

MODEL = PlackettLuce()  # the package's defaults: mu 25, sigma 25/3, beta 25/6
DISPLAY_BASE = 1000
DISPLAY_SCALE = 40


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def display(self) -> int:
        return display_rating(self.mu, self.sigma)


INITIAL = Skill(MODEL.mu, MODEL.sigma)


def display_rating(mu: float, sigma: float) -> int:
    """Return the rating shown to players: the conservative estimate mu - 3 sigma, scaled."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma))


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Return each player's skill after one game; `places` are 1-based, equal places tie."""
    if len(skills) != len(places) or len(skills) < 2:
        raise ValueError("A rated game needs a place for each of at least two players.")
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
    rated = MODEL.rate(teams, ranks=list(places))
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def rate_game(*, game: Game, seats: Sequence[Seat]) -> list[RatingChange]:
    """Update the ratings of an ended rated game's players and record each change.

    Precondition: called inside the transaction that ends the game, with the game row locked
    (games/play/applying.py `_end`); `seats` carry their final places. A game already rated, an
    unrated game or one that has not ended changes nothing and returns no changes.
    """
    if not game.rated or game.status != Game.Status.ENDED:
        return []
    if any(seat.place is None for seat in seats) or len(seats) < 2:
        return []
    if RatingChange.objects.filter(game_id=game.pk).exists():
        return []  # the ending was processed before: a game is rated once
    user_ids = sorted(seat.user_id for seat in seats)
    # Create the missing rows without racing another game's ending, then lock them all in one
    # order (user id), so two games that end at once with a player in common queue, not deadlock.
    Rating.objects.bulk_create(
        [
            Rating(user_id=user_id, mu=INITIAL.mu, sigma=INITIAL.sigma, display=INITIAL.display)
            for user_id in user_ids
        ],
        ignore_conflicts=True,
    )
    ratings = {
        rating.user_id: rating
        for rating in Rating.objects.select_for_update().filter(user_id__in=user_ids)
        .order_by("user_id")
    }  # fmt: skip
    before = [Skill(ratings[seat.user_id].mu, ratings[seat.user_id].sigma) for seat in seats]
    after = rate(before, [seat.place for seat in seats])
    when = game.ended_at or timezone.now()
    changes = []
    for seat, old, new in zip(seats, before, after, strict=True):
        rating = ratings[seat.user_id]
        rating.mu, rating.sigma, rating.display = new.mu, new.sigma, new.display
        rating.games += 1
        rating.updated_at = when
        changes.append(
            rating_change(game.pk, seat.user_id, seat.place, old, new, rating.games, when)
        )
    # The unique (game, user) constraint is the last guard: a second rating of the same game
    # fails here and rolls the ending back rather than counting the game twice.
    RatingChange.objects.bulk_create(changes)
    Rating.objects.bulk_update(
        list(ratings.values()), ["mu", "sigma", "display", "games", "updated_at"]
    )
    return changes


def rating_change(game_id, user_id, place, old, new, games, when) -> RatingChange:
    """Return the (unsaved) record of one player's rating moving from `old` to `new`."""
    return RatingChange(
        game_id=game_id,
        user_id=user_id,
        place=place,
        mu_before=old.mu,
        sigma_before=old.sigma,
        display_before=old.display,
        mu=new.mu,
        sigma=new.sigma,
        display=new.display,
        games=games,
        created_at=when,
    )


@dataclass(frozen=True)
class Finished:
    """One ended rated game for `rate_in_order`: who played and where they placed."""

    game_id: int
    ended_at: object
    user_ids: Sequence[int]
    places: Sequence[int]


def rate_in_order(games: Iterable[Finished]) -> tuple[list[Rating], list[RatingChange]]:
    """Rate games one after another from scratch (unsaved rows): for generated data and checks.

    Gives the same figures as rating each game with `rate_game` as it ends, in the same order.
    """
    skills: dict[int, Skill] = {}
    counts: dict[int, int] = {}
    changes = []
    for finished in games:
        before = [skills.get(user_id, INITIAL) for user_id in finished.user_ids]
        after = rate(before, finished.places)
        for user_id, place, old, new in zip(
            finished.user_ids, finished.places, before, after, strict=True
        ):
            skills[user_id] = new
            counts[user_id] = counts.get(user_id, 0) + 1
            changes.append(
                rating_change(
                    finished.game_id, user_id, place, old, new, counts[user_id], finished.ended_at
                )
            )
    ratings = [
        Rating(user_id=user_id, mu=skill.mu, sigma=skill.sigma, display=skill.display,
               games=counts[user_id])
        for user_id, skill in skills.items()
    ]  # fmt: skip
    return ratings, changes


def atomic_rate_game(game_id: int) -> list[RatingChange]:
    """Rate an ended game in a transaction of its own, locking it first (for repairs and tests)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        seats = list(game.seats.order_by("number"))
        return rate_game(game=game, seats=seats)


def rerate_all() -> int:
    """Recompute every rating from scratch, rating the ended rated games in the order they
    ended; return how many games were rated. For generated data and after a change of model."""
    seats = (
        Seat.objects.filter(game__status=Game.Status.ENDED, game__rated=True)
        .order_by("game__ended_at", "game_id", "number")
        .values_list("game_id", "game__ended_at", "user_id", "place")
    )
    games: list[Finished] = []
    for game_id, ended_at, user_id, place in seats.iterator(chunk_size=5000):
        if not games or games[-1].game_id != game_id:
            games.append(Finished(game_id, ended_at, [], []))
        games[-1].user_ids.append(user_id)
        games[-1].places.append(place)
    games = [game for game in games if len(game.user_ids) >= 2 and None not in game.places]
    ratings, changes = rate_in_order(games)
    with transaction.atomic():
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        Rating.objects.bulk_create(ratings, batch_size=1000)
        RatingChange.objects.bulk_create(changes, batch_size=1000)
    return len(games)
