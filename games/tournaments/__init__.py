"""Tournaments: Swiss rounds and round-robin sections for tables of 2 to 5 players.

The modules here so far are pure (no Django, nothing of the platform; an import-linter contract
holds them): formats and points per place, seeding, who met whom, the Swiss pairing, round-robin
sections and their schedules, standings and the crosstable. The rules for players and the
algorithms are in docs/tournaments.md. This file re-exports nothing, so that the platform's parts
of tournaments can live beside these modules without loading them.
"""
