"""Where the nav's "Log in" and "Sign up" links bring the visitor back to: the page they are on
(its path and query), or on allauth's own pages the `next` those already carry, so that logging
in from any page (an email's link to a game, an invitation) comes back to it."""

from django import template
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

register = template.Library()


@register.simple_tag(takes_context=True)
def login_next(context) -> str:
    """The `next` for a log-in link on this page, or '' (none: the site's default)."""
    request = context.get("request")
    if request is None:
        return ""
    accounts = reverse("account_login").removesuffix("login/")  # allauth's pages: /accounts/
    if not request.path.startswith(accounts):
        return request.get_full_path()
    kept = request.GET.get("next", "")
    safe = url_has_allowed_host_and_scheme(
        kept, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return kept if safe else ""


@register.simple_tag(takes_context=True)
def this_page(context) -> str:
    """The page to come back to after the language switcher (templates/partials/
    language_form.html): this one, its path and query, without a `next` that leads off the site
    (which the page must not repeat: set_language would refuse it anyway)."""
    request = context.get("request")
    if request is None:
        return ""
    kept = request.GET.get("next")
    if kept is None or url_has_allowed_host_and_scheme(
        kept, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return request.get_full_path()
    query = request.GET.copy()
    del query["next"]
    return f"{request.path}?{query.urlencode()}" if query else request.path
