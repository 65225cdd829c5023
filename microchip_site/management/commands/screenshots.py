"""Write the README's screenshots (docs/screenshots/*.png) anew.

Runs the browser tests (tests/e2e) with MICROCHIP_SCREENSHOTS set, which is when they save the
pictures they take; an ordinary `manage.py test` writes none. Arguments go to pytest.
"""

import os
import shutil
import sys

from django.core.management.base import BaseCommand

from microchip_site.management.commands.test import run_pytest


class Command(BaseCommand):
    help = "Run the browser tests that take the README's screenshots, saving them in docs/."

    def run_from_argv(self, argv):
        if not (shutil.which("chromium") or os.path.exists("/usr/bin/chromium")):
            sys.exit("The screenshots need Chromium (Debian: apt-get install chromium).")
        sys.exit(run_pytest(["tests/e2e", "-q", *argv[2:]], MICROCHIP_SCREENSHOTS="1"))
