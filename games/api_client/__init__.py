"""A bot that plays Microchip Online through its public API, as anyone's program could.

It speaks HTTP with httpx and thinks with the rules package's strong player (games/rules/bots.py);
nothing else of the platform: no Django, no database. Run it with a play token:

    python -m games.api_client --url https://microchip.example.org --token mco_... --seek 2

It keeps the stream (`GET /api/v1/stream`) open, plays each game that waits for its move, accepts
invitations if asked to, seeks new games until it has played as many as asked, and reconnects
when the stream drops, resuming from the versions it last saw. docs/api.md describes the API.
"""
