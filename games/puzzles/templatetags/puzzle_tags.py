"""The puzzle of the day, drawn where another page wants it: ``{% load puzzle_tags %}
{% daily_puzzle_card %}`` (the dashboard)."""

from django import template

from games.puzzles import choosing
from games.puzzles.models import PuzzleAttempt

register = template.Library()


@register.inclusion_tag("puzzles/partials/daily_card.html", takes_context=True)
def daily_puzzle_card(context):
    user = context.get("user")
    daily = choosing.daily_puzzle()
    attempt = None
    if daily is not None and getattr(user, "is_authenticated", False):
        attempt = PuzzleAttempt.objects.filter(user=user, puzzle=daily).first()
    return {"daily": daily, "attempt": attempt}
