"""How players are named on pages: a "bot" badge beside computer players and bot accounts, and
the post-game analysis rows of a game view."""

from django import template
from django.utils.html import format_html

from games.history.analysis import analysis_rows as rows_of

register = template.Library()


@register.filter
def bot_badge(user) -> str:
    """Return the badge that marks a computer player or a bot account (empty for a person)."""
    level = getattr(user, "bot_level", None)
    if level:
        title = f"computer player ({level})"
    elif getattr(user, "bot_owner_id", None):  # accounts/api_bots.py: a program plays it
        title = "bot account, played by a program"
    else:
        return ""
    return format_html(' <span class="bot-badge" title="{}">bot</span>', title)


@register.simple_tag
def analysis_rows(view):
    """Return the analysis rows of the seats in a game view (no query)."""
    return rows_of([seat_view.seat for seat_view in view.seats])
