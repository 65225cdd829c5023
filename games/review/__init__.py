"""The engine's review of finished games (issue 38): each draft each player chose, judged by the
rules package's engine (games/rules/review.py), and each player's hindsight
(games/rules/hindsight.py), computed by a Celery task after the post-game analysis and stored
once per game (docs/engine.md, "On the site")."""
