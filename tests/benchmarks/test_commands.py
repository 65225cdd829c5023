"""`python -m benchmarks`: one entry for every tool, each command's options as it had them
(the platform's set Django up themselves), and plain errors, never a traceback."""

import subprocess
import sys

import pytest
from django.conf import settings

from benchmarks import commands


def benchmarks(*words: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *words],
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=120,
    )


def test_without_a_command_it_lists_them_all_and_fails():
    done = benchmarks()
    assert done.returncode == 2 and done.stdout == ""
    for name, command in commands.COMMANDS.items():
        assert f"  {name}" in done.stderr and command.help in done.stderr


def test_an_unknown_command_is_named_in_one_line():
    done = benchmarks("bench_load")
    assert done.returncode == 2
    assert "python -m benchmarks: unknown command 'bench_load'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_platform_command_sets_django_up_and_reports_bad_options_plainly():
    done = benchmarks("generate", "--games", "0")
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("CommandError: Need at least one game"), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", commands.COMMANDS)
def test_every_command_shows_its_options(name, monkeypatch, capsys):
    # Django is already set up here (pytest-django); the subprocess test above sets it up.
    monkeypatch.setattr(commands, "set_up_django", lambda argv: None)
    try:
        status = commands.main([name, "--help"])
    except SystemExit as exited:  # argparse's own exit, as Django's commands let it
        status = exited.code
    assert status == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m benchmarks {name} ")


def test_a_command_without_options_refuses_one(monkeypatch, capsys):
    monkeypatch.setattr(commands, "set_up_django", lambda argv: None)
    with pytest.raises(SystemExit) as exited:
        commands.main(["push-cost", "--rounds", "3"])
    assert exited.value.code == 2
    assert "unrecognized arguments: --rounds 3" in capsys.readouterr().err
