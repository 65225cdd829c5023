"""`python -m games.tools`: the rules engine's command line (cli.py)."""

import os
import sys

from games.tools.cli import main

if __name__ == "__main__":
    status = main()
    if status == 1:  # the reader closed the pipe: keep the shutdown quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(status)
