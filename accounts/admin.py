from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from .forms import NOTIFICATION_FIELDS, PlayerChangeForm, PlayerCreationForm
from .models import AccessToken, User


class BotAccountFilter(admin.SimpleListFilter):
    """Bot accounts (played through the API by their owners' programs, accounts/api_bots.py),
    computer players (played by the server, accounts/bots.py) or people."""

    title = _("kind of player")
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return [
            ("bot_account", _("bot accounts")),
            ("computer", _("computer players")),
            ("person", _("people")),
        ]

    def queryset(self, request, queryset):
        if self.value() == "bot_account":
            return queryset.filter(bot_owner__isnull=False)
        if self.value() == "computer":
            return queryset.filter(bot_level__isnull=False)
        if self.value() == "person":
            return queryset.filter(bot_owner__isnull=True, bot_level__isnull=True)
        return queryset


@admin.register(User)
class PlayerAdmin(UserAdmin):
    add_form = PlayerCreationForm
    form = PlayerChangeForm
    fieldsets = (
        *UserAdmin.fieldsets,
        (_("Preferences"), {"fields": ("time_zone", "colour_blind")}),
        (_("Email"), {"fields": NOTIFICATION_FIELDS}),
        # Changed here, it shows in the account's history (the admin's log).
        (_("Moderation"), {"fields": ("chat_muted",)}),
        # Who runs a bot account is set when it is made (accounts/api_bots.py), never moved.
        (_("Bot account"), {"fields": ("bot_owner",)}),
    )
    readonly_fields = ("bot_owner",)
    list_filter = (*UserAdmin.list_filter, BotAccountFilter, "chat_muted")


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    """The API tokens (accounts/tokens.py). The digest is never shown: it is all that stands
    for the secret, and a staff member has no use for it. Tokens are made by their owners only."""

    list_display = ("user", "name", "scope", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("scope", ("revoked_at", admin.EmptyFieldListFilter))
    list_select_related = ("user",)
    search_fields = ("user__username", "name", "prefix")
    fields = ("user", "name", "scope", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    actions = ["revoke"]
    ordering = ("-created_at",)

    def has_add_permission(self, request):
        return False

    @admin.action(description=_("Revoke the selected tokens"), permissions=["change"])
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(
            request,
            ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", count)
            % {"count": count},
            messages.SUCCESS,
        )
