"""Unsubscribe without logging in: a signed link in every email turns that kind of email off.

The token is ``django.core.signing`` over ``{"u": user id, "t": topic}`` with a salt of its own,
so it names one user and one topic and cannot be made for anyone else without the SECRET_KEY.
It does not expire: an unsubscribe link in an old email still works.

Following the link (GET, or HEAD) changes nothing: mail scanners and link previewers fetch the
links in an email, and must not unsubscribe anyone. It shows which emails will stop for which
account, with a button that POSTs (with the CSRF token) to the same address; that POST
unsubscribes and shows a page with an undo button. A mail client's own unsubscribe button POSTs
``List-Unsubscribe=One-Click`` to the same address (RFC 8058, the ``List-Unsubscribe-Post``
header built in games/notices/): that POST alone needs no CSRF token, and unsubscribes
at once, answering 200 (the RFC forbids a redirect).
"""

from django.conf import settings
from django.core import signing
from django.http import HttpResponseNotAllowed
from django.shortcuts import render
from django.urls import reverse
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from .forms import NOTIFICATION_FIELDS
from .models import User

SALT = "accounts.unsubscribe"
UNDO_SALT = "accounts.unsubscribe.undo"

# What each unsubscribe topic turns off, and how the page names it.
TOPICS = {
    # Translators: this and the names below end "press the button to get no more ..." and
    # "you will get no more ..." on the unsubscribe page.
    "your_turn": (("email_your_turn",), _("emails telling you it is your move")),
    "reminder": (("email_reminder",), _("reminders that your time is running out")),
    "timeout": (("email_timeout",), _("emails telling you your time ran out")),
    "invitation": (("email_invitation",), _("invitations to games")),
    "game_started": (("email_game_started",), _("emails when a game you joined starts")),
    "game_over": (("email_game_over",), _("emails when a game you played ends")),
    "tournaments": (("email_tournaments",), _("news of the tournaments you entered")),
    # The digest replaces the "your move" emails: stopping it must not bring those back. (The
    # reminders near a deadline reach digest readers too: they stay as they are.)
    "digest": (
        ("email_daily_digest", "email_your_turn"),
        _('the daily digest (and the "your move" emails it replaces)'),
    ),
    # Each name fits "press the button to get no more ..." and "you will get no more ...".
    "all": (
        tuple(NOTIFICATION_FIELDS),
        format_lazy(
            # Translators: {site} is the site's name, Microchip Online.
            _("emails from {site} (but those your account needs, like a password reset)"),
            site=settings.SITE_NAME,
        ),
    ),
}


def make_token(user: User, topic: str) -> str:
    """Return the signed token that unsubscribes `user` from `topic`."""
    if topic not in TOPICS:
        raise ValueError(f"Unknown unsubscribe topic {topic!r}.")
    return signing.dumps({"u": user.pk, "t": topic}, salt=SALT)


def unsubscribe_url(user: User, topic: str) -> str:
    """Return the absolute unsubscribe link for an email to `user`."""
    path = reverse("accounts:unsubscribe", args=[make_token(user, topic)])
    return f"{settings.SITE_URL}{path}"


def read_token(token: str) -> tuple[User, str] | None:
    """Return (user, topic) for a genuine token, or None for a forged, damaged or stale one."""
    try:
        data = signing.loads(token, salt=SALT)
        user_id, topic = data["u"], data["t"]
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    if topic not in TOPICS:
        return None
    user = User.objects.filter(pk=user_id).first()
    return None if user is None else (user, topic)


def unsubscribe(user: User, topic: str) -> dict[str, bool]:
    """Turn the topic's emails off; return the switches as they were, for an undo."""
    fields = TOPICS[topic][0]
    before = {name: getattr(user, name) for name in fields}
    for name in fields:
        setattr(user, name, False)
    user.save(update_fields=list(fields))
    return before


def is_one_click(request) -> bool:
    """Return whether a POST is a mail client's RFC 8058 one-click unsubscribe: a form body
    (urlencoded or multipart, as the RFC allows) of ``List-Unsubscribe=One-Click``."""
    return request.POST.get("List-Unsubscribe") == "One-Click"


@csrf_exempt  # for the mail client's one-click POST alone; the page's own button is checked below
def unsubscribe_view(request, token):
    """Show what the link stops (GET, HEAD); stop it (POST: the page's button or one-click)."""
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
    found = read_token(token)
    if found is None:
        return render(request, "accounts/unsubscribed.html", {"invalid": True}, status=400)
    user, topic = found
    if request.method != "POST":
        return render(
            request,
            "accounts/unsubscribed.html",
            {"person": user, "what": TOPICS[topic][1], "token": token, "confirm": True},
        )
    if is_one_click(request):
        return _unsubscribe_and_show(request, user, topic)
    return _unsubscribe_from_the_page(request, user, topic)


def _unsubscribe_and_show(request, user: User, topic: str):
    before = unsubscribe(user, topic)
    undo = signing.dumps({"u": user.pk, "before": before}, salt=UNDO_SALT)
    return render(
        request,
        "accounts/unsubscribed.html",
        {"person": user, "what": TOPICS[topic][1], "undo_token": undo, "done": True},
    )


@csrf_protect  # the page's button: a form of ours, with the CSRF token like every other form
def _unsubscribe_from_the_page(request, user: User, topic: str):
    return _unsubscribe_and_show(request, user, topic)


@require_POST
def undo_view(request, token):
    """Put the switches back as they were before an unsubscribe (the page's undo button)."""
    try:
        data = signing.loads(token, salt=UNDO_SALT, max_age=7 * 24 * 3600)
        user = User.objects.get(pk=data["u"])
        before = {
            name: bool(value)
            for name, value in data["before"].items()
            if name in NOTIFICATION_FIELDS
        }
    except (signing.BadSignature, KeyError, TypeError, AttributeError, User.DoesNotExist):
        return render(request, "accounts/unsubscribed.html", {"invalid": True}, status=400)
    for name, value in before.items():
        setattr(user, name, value)
    if before:
        user.save(update_fields=list(before))
    return render(request, "accounts/unsubscribed.html", {"person": user, "restored": True})
