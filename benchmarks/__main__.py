"""`python -m benchmarks <command> [options]`: the benchmarks, load tests and simulations.

Run from the project's root in its environment, e.g. `.venv/bin/python -m benchmarks simulate
--players 5 --seed 1`. `python -m benchmarks` alone lists the commands, `python -m benchmarks
<command> --help` shows one's options (benchmarks/commands/__init__.py).
"""

import sys

from benchmarks.commands import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
