"""The settings page of the public API: a player's tokens, their bot accounts and the bots'
tokens (accounts/tokens.py, accounts/api_bots.py). Every change is a POST with its CSRF token.

A new token's secret is in the answer to the POST that made it, and nowhere else: not in the
session, not in a message, not in a log. The answer is not stored by the browser (no-store),
so going back or reloading never shows it again; only its digest is kept.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, Q
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from infra import rate_limits as limits
from infra.words import wait_words

from . import api_bots, tokens
from .forms import BotForm, TokenForm
from .models import AccessToken

# New tokens and bot accounts together, per player: enough to set up a few programs in an
# evening, too few for a script to fill the tables (MAX_TOKENS and MAX_BOTS cap what stays).
MADE_RATES = limits.parse_rates("20/h/key,50/d/key")
MADE_LIMIT = "accounts.api_made"


def _active_tokens():
    return Prefetch(
        "access_tokens",
        queryset=AccessToken.objects.filter(revoked_at__isnull=True).order_by("-created_at"),
        to_attr="active_tokens",
    )


def _page(request, *, token_form=None, bot_form=None, made=None, secret="", status=200):
    me = request.user
    bots = list(api_bots.bots_of(me).prefetch_related(_active_tokens()))
    context = {
        "my_tokens": me.access_tokens.filter(revoked_at__isnull=True).order_by("-created_at"),
        "bots": bots,
        "max_bots": api_bots.MAX_BOTS,
        "max_tokens": tokens.MAX_TOKENS,
        "token_form": token_form or TokenForm(accounts=[me, *bots]),
        "bot_form": bot_form or BotForm(),
        "made": made,
        "secret": secret,
    }
    response = render(request, "accounts/api_tokens.html", context, status=status)
    add_never_cache_headers(response)
    return response


def _too_many(request):
    """The 429 answer once the player has made too many tokens and bots lately, else None."""
    seconds = limits.wait_then_record(MADE_LIMIT, MADE_RATES, str(request.user.pk))
    if seconds <= 0:
        return None
    return limits.too_many(
        request,
        seconds,
        _("You made many tokens and bot accounts lately. Try again in %(wait)s.")
        % {"wait": wait_words(seconds)},
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def tokens_page(request):
    """The page; its POST makes a token and answers with the page and the secret, once."""
    if request.method == "GET":
        return _page(request)
    accounts = [request.user, *api_bots.bots_of(request.user)]
    form = TokenForm(request.POST, accounts=accounts)
    if not form.is_valid():
        return _page(request, token_form=form, status=400)
    if refused := _too_many(request):
        return refused
    try:
        token, secret = tokens.create_token(
            form.cleaned_data["account"],
            name=form.cleaned_data["name"],
            scope=form.cleaned_data["scope"],
        )
    except tokens.TokenRefused as refused:
        form.add_error(None, str(refused))
        return _page(request, token_form=form, status=400)
    return _page(request, made=token, secret=secret)


@login_required
@require_POST
def revoke_token(request, token_id):
    """Revoke one of the player's tokens or of their bots' (404 for anyone else's)."""
    me = request.user
    token = (
        AccessToken.objects.filter(pk=token_id, revoked_at__isnull=True)
        .filter(Q(user=me) | Q(user__bot_owner=me, user__is_active=True))
        .select_related("user")
        .first()
    )
    if token is None or not tokens.revoke(token.user, token.pk):
        raise Http404("No such token of yours.")
    messages.success(
        request, _("The token “%(name)s” is revoked: it no longer works.") % {"name": token.name}
    )
    return redirect("accounts:api_tokens")


@login_required
@require_POST
def make_bot(request):
    form = BotForm(request.POST)
    if not form.is_valid():
        return _page(request, bot_form=form, status=400)
    if refused := _too_many(request):
        return refused
    try:
        bot = api_bots.create_bot(request.user, username=form.cleaned_data["username"])
    except api_bots.BotRefused as refused:
        form.add_error("username", str(refused))
        return _page(request, bot_form=form, status=400)
    messages.success(
        request,
        _("The bot account %(name)s is made. Make it a token to let it play.")
        % {"name": bot.username},
    )
    return redirect("accounts:api_tokens")


@login_required
@require_POST
def close_bot(request, bot_id):
    """Close one of the player's bot accounts (404 for anyone else's)."""
    try:
        bot = api_bots.close_bot(request.user, bot_id)
    except api_bots.BotRefused:
        raise Http404("No such bot account of yours.") from None
    messages.success(
        request,
        _("The bot account %(name)s is closed; its tokens no longer work.")
        % {"name": bot.username},
    )
    return redirect("accounts:api_tokens")
