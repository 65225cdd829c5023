"""How players are named on pages: a "bot" badge beside computer players, and the post-game
analysis rows of a game view."""

from django import template
from django.utils.html import format_html

from games.history.analysis import analysis_rows as rows_of

register = template.Library()


@register.filter
def bot_badge(user) -> str:
    """Return the badge that marks a computer player (empty for a person)."""
    level = getattr(user, "bot_level", None)
    if not level:
        return ""
    return format_html(' <span class="bot-badge" title="computer player ({})">bot</span>', level)


@register.simple_tag
def analysis_rows(view):
    """Return the analysis rows of the seats in a game view (no query)."""
    return rows_of([seat_view.seat for seat_view in view.seats])
