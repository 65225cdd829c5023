from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .forms import NOTIFICATION_FIELDS, PlayerChangeForm, PlayerCreationForm
from .models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    add_form = PlayerCreationForm
    form = PlayerChangeForm
    fieldsets = (
        *UserAdmin.fieldsets,
        ("Preferences", {"fields": ("time_zone", "colour_blind")}),
        ("Email", {"fields": NOTIFICATION_FIELDS}),
        # Changed here, it shows in the account's history (the admin's log).
        ("Moderation", {"fields": ("chat_muted",)}),
    )
    list_filter = (*UserAdmin.list_filter, "chat_muted")
