"""The commands of `python -m benchmarks`, and how each one starts.

Those that play on the platform set Django up first, as `manage.py` does: DJANGO_SETTINGS_MODULE
(microchip_site.settings unless set, or `--settings`), on the database, Redis and var directory
of the environment (DATABASE_URL, REDIS_URL, MICROCHIP_VAR_DIR). Four of them are Django
management commands run outside `manage.py` (this package's modules): Django parses their
options, and a CommandError is one line on standard error and exit status 1. The rules' commands
need no Django; they print JSON, and bad input is one line and exit status 2.
"""

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

PROG = "python -m benchmarks"


@dataclass(frozen=True)
class Command:
    module: str  # a Django management command (`Command`), or `main(argv) -> int` and
    # `build_parser()`, or (options=False) `main()`
    help: str
    django: bool = False  # plays on the platform: Django is set up before the module is imported
    options: bool = True  # False: `main()` takes none (the environment sizes its run)


COMMANDS = {
    "load": Command(
        "benchmarks.commands.load",
        "many whole games at once against a running platform: latency, CPU per move",
        django=True,
    ),
    "soak": Command(
        "benchmarks.commands.soak",
        "players on a running platform for a long time: the curve of what it holds",
        django=True,
    ),
    "generate": Command(
        "benchmarks.commands.generate",
        "fill a database with players and real, replayable games",
        django=True,
    ),
    "storage": Command(
        "benchmarks.commands.storage",
        "time the sweep and the history pages on a database of many games",
        django=True,
    ),
    "push-cost": Command(
        "benchmarks.loadtest.pushcost",
        "CPU of drawing one page's pushes, in one process",
        django=True,
        options=False,
    ),
    "answer-cost": Command(
        "benchmarks.loadtest.answercost",
        "CPU of a move's answer, drawn and not, beside the floor's",
        django=True,
        options=False,
    ),
    "in-process": Command(
        "benchmarks.loadtest.inprocess",
        "CPU of a move's reads and cache round trips, in one process",
        django=True,
        options=False,
    ),
    "home": Command(
        "benchmarks.home_page",
        "CPU and size of the home page a visitor meets, in one process",
        django=True,
    ),
    "rules": Command(
        "benchmarks.bench_rules", "boards scored and games played per second (the rules engine)"
    ),
    "solver": Command("benchmarks.bench_solver", "the best-chip solver's time to a proved optimum"),
    "simulate": Command("benchmarks.simulate", "whole games of simple automatic players"),
    "duel": Command("benchmarks.duel", "one strong bot against easy bots: win rate and margins"),
    "tournament": Command(
        "benchmarks.commands.tournament",
        "a whole Swiss of computer players on the platform: rounds' times, the recount",
        django=True,
    ),
    "pairing": Command(
        "benchmarks.tournament_pairing",
        "tournament pairing for a large field: time, repeat meetings beside their bound",
    ),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:{width}}  {command.help}" for name, command in COMMANDS.items()]
    return "\n".join(
        [f"usage: {PROG} <command> [options]", "", "commands:", *lines, "",
         f"`{PROG} <command> --help` shows a command's options."]
    )  # fmt: skip


def main(argv: Sequence[str]) -> int:
    """Run one command; return the exit status."""
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    name, rest = argv[0], list(argv[1:])
    command = COMMANDS.get(name)
    if command is None:
        print(f"{PROG}: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    if command.django:
        set_up_django(rest)
    module = importlib.import_module(command.module)
    if hasattr(module, "Command"):
        # Django's own parser, checks and errors, as `manage.py <name>` ran it.
        module.Command().run_from_argv([PROG, name, *rest])
        return 0
    if not command.options:
        parser(name).parse_args(rest)  # --help, or an error for any option
        module.main()
        return 0
    return module.main(rest)


def parser(name: str) -> argparse.ArgumentParser:
    """The parser of the command `name`'s options (for the platform's, after Django's set-up)."""
    command = COMMANDS[name]
    module = importlib.import_module(command.module)
    if hasattr(module, "Command"):
        return module.Command().create_parser(PROG, name)
    if command.options:
        return module.build_parser()
    bare = argparse.ArgumentParser(
        prog=f"{PROG} {name}",
        description=module.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # Read by set_up_django, as Django's own commands take them.
    bare.add_argument("--settings", help="the settings module (DJANGO_SETTINGS_MODULE)")
    bare.add_argument("--pythonpath", help="a directory to add to the Python path")
    return bare


def set_up_django(argv: Sequence[str]) -> None:
    """Set Django up for the platform, honouring `--settings` and `--pythonpath` in `argv` as
    `manage.py` does (before the settings are read)."""
    from django.core.management.base import CommandParser, handle_default_options

    parser = CommandParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--settings")
    parser.add_argument("--pythonpath")
    options, _ = parser.parse_known_args(argv)
    handle_default_options(options)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "microchip_site.settings")
    import django

    django.setup()
