from django.conf import settings

from microchip_site.translations import scripts_catalogue_version


def site(request):
    return {"site_name": settings.SITE_NAME, "catalogue_version": scripts_catalogue_version()}
