from django.utils import timezone


class UserTimezoneMiddleware:
    """Show every time in the signed-in player's own time zone."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            timezone.activate(user.zone)
        else:
            timezone.deactivate()
        return self.get_response(request)
