"""{% first_steps %}: above a game's page, a guest's "Sign up to keep this game" and the
guided game's guide (games/first_visit/views.py `first_steps_context`)."""

from django import template

from games.first_visit.views import first_steps_context

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
