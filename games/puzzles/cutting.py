"""Cutting puzzles from a finished, reviewed game: the slow half reads and asks the rules
package (games/rules/puzzles.py: arrangement puzzles the solver proves, drafting puzzles the
engine's review finds), outside any lock; `store_puzzles` writes the new ones, once.

A puzzle's id is a hash of its content: cutting a game twice (two workers, the archive's
command after the task) stores nothing new."""

from dataclasses import dataclass

from django.db import transaction

from games import rules
from games.history.ratings import INITIAL
from games.models import Game
from games.puzzles.models import Puzzle
from games.review.compute import game_log
from games.review.models import GameReview
from games.rules import puzzles as rules_puzzles
from games.rules.review import GameReview as RulesReview


@dataclass(frozen=True)
class Cut:
    """A puzzle cut from a game, ready to store."""

    id: str
    kind: str
    data: dict
    themes: list


def puzzles_of(*, game_id: int) -> list[Cut]:
    """The puzzles of the finished, reviewed game `game_id` (none before its review)."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.ENDED).first()
    review = GameReview.objects.filter(game_id=game_id).first()
    if game is None or review is None:
        return []
    log = game_log(game)
    final = rules.Replay(**log.game()).final
    found = list(rules_puzzles.arrangement_puzzles(final))
    found += rules_puzzles.drafting_puzzles(RulesReview.from_json(review.drafts), **log.game())
    return [Cut(p.id, p.kind, p.to_json(), list(getattr(p, "themes", []) or [])) for p in found]


def store_puzzles(*, game_id: int | None, cuts: list[Cut]) -> int:
    """Store the puzzles not stored yet; return how many are new. A game's puzzles are all
    written or none (one transaction); a puzzle stored already (the same position) is kept as
    it is, its rating and tries with it."""
    if not cuts:
        return 0
    with transaction.atomic():
        known = set(Puzzle.objects.filter(pk__in=[c.id for c in cuts]).values_list("pk", flat=True))
        new = [
            Puzzle(
                id=cut.id,
                kind=cut.kind,
                data=cut.data,
                themes=cut.themes,
                game_id=game_id,
                mu=INITIAL.mu,
                sigma=INITIAL.sigma,
                display=INITIAL.display,
            )
            for cut in cuts
            if cut.id not in known
        ]
        # A second worker storing the same puzzles at once: the primary key keeps one of each.
        Puzzle.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)
