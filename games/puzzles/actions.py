"""Every change a player makes to their puzzles, one function each, in the style of
games/play/actions/: one transaction that locks the rows it changes (select_for_update),
checks the request (with the rules package), writes, and returns what it did. Two requests that
race (two tabs, a double click) queue on the attempt's row: a change made against a version the
attempt has left is refused as stale, and an attempt is submitted, and rated, once.

- `arrange`: an arranging action on an arrangement puzzle's board (place, move, swap, rotate,
  return, clear, undo, redo), as the game page posts them;
- `submit`: the board as the answer: the verdict (games/rules/puzzles.py `check_arrangement`),
  the player's puzzle rating, streak and counts;
- `draft`: a drafting puzzle's answer, a tile of the draw column (`check_draft`), rated the same.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import rules
from games.history.ratings import INITIAL, Skill, rate
from games.play.errors import ActionRefused, StaleVersion
from games.puzzles.board import ARRANGING, SEAT, placements, puzzle_state
from games.puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating
from games.rules import puzzles as rules_puzzles


@dataclass(frozen=True)
class Submitted:
    """A submitted answer: the attempt as it ended, the verdict, the rating it left."""

    attempt: PuzzleAttempt
    verdict: rules_puzzles.Verdict
    rating: PuzzleRating


def arrange(*, user, puzzle_id: str, action: rules.Action | dict, seen_version: int | None):
    """Apply an arranging action to `user`'s board of an arrangement puzzle; return the
    attempt. Refused (ActionRefused) when the puzzle is not an arrangement one, the answer is in,
    the page was drawn at another version, or the rules refuse the action."""
    try:
        action = rules.action_from_json(action) if isinstance(action, dict) else action
    except rules.RuleError as error:
        raise ActionRefused.from_rule_error(error) from None
    if not isinstance(action, ARRANGING):
        raise ActionRefused(_("A puzzle takes arranging moves only."), code="not_arranging")
    with transaction.atomic():
        puzzle, attempt = _locked_attempt(user, puzzle_id, Puzzle.Kind.ARRANGEMENT)
        _check_version(attempt, seen_version)
        state = puzzle_state(puzzle.data, attempt)
        try:
            after = state.apply(action, SEAT)
        except rules.RuleError as error:
            raise ActionRefused.from_rule_error(error) from None
        attempt.board = after.boards[SEAT].cells_to_json()
        attempt.tray = list(after.trays[SEAT])
        attempt.undo = list(after.undo_of(SEAT))
        attempt.redo = list(after.redo_of(SEAT))
        attempt.version += 1
        attempt.save()
    return attempt


def submit(*, user, puzzle_id: str, seen_version: int | None) -> Submitted:
    """Submit `user`'s board of an arrangement puzzle as their answer (once)."""
    with transaction.atomic():
        puzzle, attempt = _locked_attempt(user, puzzle_id, Puzzle.Kind.ARRANGEMENT)
        _check_version(attempt, seen_version)
        state = puzzle_state(puzzle.data, attempt)
        verdict = rules_puzzles.check_arrangement(
            rules_puzzles.puzzle_from_json(puzzle.data), placements(state)
        )
        if verdict.error == "illegal_tiles_on_board":
            raise ActionRefused(
                _("Some tiles on your board break the rules: fix them or return them first."),
                code="illegal_tiles_on_board",
            )
        if verdict.error:  # pragma: no cover - the board holds the puzzle's tiles only
            raise ActionRefused(_("That is no answer to this puzzle."), code=verdict.error)
        return _decide(user, puzzle, attempt, verdict, {"placements": placements(state)})


def draft(*, user, puzzle_id: str, tile) -> Submitted:
    """Answer a drafting puzzle with a tile of its draw column (once)."""
    with transaction.atomic():
        puzzle, attempt = _locked_attempt(user, puzzle_id, Puzzle.Kind.DRAFTING)
        verdict = rules_puzzles.check_draft(rules_puzzles.puzzle_from_json(puzzle.data), tile)
        if verdict.error:
            raise ActionRefused(
                _("Choose a tile of the draw column, the rightmost column with tiles."),
                code=verdict.error,
            )
        return _decide(user, puzzle, attempt, verdict, {"tile": tile})


# --- helpers -----------------------------------------------------------------------------------


def _locked_attempt(user, puzzle_id: str, kind: str) -> tuple[Puzzle, PuzzleAttempt]:
    """The puzzle and `user`'s attempt at it, the attempt's row locked (inserted first when
    there is none yet: of two requests that race to insert it, one inserts and the other finds
    it, get_or_create's way with the unique constraint)."""
    puzzle = Puzzle.objects.filter(pk=puzzle_id).first()
    if puzzle is None:
        raise ActionRefused(_("There is no such puzzle."), code="no_puzzle")
    if puzzle.kind != kind:
        raise ActionRefused(_("This puzzle is not answered that way."), code="wrong_kind")
    PuzzleAttempt.objects.get_or_create(user=user, puzzle=puzzle)
    attempt = PuzzleAttempt.objects.select_for_update().get(user=user, puzzle=puzzle)
    if attempt.submitted:
        raise ActionRefused(
            _("You have answered this puzzle already: here is how it went."), code="answered"
        )
    return puzzle, attempt


def _check_version(attempt: PuzzleAttempt, seen_version: int | None) -> None:
    if seen_version is not None and seen_version != attempt.version:
        raise StaleVersion(_("Your board changed in another tab; here it is now."))


def _decide(user, puzzle, attempt, verdict, answer: dict) -> Submitted:
    """Record the verdict on the attempt, rate the player against the puzzle, keep the streak.
    Locks the player's rating, then the puzzle (always in that order)."""
    PuzzleRating.objects.get_or_create(
        user=user, defaults={"mu": INITIAL.mu, "sigma": INITIAL.sigma, "display": INITIAL.display}
    )
    rating = PuzzleRating.objects.select_for_update().get(user=user)
    puzzle = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
    solved = verdict.solved
    player, rated = rate(
        [Skill(rating.mu, rating.sigma), Skill(puzzle.mu, puzzle.sigma)],
        [1, 2] if solved else [2, 1],
    )
    now = timezone.now()
    attempt.status = PuzzleAttempt.Status.SOLVED if solved else PuzzleAttempt.Status.MISSED
    attempt.answer = answer
    attempt.score = verdict.score
    attempt.rating_before = rating.display
    attempt.rating_after = player.display
    attempt.submitted_at = now
    attempt.version += 1
    attempt.save()
    rating.mu, rating.sigma, rating.display = player.mu, player.sigma, player.display
    rating.tried += 1
    rating.solved += int(solved)
    rating.streak = rating.streak + 1 if solved else 0
    rating.best_streak = max(rating.best_streak, rating.streak)
    rating.updated_at = now
    rating.save()
    puzzle.mu, puzzle.sigma, puzzle.display = rated.mu, rated.sigma, rated.display
    puzzle.tries += 1
    puzzle.solves += int(solved)
    puzzle.save(update_fields=["mu", "sigma", "display", "tries", "solves"])
    return Submitted(attempt, verdict, rating)
