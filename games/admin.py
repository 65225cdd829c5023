"""The admin's view of the table talks and of the players' reports: every message, deleted ones
too (a report may be about one), and a way to take messages out of their talk for everyone
(games/play/chat.py); each report with its game's talk and moves, and what may be done about
it (mute, close the account), logged in the admin's history."""

from django.contrib import admin, messages
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts.models import User
from games import move_log
from games.models import ChatMessage, Report
from games.play import chat as talk


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("created_at", "game", "author", "text", "deleted_at")
    list_filter = ("deleted_at",)
    search_fields = ("text", "author__username", "=game__id")
    list_select_related = ("game", "author")
    readonly_fields = ("game", "author", "text", "version", "created_at", "deleted_at")
    date_hierarchy = "created_at"
    actions = ("remove_from_the_talk",)

    def has_add_permission(self, request):
        return False  # players write messages; the admin does not write in their name

    def has_delete_permission(self, request, obj=None):
        return False  # kept: taken out of the talk instead

    @admin.action(description=gettext_lazy("Take out of the table talk for everyone"))
    def remove_from_the_talk(self, request, queryset):
        removed = 0
        for message in queryset.select_related("game", "author"):
            if talk.remove_message(game_id=message.game_id, message_id=message.pk):
                removed += 1
                self.log_change(request, message, "Taken out of the table talk.")
        self.message_user(
            request,
            ngettext(
                "%(count)d message taken out of its table talk.",
                "%(count)d messages taken out of their table talk.",
                removed,
            )
            % {"count": removed},
            messages.SUCCESS,
        )


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """A report with what the admin needs to judge it: the message, the game's whole talk
    (deleted messages too) and its moves; and what they may do about it, each logged in the
    reported player's history."""

    list_display = ("created_at", "reason", "reported", "reporter", "game", "resolved_at")
    list_filter = ("resolved_at", "reason")
    search_fields = ("reported__username", "reporter__username", "details")
    list_select_related = ("reported", "reporter", "game")
    readonly_fields = (
        "reporter",
        "reported",
        "reported_account",
        "game",
        "reason",
        "details",
        "message_text",
        "created_at",
        "resolved_at",
        "the_talk",
        "the_moves",
    )
    fields = readonly_fields
    actions = ("resolve", "mute_reported", "close_reported_accounts")

    def has_add_permission(self, request):
        return False

    @admin.display(description=gettext_lazy("The reported player's account"))
    def reported_account(self, report):
        user = report.reported
        if not user.is_active:
            state = _("closed")
        else:
            state = _("muted") if user.chat_muted else _("active")
        url = reverse("admin:accounts_user_change", args=[user.pk])
        return format_html('<a href="{}">{}</a> ({})', url, user.username, state)

    @admin.display(description=gettext_lazy("The message reported"))
    def message_text(self, report):
        message = report.message
        if message is None:
            return "-"
        deleted = " " + _("(deleted)") if message.deleted_at else ""
        return f"{message.created_at:%Y-%m-%d %H:%M} {message.author}: {message.text}{deleted}"

    @admin.display(description=gettext_lazy("The game's table talk"))
    def the_talk(self, report):
        if report.game is None:
            return "-"
        rows = report.game.chat_messages.select_related("author").order_by("pk")
        return (
            format_html_join(
                mark_safe("<br>"),
                "{} {}: {}{}",
                (
                    (
                        f"{message.created_at:%Y-%m-%d %H:%M}",
                        message.author.username,
                        message.text,
                        " " + _("(deleted)") if message.deleted_at else "",
                    )
                    for message in rows
                ),
            )
            or "-"
        )

    @admin.display(description=gettext_lazy("The game's moves"))
    def the_moves(self, report):
        game = report.game
        if game is None:
            return "-"
        log = move_log.read_log(game, list(game.seats.select_related("user")))
        return (
            format_html_join(
                mark_safe("<br>"),
                "{} {}",
                ((f"{entry.when:%Y-%m-%d %H:%M}", entry.text()) for entry in log.entries),
            )
            or "-"
        )

    def _resolve(self, request, queryset, done) -> None:
        """Resolve the reports; `done(count)` says so."""
        count = queryset.filter(resolved_at=None).update(resolved_at=timezone.now())
        self.message_user(request, done(count) % {"count": count}, messages.SUCCESS)

    @admin.action(description=gettext_lazy("Resolve, doing nothing more"))
    def resolve(self, request, queryset):
        self._resolve(
            request,
            queryset,
            lambda count: ngettext(
                "%(count)d report resolved: nothing else done.",
                "%(count)d reports resolved: nothing else done.",
                count,
            ),
        )

    @admin.action(description=gettext_lazy("Mute the reported players in table talks, and resolve"))
    def mute_reported(self, request, queryset):
        for user in {report.reported for report in queryset.select_related("reported")}:
            if not user.chat_muted:
                User.objects.filter(pk=user.pk).update(chat_muted=True)
                self.log_change(request, user, "Muted in table talks (after a report).")
        self._resolve(
            request,
            queryset,
            lambda count: ngettext(
                "%(count)d report resolved: the players are muted.",
                "%(count)d reports resolved: the players are muted.",
                count,
            ),
        )

    @admin.action(description=gettext_lazy("Close the reported players' accounts, and resolve"))
    def close_reported_accounts(self, request, queryset):
        for user in {report.reported for report in queryset.select_related("reported")}:
            if user.is_active and not user.is_staff:
                User.objects.filter(pk=user.pk).update(is_active=False)
                self.log_change(request, user, "Account closed (after a report).")
        self._resolve(
            request,
            queryset,
            lambda count: ngettext(
                "%(count)d report resolved: the accounts are closed (staff are never closed here).",
                "%(count)d reports resolved: the accounts are closed (staff are never closed "
                "here).",
                count,
            ),
        )
