"""`python -m games.rules`: the rules engine's command line (cli.py)."""

import sys

from games.rules.cli import main, quiet_after_a_closed_pipe

if __name__ == "__main__":
    sys.exit(quiet_after_a_closed_pipe(main()))
