#!/usr/bin/env python3
"""Django's command-line utility for Microchip Online.

Run with any Python 3.11+: on first use it makes the project's virtual environment in `.venv`,
installs the locked dependencies, and re-runs itself inside it (see microchip_site/bootstrap.py).
"""

import os
import sys
from pathlib import Path


def main():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from microchip_site.bootstrap import ensure_environment

    ensure_environment()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
