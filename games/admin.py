"""The admin's view of the table talk: every message, deleted ones too (a report may be about
one), and a way to take messages out of their talk for everyone (games/play/chat.py)."""

from django.contrib import admin, messages

from games.models import ChatMessage
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

    @admin.action(description="Take out of the table talk for everyone")
    def remove_from_the_talk(self, request, queryset):
        removed = 0
        for message in queryset.select_related("game", "author"):
            if talk.remove_message(game_id=message.game_id, message_id=message.pk):
                removed += 1
                self.log_change(request, message, "Taken out of the table talk.")
        self.message_user(
            request, f"{removed} message(s) taken out of their table talk.", messages.SUCCESS
        )
