"""The README's commands work in a fresh clone as written, and what it points at exists."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.commands import COMMANDS, parser
from games.rules.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
RULES = ".venv/bin/python -m games.rules "
BENCHMARKS = ".venv/bin/python -m benchmarks "
# The quick ones run; the others (minutes of benchmark or duel) have their arguments checked.
RUN = {"deal", "score", "best", "simulate"}


def command_lines(prefix: str) -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith(prefix)]


def test_the_readme_shows_every_command_of_the_rules_command_line():
    shown = {shlex.split(line.removeprefix(RULES))[0] for line in command_lines(RULES)}
    usage = build_parser().format_usage()  # "usage: python -m games.rules [-h] {score,...} ..."
    commands = re.search(r"\{([\w,-]+)\}", usage).group(1).split(",")
    assert shown == set(commands)


def words_and_input(line: str, prefix: str) -> tuple[list[str], str | None]:
    words = shlex.split(line.removeprefix(prefix).replace("<", " < "))
    if "<" not in words:
        return words, None
    at = words.index("<")
    return words[:at], (ROOT / words[at + 1]).read_text()


def run(module: str, words: list[str], stdin: str | None) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, *words],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


@pytest.mark.parametrize("line", command_lines(RULES))
def test_each_rules_line_works_as_written(line):
    words, stdin = words_and_input(line, RULES)
    run("games.rules", words, stdin)


@pytest.mark.parametrize("line", command_lines(BENCHMARKS))
def test_each_benchmarks_line_names_a_command_and_its_options_as_written(line):
    (name, *words), stdin = words_and_input(line, BENCHMARKS)
    assert name in COMMANDS, f"python -m benchmarks has no command {name!r}"
    if name in RUN:
        run("benchmarks", [name, *words], stdin)
        return
    parser(name).parse_args(words)  # exits (SystemExit) on an unknown option


def test_every_file_the_readme_points_at_exists():
    linked = re.findall(r"\]\(([^)#:]+)\)", README)
    named = re.findall(
        r"`((?:docs|games|tests|microchip_site|accounts|benchmarks)/[\w./-]+)`", README
    )
    missing = [path for path in {*linked, *named} if not (ROOT / path).exists()]
    assert missing == []


def test_the_readme_stays_short():
    assert len(README.encode()) <= 16 * 1024
