def tournament_list(request):
    raise NotImplementedError


def detail(request, tournament_id):
    raise NotImplementedError
