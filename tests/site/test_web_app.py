"""The site installs as a web app: its manifest, linked from every page, with its icons."""

import json

from django.contrib.staticfiles import finders
from django.test import Client


def test_every_page_links_the_manifest_and_it_opens_on_the_dashboard(db):
    page = Client().get("/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page

    response = Client().get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["start_url"] == "/dashboard/" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes  # what browsers ask of an installable app
    for icon in manifest["icons"]:
        assert finders.find(icon["src"].removeprefix("/static/")), icon["src"]


def test_the_png_icons_are_the_sizes_they_say(db):
    for size in (192, 512):
        with open(finders.find(f"microchip/icon-{size}.png"), "rb") as png:
            header = png.read(24)
        assert header[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(header[16:20]), int.from_bytes(header[20:24])
        assert (width, height) == (size, size)
