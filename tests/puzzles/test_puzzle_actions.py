"""A player's puzzles: arranging and submitting, drafting puzzles, refusals, the rating and the
streak, and two requests racing (submitting twice counts once)."""

import pytest

from games import rules
from games.play.errors import ActionRefused
from games.puzzles import actions
from games.puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating
from tests.games.test_races import race


def solve(user, puzzle):
    """Place the puzzle's best board, tile by tile, and submit it."""
    for space, cell in enumerate(puzzle.data["best_cells"]):
        if cell is not None:
            actions.arrange(
                user=user, puzzle_id=puzzle.pk, action=rules.Place(cell[0], space, cell[1]),
                seen_version=None,
            )  # fmt: skip
    return actions.submit(user=user, puzzle_id=puzzle.pk, seen_version=None)


@pytest.mark.django_db
def test_the_best_board_solves_the_puzzle_and_raises_the_rating(players, arrangement):
    me = players[0]

    result = solve(me, arrangement)

    assert result.verdict.solved and result.attempt.status == PuzzleAttempt.Status.SOLVED
    assert result.attempt.score == arrangement.data["best_score"]
    rating = PuzzleRating.objects.get(user=me)
    assert rating.display > 1000 - 1 and rating.display == result.attempt.rating_after
    assert result.attempt.rating_after > result.attempt.rating_before
    assert (rating.tried, rating.solved, rating.streak, rating.best_streak) == (1, 1, 1, 1)
    arrangement.refresh_from_db()
    assert (arrangement.tries, arrangement.solves) == (1, 1)
    assert arrangement.display < 1000  # the puzzle lost to the player


@pytest.mark.django_db
def test_a_board_short_of_the_best_misses_and_ends_the_streak(players, arrangement):
    me = players[0]
    PuzzleRating.objects.create(user=me, mu=25, sigma=8, display=1000, streak=4, best_streak=4)

    result = actions.submit(user=me, puzzle_id=arrangement.pk, seen_version=0)  # nothing placed

    assert not result.verdict.solved
    assert result.attempt.status == PuzzleAttempt.Status.MISSED
    assert result.attempt.score == -2 * len(arrangement.data["tiles"])
    rating = PuzzleRating.objects.get(user=me)
    assert (rating.streak, rating.best_streak, rating.tried, rating.solved) == (0, 4, 1, 0)
    assert rating.display < 1000


@pytest.mark.django_db
def test_a_puzzle_is_answered_once(players, arrangement):
    me = players[0]
    solve(me, arrangement)

    with pytest.raises(ActionRefused) as refused:
        actions.submit(user=me, puzzle_id=arrangement.pk, seen_version=None)
    assert refused.value.code == "answered"
    with pytest.raises(ActionRefused) as refused:
        actions.arrange(user=me, puzzle_id=arrangement.pk, action=rules.Clear(), seen_version=None)
    assert refused.value.code == "answered"
    assert PuzzleRating.objects.get(user=me).tried == 1


@pytest.mark.django_db
def test_moves_are_checked_by_the_rules_and_the_pages_version(players, arrangement):
    me = players[0]
    tile = arrangement.data["tiles"][0]
    attempt = actions.arrange(
        user=me, puzzle_id=arrangement.pk, action={"type": "place", "tile_id": tile, "space": 7,
                                                   "rotation": 0}, seen_version=0
    )  # fmt: skip
    assert attempt.version == 1 and attempt.board[7] == [tile, 0]

    with pytest.raises(ActionRefused) as stale:  # a page drawn before that move
        actions.arrange(
            user=me, puzzle_id=arrangement.pk, action=rules.Rotate(7, 1), seen_version=0
        )
    assert stale.value.code == "stale"
    with pytest.raises(ActionRefused) as occupied:
        other = arrangement.data["tiles"][1]
        actions.arrange(
            user=me, puzzle_id=arrangement.pk, action=rules.Place(other, 7, 0), seen_version=1
        )
    assert occupied.value.code == "space_occupied"
    with pytest.raises(ActionRefused) as not_mine:
        actions.arrange(
            user=me, puzzle_id=arrangement.pk, action=rules.Place(40, 8, 0), seen_version=1
        )
    assert not_mine.value.code == "tile_not_in_tray"
    with pytest.raises(ActionRefused) as no_draft:
        actions.arrange(user=me, puzzle_id=arrangement.pk, action=rules.Draft(3), seen_version=1)
    assert no_draft.value.code == "not_arranging"
    # Undo and Redo, as on a game's board.
    actions.arrange(user=me, puzzle_id=arrangement.pk, action=rules.Undo(), seen_version=1)
    attempt.refresh_from_db()
    assert attempt.board[7] is None and tile in attempt.tray and attempt.version == 2


@pytest.mark.django_db
def test_a_board_with_a_tile_breaking_the_rules_is_no_answer(players, arrangement):
    me = players[0]
    colours = arrangement.data["colours"]
    tile = arrangement.data["tiles"][0]
    wrong = next(
        space for space, colour in enumerate(colours) if colour != rules.TILES[tile].colour.value
    )
    actions.arrange(
        user=me, puzzle_id=arrangement.pk, action=rules.Place(tile, wrong, 0), seen_version=None
    )

    with pytest.raises(ActionRefused) as refused:
        actions.submit(user=me, puzzle_id=arrangement.pk, seen_version=None)

    assert refused.value.code == "illegal_tiles_on_board"
    assert not PuzzleRating.objects.filter(user=me).exists()


@pytest.mark.django_db
def test_a_drafting_puzzle_is_answered_by_a_tile_of_the_draw_column(players, drafting):
    me, you = players[0], players[1]

    with pytest.raises(ActionRefused) as refused:
        actions.draft(user=me, puzzle_id=drafting.pk, tile=0)  # not the draw column
    assert refused.value.code == "not_in_draw_column"
    right = actions.draft(user=me, puzzle_id=drafting.pk, tile=20)
    wrong = actions.draft(user=you, puzzle_id=drafting.pk, tile=45)

    assert right.verdict.solved and right.attempt.answer == {"tile": 20}
    assert not wrong.verdict.solved and wrong.verdict.score == -2.0
    with pytest.raises(ActionRefused) as arranging:
        actions.arrange(user=me, puzzle_id=drafting.pk, action=rules.Clear(), seen_version=None)
    assert arranging.value.code == "wrong_kind"


@pytest.mark.django_db(transaction=True)
def test_submitting_twice_at_once_counts_once(players, arrangement):
    me = players[0]
    Puzzle.objects.filter(pk=arrangement.pk).update()

    outcomes = race(
        lambda: actions.submit(user=me, puzzle_id=arrangement.pk, seen_version=None),
        lambda: actions.submit(user=me, puzzle_id=arrangement.pk, seen_version=None),
    )

    done = [o for o in outcomes if isinstance(o, actions.Submitted)]
    refused = [o for o in outcomes if isinstance(o, ActionRefused)]
    assert len(done) == 1 and len(refused) == 1, outcomes
    assert refused[0].code in ("answered", "stale")
    rating = PuzzleRating.objects.get(user=me)
    assert rating.tried == 1
    assert PuzzleAttempt.objects.filter(user=me).count() == 1
    arrangement.refresh_from_db()
    assert arrangement.tries == 1


@pytest.mark.django_db(transaction=True)
def test_two_first_moves_at_once_make_one_attempt(players, arrangement):
    me = players[0]
    first, second = arrangement.data["tiles"][:2]

    outcomes = race(
        lambda: actions.arrange(
            user=me, puzzle_id=arrangement.pk, action=rules.Place(first, 1, 0), seen_version=0
        ),
        lambda: actions.arrange(
            user=me, puzzle_id=arrangement.pk, action=rules.Place(second, 2, 0), seen_version=0
        ),
    )

    assert sum(isinstance(o, PuzzleAttempt) for o in outcomes) == 1, outcomes
    assert sum(isinstance(o, ActionRefused) and o.code == "stale" for o in outcomes) == 1, outcomes
    attempt = PuzzleAttempt.objects.get(user=me)
    assert attempt.version == 1 and sum(cell is not None for cell in attempt.board) == 1
