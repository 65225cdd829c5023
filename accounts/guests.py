"""Guests: a visitor who pressed "Play now" plays at once, as a real but temporary account.

A guest is a User with `is_guest`: no email, no password, every notification off, signed in
by the request that made it. What a guest may do is a short list of pages (`GUEST_PAGES`: their
own games, the help, sign-up, leaving); `GuestFence` answers 403 for every other page and API
endpoint of the site, so a page added later is closed to guests until it is put on the list
(tests/first_visit/test_guest_fence.py walks every URL pattern). Elsewhere a guest is left out:
never invited (accounts/privacy.py), no profile or archive (games/players/views.py,
games/history/views.py), no table talk (games/chat.py), never rated (their games are unrated).

Sign-up turns the guest into a player: allauth's own form and email confirmation, but the
adapter (accounts/adapter.py) fills in the guest's row instead of a new one, so every seat,
event and replay stays where it is. A guest who logs out, and one older than GUEST_DAYS, is
removed with their games (games/first_visit/guests.py: accounts knows no game).
"""

import secrets

from django.conf import settings
from django.contrib.auth import login
from django.db import IntegrityError, transaction
from django.shortcuts import render
from django.urls import Resolver404, resolve

from .forms import NOTIFICATION_FIELDS
from .models import User

# Guests' names: "Guest-" and six letters or digits that cannot be misread. A person's sign-up
# may not take a name of this form (accounts/adapter.py), so a guest's name never passes for a
# player's, nor a player's for a guest's.
GUEST_PREFIX = "Guest-"
NAME_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"
NAME_LENGTH = 6

# The pages (URL names) a guest may open: their game and what it needs, the home page and
# the help, the guided game, sign-up (to keep the game), logging out (to leave), the language.
GUEST_PAGES = frozenset(
    {
        "home",
        "health",
        "service_worker",
        "web_manifest",
        "favicon",
        "javascript_catalog",
        "choose_language",
        "account_signup",
        "account_logout",
        "games:game",
        "games:fragment",
        "games:act",
        "games:log",
        "games:queue",
        "games:dismiss_notices",
        "games:resign",
        "games:replay",
        "first_visit:play_now",
        "first_visit:learn",
        "first_visit:guide",
        "first_visit:guide_step",
        "first_visit:leave",
        "first_visit:no_guide",
    }
)


def is_guest(user) -> bool:
    return bool(getattr(user, "is_guest", False))


def looks_like_a_guest_name(name: str) -> bool:
    return name.lower().startswith(GUEST_PREFIX.lower())


def new_guest() -> User:
    """A guest account under a fresh name: no email, no password, nothing sent to it."""
    for _attempt in range(10):
        name = GUEST_PREFIX + "".join(secrets.choice(NAME_LETTERS) for _ in range(NAME_LENGTH))
        guest = User(username=name, email="", is_guest=True)
        for field in NOTIFICATION_FIELDS:
            setattr(guest, field, False)
        guest.set_unusable_password()
        try:
            with transaction.atomic():
                guest.save()
        except IntegrityError:  # the name (or its look-alike key) is taken: draw again
            continue
        return guest
    raise RuntimeError("no free guest name after 10 draws")


def sign_in_as_guest(request) -> User:
    """Make a guest and sign the request's browser in as it."""
    guest = new_guest()
    login(request, guest, backend="django.contrib.auth.backends.ModelBackend")
    return guest


def page_name(path: str) -> str | None:
    """The URL name of `path` ("games:game"), or None for an address the site does not have
    (a 404 anyway) or a pattern without a name."""
    try:
        match = resolve(path)
    except Resolver404:
        return None
    return match.view_name or ""


class GuestFence:
    """Answer a guest's request for a page not in GUEST_PAGES with 403 and what to do instead
    (sign up). Static files (whitenoise) and the websockets never come here; the sockets check
    their viewer themselves (a game's players and watchers only)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if is_guest(user):
            name = page_name(request.path_info)
            if name is not None and name not in GUEST_PAGES:
                return refused(request)
        return self.get_response(request)


def refused(request):
    response = render(
        request,
        "accounts/guest_refused.html",
        {"guest_days": settings.GUEST_DAYS},
        status=403,
    )
    return response
