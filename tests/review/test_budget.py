"""The review's budget from the settings (games/review/compute.py `budget_for`): what an operator
sets (ENGINE_REVIEW_CPU_SECONDS, _SAMPLES, _ITERATIONS, _HINDSIGHT_SOLVES and _NODES) is what the
review gets, and what they leave unset is the rules package's own budget."""

import json

from games.review.compute import HINDSIGHT_NODES, HINDSIGHT_SOLVES, budget_for, hindsight_budget
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


def test_hindsight_takes_the_budget_an_operator_sets_and_its_own_where_unset(settings):
    settings.ENGINE_REVIEW = {"hindsight_solves": 2, "hindsight_nodes": None}
    assert hindsight_budget() == (2, HINDSIGHT_NODES)
    settings.ENGINE_REVIEW = {"hindsight_solves": None, "hindsight_nodes": 1000}
    assert hindsight_budget() == (HINDSIGHT_SOLVES, 1000)
    settings.ENGINE_REVIEW = {"hindsight_solves": 0, "hindsight_nodes": 1000}
    assert hindsight_budget() == (0, 1000)  # 0 is a budget: no solver call


def test_a_test_or_benchmark_machine_shrinks_the_whole_review_from_its_environment(tmp_path):
    from tests.conftest import settings_in_a_new_process

    probe = (
        "import json; from django.conf import settings; print(json.dumps(settings.ENGINE_REVIEW))"
    )
    unset = json.loads(settings_in_a_new_process(probe, tmp_path).stdout)
    assert unset == {"cpu_seconds": 120.0, "samples": None, "iterations": None,
                     "hindsight_solves": None, "hindsight_nodes": None}  # fmt: skip
    small = settings_in_a_new_process(
        probe,
        tmp_path,
        ENGINE_REVIEW_ITERATIONS="40",
        ENGINE_REVIEW_HINDSIGHT_SOLVES="2",
        ENGINE_REVIEW_HINDSIGHT_NODES="1000",
    )
    assert json.loads(small.stdout) == {"cpu_seconds": 120.0, "samples": None, "iterations": 40,
                                        "hindsight_solves": 2, "hindsight_nodes": 1000}  # fmt: skip
