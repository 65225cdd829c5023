"""What the code imports is declared where it belongs, and the two locks agree.

`requirements.lock` holds the production dependencies (`[project] dependencies`) only;
`requirements-dev.lock` holds those at the very same versions plus the `dev` and `bench` extras.
"""

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from django.conf import settings

BASE = Path(settings.BASE_DIR)
FIRST_PARTY = {"games", "accounts", "infra", "microchip_site", "tests", "benchmarks"}
# The floor (benchmarks/floor/) is a Django project of its own: these are its packages.
FLOOR_PACKAGES = {"floorsite", "floorapp"}
# The benchmarks may use the `bench` extra; the product may not.
BENCH_CODE = ("benchmarks/",)
TOOLS_ONLY = {"pytest", "ruff", "playwright", "hypothesis", "pip-tools", "import-linter"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(requirements) -> set[str]:
    return {normalized(re.match(r"[A-Za-z0-9._-]+", line).group()) for line in requirements}


def project():
    return tomllib.loads((BASE / "pyproject.toml").read_text())["project"]


def pins(lock: str) -> dict[str, str]:
    text = (BASE / lock).read_text()
    return {
        normalized(name): version
        for name, version in re.findall(r"^([A-Za-z0-9][\w.-]*)==([^\s;\\]+)", text, re.M)
    }


def third_party_imports(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules - FIRST_PARTY - FLOOR_PACKAGES - set(sys.stdlib_module_names) - {"__future__"}


def test_every_third_party_import_is_declared_where_it_belongs():
    production = requirement_names(project()["dependencies"])
    extras = {
        name: requirement_names(deps) for name, deps in project()["optional-dependencies"].items()
    }
    distributions = packages_distributions()
    undeclared = []
    for folder in ("games", "accounts", "microchip_site", "benchmarks", "tests"):
        for path in sorted((BASE / folder).rglob("*.py")):
            relative = path.relative_to(BASE).as_posix()
            allowed = set(production)
            if folder == "tests":
                allowed |= extras["dev"] | extras["bench"]
            elif relative.startswith(BENCH_CODE):
                allowed |= extras["bench"]
            for module in sorted(third_party_imports(path)):
                names = {normalized(dist) for dist in distributions.get(module, [module])}
                if not names & allowed:
                    undeclared.append(f"{relative}: {module} ({', '.join(sorted(names))})")
    assert not undeclared, "imported but not declared in pyproject.toml:\n" + "\n".join(undeclared)


def test_the_production_lock_holds_no_development_tool():
    production = pins("requirements.lock")
    assert not TOOLS_ONLY & set(production)
    assert requirement_names(project()["dependencies"]) <= set(production)


def test_the_dev_lock_pins_every_production_package_at_the_same_version():
    production, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    differing = {name: (version, dev.get(name)) for name, version in production.items()}
    assert {name: pair for name, pair in differing.items() if pair[0] != pair[1]} == {}
    extras = project()["optional-dependencies"]
    assert requirement_names(extras["dev"]) | requirement_names(extras["bench"]) <= set(dev)
