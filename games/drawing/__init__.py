"""What a viewer sees of a game, and how it is drawn: one package for the page, the answer to a
move and the push to every other open page.

- view.py: the view model (`GameView`, its seats and clocks), read once per version and seen by
  each viewer (`as_seen_by`); spaces.py: a board's spaces and tiles and their words;
  controls.py: what each space, tray tile and pool tile does for its viewer; ahead.py: the
  Drafting-ahead panel; log_page.py: the move log as a page shows it; rematch.py: an ended
  game's rematch box.
- pieces.py: the parts of a board and the pool, each drawn once per process and carrying its
  look; svg.py: the tiles' and spaces' SVG (templatetags/microchip_svg.py registers its tags).
- updates.py: a push drawn for one viewer (a version, a resync, the waiting room, presence,
  a notice, the table talk, the rematch); badge.py: the nav badge, kept without a query.
- cache/: what is kept between viewers and versions (snapshots, fragments, the versions carried
  in pushes, what each page shows), one subsystem behind one interface.

The package reads and draws; it never changes a game (games/play/) nor sends a push
(games/live/).
"""
