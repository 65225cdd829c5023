"""{% first_steps game %}: above a game's page, a guest's "Sign up to keep this game" and the
guided game's guide (games/first_visit/views.py `first_steps_context`); {% guide_offer %}: the
guided game offered on a new player's dashboard."""

from django import template

from games.first_visit.views import first_steps_context, offers_guide

register = template.Library()


@register.inclusion_tag("first_visit/first_steps.html", takes_context=True)
def first_steps(context, game):
    request = context["request"]
    return {
        "request": request,
        "user": request.user,
        "csrf_token": context.get("csrf_token"),
        **first_steps_context(request, game),
    }


@register.inclusion_tag("first_visit/guide_offer.html", takes_context=True)
def guide_offer(context):
    """{% guide_offer %}: on a new player's dashboard, the guided game offered (until they
    play one, say no thanks, or have a game that ended); also "Play now against the computer"."""
    request = context["request"]
    return {
        "request": request,
        "offer_guide": offers_guide(request.user),
        "csrf_token": context.get("csrf_token"),
    }
