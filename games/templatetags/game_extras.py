import json

from django import template
from django.utils.html import format_html

register = template.Library()


@register.simple_tag(takes_context=True)
def action_vals(context, action_type, **fields):
    """Return the hx-vals JSON of a game action, stamped with the version the page shows."""
    values = {"type": action_type, **fields, "version": context["view"].game.version}
    return format_html("{}", json.dumps(values))


@register.filter
def duration_words(duration) -> str:
    """``timedelta(days=2)`` -> "2 days"; ``timedelta(hours=3)`` -> "3 hours"."""
    if duration is None:
        return ""
    hours = int(duration.total_seconds() // 3600)
    if hours and hours % 24 == 0:
        days = hours // 24
        return f"{days} day{'s' if days != 1 else ''}"
    return f"{hours} hour{'s' if hours != 1 else ''}"


@register.filter
def place_words(place) -> str:
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd", 4 -> "4th"."""
    if place is None:
        return ""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20 else place % 10, "th")
    return f"{place}{suffix}"
