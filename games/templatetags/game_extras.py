import json

from django import template
from django.utils.html import format_html

from microchip_site import words

register = template.Library()


@register.simple_tag(takes_context=True)
def action_vals(context, action_type, **fields):
    """Return the hx-vals JSON of a game action, stamped with the version the page shows."""
    values = {"type": action_type, **fields, "version": context["view"].game.version}
    return format_html("{}", json.dumps(values))


@register.filter
def duration_words(duration) -> str:
    """``timedelta(days=2)`` -> "2 days"; ``timedelta(hours=3)`` -> "3 hours"."""
    return "" if duration is None else words.duration_words(duration)


@register.filter
def place_words(place) -> str:
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd", 4 -> "4th"."""
    return "" if place is None else words.ordinal(place)
