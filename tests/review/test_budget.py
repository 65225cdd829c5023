"""The review's budget from the settings (games/review/compute.py `budget_for`): what an operator
sets (ENGINE_REVIEW_CPU_SECONDS, ENGINE_REVIEW_SAMPLES) is what the review gets, and what they
leave unset is the rules package's own budget."""

from games.review.compute import budget_for
from games.rules import review


def test_an_unset_number_of_samples_leaves_the_budget_its_own(settings):
    settings.ENGINE_REVIEW = {"cpu_seconds": 120.0, "samples": None}
    budget, cpu_seconds = budget_for(3)
    assert budget == review.review_budget(3)
    assert budget.samples > 0
    assert cpu_seconds == 120.0


def test_no_samples_checks_no_draft_against_the_solver(settings):
    settings.ENGINE_REVIEW = {"cpu_seconds": 5.0, "samples": 0}
    budget, cpu_seconds = budget_for(3)
    assert budget.samples == 0
    assert budget.iterations == review.review_budget(3).iterations
    assert cpu_seconds == 5.0
