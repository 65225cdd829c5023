"""Puzzles cut from finished games (issue 38): arrangement puzzles whose best is proved by the
solver and drafting puzzles where the engine finds one tile clearly best (games/rules/
puzzles.py), each played on the game's own board drawing, rated with OpenSkill, with a streak, a
history, and a daily puzzle (docs/engine.md, "Puzzles on the site")."""
