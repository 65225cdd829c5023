"""The engine's review of a finished game: queued after the analysis, stored once, idempotent
when two workers run it, and found again by the sweep when its task was lost."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import tasks
from games.review import compute, storing
from games.review import tasks as review_tasks
from games.review.models import GameReview
from tests.games.test_races import race

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_finished_game_is_reviewed_after_its_analysis(finished_game):
    game = finished_game(2)

    review = GameReview.objects.get(game=game)
    data = review.drafts
    assert data["players"] == 2 and data["measure"] == "margin"
    # Every draft a player chose is judged: the tile taken is one of the choices judged, the
    # engine's choice the best of them, and the value lost their difference.
    assert data["drafts"]
    for draft in data["drafts"]:
        values = {choice["tile"]: choice["value"] for choice in draft["choices"]}
        assert draft["taken"] in values and draft["best"] in values
        assert draft["value_best"] == max(values.values())
        assert draft["loss"] == pytest.approx(
            max(0, draft["value_best"] - values[draft["taken"]]), abs=0.02
        )
        assert 0 < draft["accuracy"] <= 100
    scores = {seat.number: seat.score for seat in game.seats.all()}
    for seat in data["seats"]:
        assert seat["final_score"] == scores[seat["seat"]]
    # Hindsight: each seat's best from the tiles the game offered it is at least its own score.
    assert [h["seat"] for h in review.hindsight] == [0, 1]
    for seat in review.hindsight:
        assert seat["best_score"] >= scores[seat["seat"]]
        assert len(seat["cells"]) == 25
    assert review.cpu_seconds > 0


def test_the_review_is_stored_once_and_a_second_run_changes_nothing(finished_game):
    game = finished_game(2)
    first = GameReview.objects.get(game=game)

    assert review_tasks.review_game(game.pk) is False  # reviewed already: nothing computed
    found = compute.review_log(compute.game_log(game))
    assert storing.record_review(game_id=game.pk, found=found) is None
    assert GameReview.objects.get(game=game).created_at == first.created_at


def test_two_workers_storing_the_same_review_at_once_store_it_once(finished_game):
    game = finished_game(2)
    GameReview.objects.filter(game=game).delete()
    found = compute.review_log(compute.game_log(game))

    outcomes = race(
        lambda: storing.record_review(game_id=game.pk, found=found),
        lambda: storing.record_review(game_id=game.pk, found=found),
    )

    stored = [outcome for outcome in outcomes if isinstance(outcome, GameReview)]
    assert len(stored) == 1, outcomes
    assert outcomes.count(None) == 1, outcomes
    assert GameReview.objects.filter(game=game).count() == 1


def test_a_game_not_ended_is_not_reviewed(start_game):
    game = start_game(2)

    assert compute.review_of(game_id=game.pk) is None
    assert review_tasks.review_game(game.pk) is False
    assert not GameReview.objects.exists()


def test_the_sweep_reviews_a_game_whose_review_was_lost(finished_game):
    game = finished_game(2)
    GameReview.objects.filter(game=game).delete()

    assert tasks.sweep()["reviews"] == 0  # it has just ended: the task may still come
    type(game).objects.filter(pk=game.pk).update(ended_at=timezone.now() - timedelta(minutes=20))
    assert tasks.sweep()["reviews"] == 1
    assert GameReview.objects.filter(game=game).exists()


@pytest.mark.slow  # the solver proves each final board and its chip's spaces: a minute or two
def test_the_archives_command_cuts_puzzles_from_reviewed_games(finished_game, monkeypatch):
    from django.core.management import call_command

    from games.puzzles import cutting
    from games.puzzles.models import Puzzle

    game = finished_game(2)
    seen = []
    real = cutting.puzzles_of

    def recorded(*, game_id):
        found = real(game_id=game_id)
        seen.append((game_id, found))
        return found

    monkeypatch.setattr(cutting, "puzzles_of", recorded)
    call_command("cut_puzzles", "--limit", "5")
    call_command("cut_puzzles", "--limit", "5")  # again: nothing new

    assert [game_id for game_id, _ in seen] == [game.pk, game.pk]
    cuts = seen[0][1]
    assert Puzzle.objects.count() == len({cut.id for cut in cuts})
    for cut in cuts:  # every puzzle the rules package cut, stored with its game
        assert Puzzle.objects.get(pk=cut.id).game_id == game.pk
