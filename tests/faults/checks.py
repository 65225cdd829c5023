"""What a game that went through faults must still be at its end: its event log replays with the
rules engine to the stored final state, its scores and places are the rules' results, nothing is
in the log twice, it was rated once and analysed once; and every player's ratings form one
unbroken chain of games."""

import itertools
import math
from collections import Counter

from games import rules
from games.history.ratings import INITIAL, Skill, rate
from games.history.replay import rebuild_state
from games.models import Event, Game, Rating, RatingChange, Seat
from games.state_store import load_state


def final_state(game: Game) -> rules.GameState:
    """The game's rules state as stored now."""
    return load_state(game, list(game.seats.order_by("number")))


def check_game(game_id: int) -> Game:
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.ENDED, f"game {game_id} is {game.status}"
    seats = list(game.seats.select_related("user").order_by("number"))
    final = load_state(game, seats)
    assert final.is_terminal()
    # The log alone gives the stored state: no move was lost, none applied twice.
    assert rebuild_state(game) == final, f"game {game_id}'s log does not replay to its state"

    events = list(game.events.order_by("number"))
    assert [event.number for event in events] == list(range(1, game.version + 1))
    kinds = Counter(event.kind for event in events)
    assert kinds["started"] == 1
    assert kinds["analysed"] == 1, f"game {game_id} was analysed {kinds['analysed']} times"
    finishes = Counter(event.seat for event in events if event.kind == "finish")
    if kinds["conclude"]:
        # Nobody was left playing (games/play/leaving.py): the game ended with the boards as
        # they stood, once, after a seat had left.
        assert kinds["conclude"] == 1, f"game {game_id} concluded {kinds['conclude']} times"
        assert kinds["resign"] >= 1, f"game {game_id} concluded with nobody gone"
    else:
        assert finishes == Counter(range(game.player_count)), finishes
    after_end = [e.kind for e in events if e.number > _end_number(events)]
    assert after_end == ["analysed"], f"events after the end of game {game_id}: {after_end}"

    for result in final.results():
        seat = seats[result.seat]
        assert (seat.score, seat.place) == (result.score, result.place)
        assert (seat.chip_tiles, seat.chip_value, seat.penalty_tiles) == (
            result.chip_tiles,
            result.chip_value,
            result.penalty_tiles,
        )
        assert seat.best_score is not None and seat.best_score >= seat.score
        assert len(seat.best_board) == 25

    changes = list(RatingChange.objects.filter(game=game))
    if game.rated:
        assert sorted((c.user_id, c.place) for c in changes) == sorted(
            (seat.user_id, seat.place) for seat in seats
        ), f"game {game_id} was not rated exactly once"
        # Each player's change is the rating model's answer to the game's places.
        by_user = {change.user_id: change for change in changes}
        before = [
            Skill(by_user[s.user_id].mu_before, by_user[s.user_id].sigma_before) for s in seats
        ]
        after = rate(before, [seat.place for seat in seats])
        for seat, expected in zip(seats, after, strict=True):
            change = by_user[seat.user_id]
            assert math.isclose(change.mu, expected.mu) and math.isclose(
                change.sigma, expected.sigma
            )
    else:
        assert not changes
    return game


def _end_number(events: list[Event]) -> int:
    """The number of the event that ended the game (the last finish, or the conclusion when
    nobody was left playing)."""
    return max(event.number for event in events if event.kind in ("finish", "conclude"))


def check_ratings(user_ids) -> None:
    """Each player's rating changes form one chain, one link per rated game they finished, and
    the rating is the chain's end: no game was rated twice or skipped."""
    for user_id in user_ids:
        changes = list(RatingChange.objects.filter(user_id=user_id).order_by("games"))
        rated_games = Seat.objects.filter(
            user_id=user_id, game__status=Game.Status.ENDED, game__rated=True
        ).count()
        assert len(changes) == rated_games
        assert [change.games for change in changes] == list(range(1, rated_games + 1))
        if changes:
            assert (changes[0].mu_before, changes[0].sigma_before) == (INITIAL.mu, INITIAL.sigma)
        for earlier, later in itertools.pairwise(changes):
            assert (later.mu_before, later.sigma_before) == (earlier.mu, earlier.sigma)
        if changes:
            rating = Rating.objects.get(user_id=user_id)
            assert rating.games == rated_games
            assert (rating.mu, rating.sigma) == (changes[-1].mu, changes[-1].sigma)


def check_accepted_moves(game_id: int, answers, users_by_seat: dict[int, int]) -> int:
    """Every move the server answered 200 is the event whose number the answer showed, made by
    that player: no accepted move was lost. Return how many were checked."""
    events = {event.number: event for event in Event.objects.filter(game_id=game_id)}
    accepted = [answer for answer in answers if answer.status == 200]
    versions = [answer.version for answer in accepted]
    assert len(set(versions)) == len(versions), "two accepted moves showed the same version"
    for answer in accepted:
        event = events.get(answer.version)
        assert event is not None, f"accepted move {answer} is not in the log"
        assert (event.seat, event.actor_id, event.cause) == (
            answer.seat,
            users_by_seat[answer.seat],
            Event.Cause.PLAYER,
        ), f"event {event.number} is not the accepted move {answer}"
        assert rules.action_from_json(event.action) == rules.action_from_json(answer.action)
    return len(accepted)
