"""The slow tests named in tests/conftest.py exist: a renamed test would silently join the fast
suite (`manage.py test --fast`) while still taking its seconds."""

import ast
from pathlib import Path

from django.conf import settings

from tests.conftest import SLOW_PATHS, SLOW_TESTS

BASE = Path(settings.BASE_DIR)


def test_every_slow_path_and_test_named_exists():
    missing = [path for path in SLOW_PATHS if not (BASE / path).exists()]
    for nodeid in sorted(SLOW_TESTS):
        path, name = nodeid.split("::")
        file = BASE / path
        defined = file.exists() and any(
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
            for node in ast.walk(ast.parse(file.read_text()))
        )
        if not defined:
            missing.append(nodeid)
    assert missing == []
