"""Template tags of the live layer, for templates/base.html."""

from django import template
from django.utils.safestring import mark_safe

from games.drawing.badge import draw_badge

register = template.Library()


@register.simple_tag(takes_context=True)
def turn_badge(context):
    """Draw the nav badge of the signed-in player (the same partial the pushes replace it with)."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return ""
    return mark_safe(draw_badge(user))  # drawn by the template engine, escaped there
