"""The admin's view of tournaments: read-only, as every change goes through
games/tournaments/actions/ (an organiser's cancel is the way to call one off)."""

from django.contrib import admin

from .models import Entry, Tournament


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("user", "seed", "section", "rating", "withdrawn_at", "place", "points")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "format", "status", "table_size", "round", "rounds", "starts_at")
    list_filter = ("status", "format", "access")
    search_fields = ("name", "created_by__username")
    list_select_related = ("created_by",)
    date_hierarchy = "starts_at"
    inlines = (EntryInline,)

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in Tournament._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
