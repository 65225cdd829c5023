from django.utils import timezone, translation


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


class PlayerLanguageMiddleware:
    """A signed-in player's language is the one they chose in their settings; without one, the
    browser's (Django's LocaleMiddleware, before this, picked it from the language cookie or
    Accept-Language)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.language:
            translation.activate(user.language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)
