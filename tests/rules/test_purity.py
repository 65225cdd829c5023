"""games/rules is pure Python: no Django, and chance only from a seeded random.Random."""

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "games" / "rules"


def test_importing_the_rules_loads_no_django():
    code = (
        "import sys, games.rules, games.rules.cli, benchmarks.bench_rules, benchmarks.duel, "
        "benchmarks.simulate, benchmarks.bench_solver; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=PACKAGE.parents[1],
    ).stdout  # fmt: skip
    assert out.strip() == "[]"


def test_no_global_random_and_no_django_in_the_source():
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(n.startswith("django") for n in names), path
                if isinstance(node, ast.ImportFrom) and node.module == "random":
                    raise AssertionError(f"{path.name}: from random import ...")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{path.name}: random.{node.attr}"
