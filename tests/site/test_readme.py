"""The README's commands work in a fresh clone as written, and what it points at exists."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from games.tools.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
TOOLS = ".venv/bin/python -m games.tools "
# The quick ones run; the others (minutes of benchmark or duel) have their arguments checked.
RUN = {"deal", "score", "best", "simulate"}


def tool_lines() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith(TOOLS)]


def test_the_readme_shows_every_command_of_the_rules_tools():
    shown = {shlex.split(line.removeprefix(TOOLS))[0] for line in tool_lines()}
    usage = build_parser().format_usage()  # "usage: python -m games.tools [-h] {score,...} ..."
    commands = re.search(r"\{([\w,-]+)\}", usage).group(1).split(",")
    assert shown == set(commands)


@pytest.mark.parametrize("line", tool_lines())
def test_each_rules_tool_line_works_as_written(line):
    words = shlex.split(line.removeprefix(TOOLS).replace("<", " < "))
    stdin = None
    if "<" in words:
        at = words.index("<")
        stdin = (ROOT / words[at + 1]).read_text()
        words = words[:at]
    if words[0] not in RUN:
        build_parser().parse_args(words)  # exits (SystemExit) on an unknown option
        return
    done = subprocess.run(
        [sys.executable, "-m", "games.tools", *words],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_every_file_the_readme_points_at_exists():
    linked = re.findall(r"\]\(([^)#:]+)\)", README)
    named = re.findall(r"`((?:docs|games|tests|microchip_site|accounts)/[\w./-]+)`", README)
    missing = [path for path in {*linked, *named} if not (ROOT / path).exists()]
    assert missing == []


def test_the_readme_stays_short():
    assert len(README.encode()) <= 16 * 1024
