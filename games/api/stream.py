"""The stream (placeholder until it lands)."""

from ninja import Router

router = Router()
