"""Reporting a player or a message to the admins: a short form, then back where the player
came from."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.models import User
from games.models import Report
from games.play import reports
from games.play.errors import ActionRefused
from games.play.rate_limits import REPORT_LOOKUPS, REPORTS, per_player, seconds_to_wait, too_many


class ReportForm(forms.Form):
    reason = forms.ChoiceField(
        label=gettext_lazy("Reason"), choices=Report.Reason.choices, widget=forms.RadioSelect
    )
    details = forms.CharField(
        label=gettext_lazy("What happened (optional)"),
        required=False,
        max_length=reports.MAX_DETAILS,
        widget=forms.Textarea(attrs={"rows": 4}),
    )


def _number(value) -> int | None:
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        return int(value)
    return None


@login_required
@require_http_methods(["GET", "POST"])
@per_player(REPORTS)
def report(request):
    """`?player=<name>` (and `&game=<id>`, where it happened) or `?message=<id>`, a message the
    reporter may read (any other is not found: the page names its author and its game). Opening
    the form counts against its own rate limit, so that no script walks the messages."""
    if request.method == "GET":
        wait = seconds_to_wait(request, REPORT_LOOKUPS)
        if wait is not None:
            return too_many(request, REPORT_LOOKUPS, wait)
    message_id = _number(request.GET.get("message"))
    game_id = _number(request.GET.get("game"))
    name = request.GET.get("player", "")
    if message_id is not None:
        message = reports.readable_message(request.user, message_id)
        if message is None:
            raise Http404("No such message.")
        about, back = message.author, reverse("games:game", args=[message.game_id]) + "#chat"
    else:
        about = User.objects.named(name).filter(is_active=True).first() if name else None
        if about is None:
            raise Http404("No such player.")
        back = reverse("games:game", args=[game_id]) if game_id else None
        back = back or reverse("players:profile", args=[about.username])
    form = ReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            reports.report(
                reporter=request.user,
                reported_name=about.username,
                message_id=message_id,
                game_id=game_id,
                reason=form.cleaned_data["reason"],
                details=form.cleaned_data["details"],
            )
        except ActionRefused as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, _("Thank you: your report goes to the site's admins."))
            return redirect(back)
    context = {"form": form, "about": about, "message_id": message_id, "back": back}
    return render(request, "games/report.html", context)
