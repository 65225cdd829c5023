"""Every repository path a comment or docstring cites exists: a module moved or renamed leaves no
comment pointing at where it was.

A cited path is a word with a folder and one of the suffixes below (`games/play/clock.py`,
`partials/seat.html`, `games/tiles.css`), read in the comments and docstrings of the code, the
templates' comments and the static files' comments. It may be written from the repository's
root, from `games/`, from the templates' folders or from a static folder, as the code's
comments do; it must exist under one of them.
"""

import io
import re
import tokenize
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
SCANNED = ("games", "accounts", "infra", "microchip_site", "benchmarks", "templates", "tests")
CITED = re.compile(r"(?<![\w./-])((?:[a-z_]+/)+[a-z_0-9-]+\.(?:py|html|js|css|md))\b")
# Comments in templates ({# #}, {% comment %}, <!-- -->) and in scripts and style sheets.
MARKUP_COMMENT = re.compile(
    r"\{#.*?#\}|\{% comment %\}.*?\{% endcomment %\}|<!--.*?-->|/\*.*?\*/|(?<![:\"'])//[^\n]*",
    re.S,
)


def bases() -> list[Path]:
    return [
        ROOT,
        ROOT / "games",
        ROOT / "templates",
        ROOT / "templates/games",
        *ROOT.glob("*/static"),
    ]


def python_comments(path: Path):
    """(line, text) of each comment and each triple-quoted string (the docstrings) of a file."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    for token in tokens:
        quoted = token.string.lstrip("rbuRBU")[:3]
        docstring = token.type == tokenize.STRING and quoted in (3 * '"', 3 * "'")
        if token.type == tokenize.COMMENT or docstring:
            yield token.start[0], token.string


def markup_comments(path: Path):
    text = path.read_text()
    for match in MARKUP_COMMENT.finditer(text):
        yield text.count("\n", 0, match.start()) + 1, match.group(0)


def comments():
    """(file, line, text) of every comment and docstring of the scanned folders."""
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            if "migrations" in path.parts or not path.is_file():
                continue
            if path.suffix == ".py":
                read = python_comments
            elif path.suffix in (".html", ".js", ".css") and ".min." not in path.name:
                read = markup_comments
            else:
                continue
            for line, text in read(path):
                yield path.relative_to(ROOT), line, text


def test_every_path_a_comment_cites_exists():
    roots = bases()
    cited, missing = 0, []
    for path, line, text in comments():
        for match in CITED.finditer(text):
            cited += 1
            name = match.group(1)
            if not any((root / name).exists() for root in roots):
                missing.append(f"{path}:{line} cites {name}")
    assert cited > 300  # the scan reads the comments (some 660 citations when it was written)
    assert not missing, "\n".join(missing)


def test_a_moved_module_is_found():
    # The scan's own check: a citation of a path that is not there is found.
    stale = "games/play/again.py"
    assert not any((root / stale).exists() for root in bases())
    assert CITED.findall(f"# the rematch (see {stale})") == [stale]
    assert CITED.findall("a ratio, 2.5x. Not a path.py") == []
