"""The live layer: the events a change sends to open pages, and each page's socket.

changes.py says what the events are (plain dicts, each with its "type", and their groups);
pushes.py hands a committed change's events to the channel layer (push_sender.py, its loop);
consumers.py is the socket of every open page, which draws each event for its own viewer
(games/drawing/updates.py); sockets.py counts the sockets, layer_watch.py watches Redis.

The socket's protocol. Server to browser, JSON text messages:

``{"type": "push", "version": v, "html": ...}``
    the fragments that version v changed, each with its id (swapped by htmx, out of band).
    The page applies it only on top of version v - 1; further ahead, it asks for a resync.
``{"type": "resync", "version": v, "html": ...}``
    the whole game area (``#game``) at version v, and the online dots.
``{"type": "synced", "version": v}``
    the answer to a sync when the page is up to date (also proves the socket is alive).
``{"type": "lobby", "version": v, "html": ..., "started": b, "url": ...}``
    a waiting room's seats at version v (a seat taken or given up, the cancellation); with
    ``started`` the table has started and the page loads the game page (``url``) in place,
    then syncs. A waiting room connects with ``?lobby=<version>`` instead of ``?v=``.
``{"type": "presence", "html": ...}``
    online dots that changed.
``{"type": "user", "html": ...}``
    the nav badge and/or a notice (never a notice about the game the page shows).
``{"type": "queue", "html": ...}``
    the player's own Drafting-ahead panel of this game, which they changed on another page (not
    a new version of the game: nobody else's page hears of it).
``{"type": "rematch", "html": ...}``
    an ended game's rematch box (offered, or called off), drawn for this viewer.
``{"type": "chat", "id": n, "html": ..., "mine": b}``
    a message of the table talk, written (or deleted: drawn empty), for a viewer who may read
    it (games/chat.py); chat.js puts it in place. Not a version of the game.

Browser to server, JSON text: ``{"type": "sync", "version": v}`` ("I show version v": sent after
a gap and when the page wakes up) and ``{"type": "ping", "version": v, "visible": b}`` (a
heartbeat: a visible page keeps the presence fresh and records that its player has seen version
v, games/seen.py; a hidden one leaves the presence, so emails are no longer held back; a page
that shows less than the newest version this socket heard of, a push it could not draw while the
database was out of reach, is resynced; one that shows less than the socket sent crossed a push
on its way, and is not), and ``{"type": "looks", "version": v, "looks": ...}``
(the page shows version v with these looks, in the X-Page-Looks form of
games/drawing/cache/looks.py: sent after a move's answer that changed the pool, and after a
resync). The page's looks also travel in the address (``&looks=``) on every connection. With
them a push brings only the pieces that look different; a part the socket does not know the
page's looks of is sent whole.
Anything else is logged and ignored.

Close codes: 4401 not signed in (``ws/live/``), 4404 no such game (or one the viewer may not
see: the same answer, so a private table does not reveal itself), 4408 too many messages, counted
as they arrive, or too many waiting for an answer (and no new socket for a while:
games/live/sockets.py), 4409 this page was replaced by the player's newer
ones, 4429 too many sockets or connections from here (try again later), 4503 the channel layer
is unreachable (the page reconnects later).
"""
