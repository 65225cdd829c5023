"""Cut puzzles from the archive: `manage.py cut_puzzles [--limit N] [--review]`.

The task `games.cut_puzzles` cuts each game's puzzles once it is reviewed; this does the same for
the finished games already in the archive (newest first), reviewing first those without a
review when asked (--review: the engine's CPU budget per game, settings.ENGINE_REVIEW). Safe to
run again, and beside the workers: a review is stored once, a puzzle once."""

from django.core.management.base import BaseCommand

from games.models import Game
from games.puzzles import cutting
from games.review import compute, storing


class Command(BaseCommand):
    help = "Cut puzzles from finished games (reviewing them first with --review)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--limit", type=int, default=100, help="Games to look at (newest first)."
        )
        parser.add_argument(
            "--review", action="store_true", help="Review games without a review first."
        )

    def handle(self, *args, limit, review, **options):
        games = Game.objects.filter(status=Game.Status.ENDED).order_by("-ended_at")
        if not review:
            games = games.filter(engine_review__isnull=False)
        looked = stored = reviewed = 0
        for game_id in games.values_list("pk", flat=True)[:limit]:
            looked += 1
            if review:
                found = compute.review_of(game_id=game_id)
                if found is not None and storing.record_review(game_id=game_id, found=found):
                    reviewed += 1
            stored += cutting.store_puzzles(
                game_id=game_id, cuts=cutting.puzzles_of(game_id=game_id)
            )
        self.stdout.write(f"{looked} games looked at, {reviewed} reviewed, {stored} new puzzles")
