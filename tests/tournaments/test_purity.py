"""The tournaments' pure modules load no Django and use no global random."""

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "games" / "tournaments"
PURE = [
    "formats", "meetings", "seeding", "pairing", "matching", "grouping", "sections",
    "round_robin", "standings",
]  # fmt: skip


def test_importing_the_pure_modules_loads_no_django():
    modules = ", ".join(f"games.tournaments.{name}" for name in PURE)
    code = f"import sys, {modules}; print(sorted(m for m in sys.modules if m.startswith('django')))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=PACKAGE.parents[1],
    ).stdout  # fmt: skip
    assert out.strip() == "[]"


def test_chance_only_from_a_seeded_generator():
    for name in PURE:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "random", name
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{name}: random.{node.attr}"
