"""The puzzle pages: the list (the day's puzzle, the next one, the player's rating, streak and
history), a puzzle's page, its board as htmx asks for it (?sel= picks a tile up, as on the game
page), and its moves. Each view parses the request, calls games/puzzles/, and renders."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.access import can_view
from games.drawing.view import Selection
from games.play.errors import ActionRefused, StaleVersion
from games.play.forms import ActionForm
from games.puzzles import actions, choosing, drawing
from games.puzzles.models import Puzzle, PuzzleAttempt


class PuzzleActionForm(ActionForm):
    """A puzzle's move as its page posts it: an arranging action, "submit", or a "draft"."""

    type = forms.ChoiceField(
        choices=[
            (name, name)
            for name in (
                "place", "move", "swap", "rotate", "return", "clear", "undo", "redo", "draft",
                "submit",
            )
        ]
    )  # fmt: skip
    version = forms.IntegerField(min_value=0, required=False)

    def action(self) -> dict:
        if self.cleaned_data["type"] == "submit":
            return {"type": "submit"}
        return super().action()


@login_required
@require_GET
def index(request):
    user = request.user
    context = {
        "daily": choosing.daily_puzzle(),
        "next": choosing.next_puzzle(user),
        "rating": choosing.rating_of(user),
        "history": choosing.history(user),
        "count": Puzzle.objects.count(),
    }
    if context["daily"]:
        context["daily_attempt"] = PuzzleAttempt.objects.filter(
            user=user, puzzle=context["daily"]
        ).first()
    return render(request, "puzzles/index.html", context)


@login_required
@require_GET
def next_puzzle(request):
    found = choosing.next_puzzle(request.user, kind=request.GET.get("kind") or None)
    if found is None:
        messages.info(
            request,
            _("You have tried every puzzle there is: new ones come from every game played."),
        )
        return redirect("puzzles:index")
    return redirect("puzzles:puzzle", found.pk)


@login_required
@require_GET
def puzzle_page(request, puzzle_id):
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    return render(request, "puzzles/puzzle.html", _context(request, puzzle))


@login_required
@require_GET
def fragment(request, puzzle_id):
    """The puzzle's board alone, with a tile picked up (?sel=t12, ?sel=s7) or none."""
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    context = _context(request, puzzle)
    response = render(request, "puzzles/partials/puzzle.html", context)
    selection = str(context["board"].selection) if context.get("board") else ""
    response["HX-Push-Url"] = _url(puzzle, selection)
    return response


@login_required
@require_POST
def act(request, puzzle_id):
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    form = PuzzleActionForm.of_request(request)
    if not form.is_valid():
        return _refused(request, puzzle, ActionRefused(form.error_text(), code="bad_request"))
    action = form.action()
    selection = Selection()
    try:
        if action["type"] == "submit":
            actions.submit(
                user=request.user, puzzle_id=puzzle.pk, seen_version=form.cleaned_data["version"]
            )
        elif action["type"] == "draft":
            actions.draft(user=request.user, puzzle_id=puzzle.pk, tile=action.get("tile_id"))
        else:
            actions.arrange(
                user=request.user,
                puzzle_id=puzzle.pk,
                action=action,
                seen_version=form.cleaned_data["version"],
            )
            if action["type"] == "rotate":  # a turned tile stays picked up, as in a game
                selection = Selection(space=action.get("space"))
    except ActionRefused as refusal:
        return _refused(request, puzzle, refusal)
    if not request.htmx:
        return redirect(_url(puzzle, str(selection)))
    response = render(
        request, "puzzles/partials/puzzle.html", _context(request, puzzle, selection=selection)
    )
    response["HX-Push-Url"] = _url(puzzle, str(selection))
    return response


def _refused(request, puzzle, refusal: ActionRefused):
    context = _context(request, puzzle, selection=Selection(), error=refusal)
    status = 409 if isinstance(refusal, StaleVersion) or refusal.code == "answered" else 400
    if not request.htmx:
        messages.error(request, refusal.message)
        return redirect(_url(puzzle, ""))
    response = render(request, "puzzles/partials/puzzle.html", context, status=status)
    response["HX-Push-Url"] = _url(puzzle, "")
    return response


def _url(puzzle, selection: str) -> str:
    url = reverse("puzzles:puzzle", args=[puzzle.pk])
    return f"{url}?sel={selection}" if selection else url


def _context(request, puzzle, *, selection=None, error: ActionRefused | None = None) -> dict:
    user = request.user
    attempt = PuzzleAttempt.objects.filter(user=user, puzzle=puzzle).first()
    if selection is None:
        selection = Selection.parse(request.GET.get("sel"))
    colour_blind = bool(getattr(user, "colour_blind", False))
    context = {
        "puzzle": puzzle,
        "attempt": attempt,
        "error": error.message if error else "",
        "rating": choosing.rating_of(user),
        "version": attempt.version if attempt else 0,
        "daily": choosing.daily_puzzle() == puzzle,
    }
    if puzzle.kind == Puzzle.Kind.ARRANGEMENT:
        context["board"] = drawing.arrangement_view(
            puzzle,
            attempt,
            selection,
            colour_blind=colour_blind,
            error_space=error.space if error else None,
        )
    else:
        context["draft"] = drawing.drafting_view(puzzle, attempt, colour_blind=colour_blind)
    if attempt and attempt.submitted:
        context["next"] = choosing.next_puzzle(user)
        game = puzzle.game
        if game is not None and can_view(game, user):
            context["source_url"] = reverse("games:replay", args=[game.pk])
    return context
