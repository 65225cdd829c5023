from django.contrib.admin.apps import AdminConfig


class StaffAdminConfig(AdminConfig):
    """django.contrib.admin with the site's own admin site: entered through the site's log-in,
    with a second factor (accounts/admin_site.py)."""

    default_site = "accounts.admin_site.StaffAdminSite"
