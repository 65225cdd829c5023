from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    fieldsets = (
        *UserAdmin.fieldsets,
        ("Preferences", {"fields": ("time_zone", "colour_blind")}),
        (
            "Email",
            {
                "fields": (
                    "email_your_turn",
                    "email_reminder",
                    "email_timeout",
                    "email_invitation",
                    "email_game_started",
                    "email_game_over",
                    "email_daily_digest",
                )
            },
        ),
    )
