from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .forms import NOTIFICATION_FIELDS
from .models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    fieldsets = (
        *UserAdmin.fieldsets,
        ("Preferences", {"fields": ("time_zone", "colour_blind")}),
        ("Email", {"fields": NOTIFICATION_FIELDS}),
    )
