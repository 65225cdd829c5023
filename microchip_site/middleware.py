"""Requests refused before any view reads them."""

from django.http import HttpResponseBadRequest
from django.utils.translation import gettext as _


class RefuseNulInQuery:
    """A NUL character in a query parameter (its name or a value) is refused with 400, for every
    page and endpoint at once: no browser sends one, and PostgreSQL refuses it in a text
    parameter, which a view that looks the value up (a username, a filter) turned into a 500
    (issue 34). Forms refuse it in posted fields (Django's CharField)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if any(
            "\x00" in name or any("\x00" in value for value in values)
            for name, values in request.GET.lists()
        ):
            return HttpResponseBadRequest(
                _("The address holds a character no page takes (NUL)."),
                content_type="text/plain; charset=utf-8",
            )
        return self.get_response(request)
