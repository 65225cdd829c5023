"""The site's one rule for a page that names a game: a game its viewer may not see answers 404,
exactly as a game that does not exist, before anything else happens (a rate limit counted, a
refusal's words that would tell a private table's state: issue 34)."""

from functools import wraps

from django.http import Http404

from games import selectors


def visible_game_first(view):
    """Answer 404 for a game `request.user` may not see (`selectors.may_see_game`); a posted
    `token`, the table's invitation link, lets its holder see it. Put it below @login_required
    and @require_POST, above the rate limit."""

    @wraps(view)
    def visible_only(request, game_id, *args, **kwargs):
        token = request.POST.get("token") if request.method == "POST" else None
        if not selectors.may_see_game(game_id, request.user, invite_token=token):
            raise Http404("No such game.")  # a private table does not reveal itself
        return view(request, game_id, *args, **kwargs)

    return visible_only
