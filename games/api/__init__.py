"""The public API, `/api/v1/` (issue 23): JSON over HTTP for third-party clients and bots.

Built with django-ninja: the endpoints are typed functions whose types make the OpenAPI schema
(`/api/v1/openapi.json`) and its browsable docs (`/api/v1/docs`). Like the site's views they are
thin: they read through games/access.py, games/drawing/ and history, and change games only through
games/play/actions/, so a move made here is checked, recorded, pushed and emailed exactly as one
made on the page. docs/api.md says how to use it.
"""
