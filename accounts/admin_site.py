"""The Django admin, entered through the site's own log-in, and only with a second factor.

Django's admin has a log-in form of its own, which no limit counted: 60 wrong passwords in 72 s
were all answered and the right one let the attacker in, while the site's log-in had locked the
account. Here the admin's log-in is allauth's `secure_admin_login`: a visitor is sent to the
site's log-in page (its lock per account, its limit per address, the second factor) and comes
back; the admin's own form is never shown, so it checks no password.

With ADMIN_REQUIRE_MFA (on unless DEBUG), a staff member may use the admin only if this session
was authenticated with their second factor (allauth's authentication records): one without an
authenticator app is told to set one up, one who logged in before setting it up (or by some way
that skipped it) to confirm with it (allauth's reauthentication by code).
"""

from allauth.account.authentication import get_authentication_records
from allauth.account.decorators import secure_admin_login
from allauth.mfa.models import Authenticator
from allauth.mfa.utils import is_mfa_enabled
from django.conf import settings
from django.contrib import admin
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _


def second_factor_used(request) -> bool:
    """Whether this session's user authenticated with their second factor, or need not."""
    user = request.user
    if not settings.ADMIN_REQUIRE_MFA:
        return True
    if not is_mfa_enabled(user, [Authenticator.Type.TOTP]):
        return False
    records = get_authentication_records(request, user)
    return any(record.get("method") == "mfa" for record in records)


class StaffAdminSite(admin.AdminSite):
    site_header = site_title = _("Microchip Online administration")

    def has_permission(self, request):
        return super().has_permission(request) and second_factor_used(request)

    def login(self, request, extra_context=None):
        user = request.user
        staff = user.is_authenticated and user.is_active and user.is_staff
        if staff and not second_factor_used(request):
            return self.second_factor_needed(request)
        return secure_admin_login(super().login)(request, extra_context)

    def second_factor_needed(self, request):
        """403: the admin needs this session to have used a second factor."""
        has_app = is_mfa_enabled(request.user, [Authenticator.Type.TOTP])
        back = request.GET.get("next") or request.path
        return render(
            request,
            "accounts/admin_needs_second_factor.html",
            {"has_app": has_app, "back": back},
            status=403,
        )
