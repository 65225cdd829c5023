"""How players are named on pages: a "bot" badge beside computer players and bot accounts, and
the post-game analysis rows of a game view."""

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext, pgettext

from games.history.analysis import analysis_rows as rows_of

register = template.Library()


@register.filter
def bot_badge(user) -> str:
    """Return the badge that marks a computer player or a bot account (empty for a person)."""
    level = getattr(user, "bot_level", None)
    if level:
        # Translators: the tooltip of the badge beside a computer player's name, with its level
        # ("easy", "strong", "expert", translated as the levels are).
        title = gettext("computer player (%(level)s)") % {"level": user.get_bot_level_display()}
    elif getattr(user, "bot_owner_id", None):  # accounts/api_bots.py: a program plays it
        title = gettext("bot account, played by a program")
    else:
        return ""
    # Translators: the badge beside the name of a player that a computer or a program plays.
    badge = pgettext("badge of a computer player", "bot")
    return format_html(' <span class="bot-badge" title="{}">{}</span>', title, badge)


@register.simple_tag
def analysis_rows(view):
    """Return the analysis rows of the seats in a game view (no query)."""
    return rows_of([seat_view.seat for seat_view in view.seats])
