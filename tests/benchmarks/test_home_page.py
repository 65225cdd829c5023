"""CI's short run of `python -m benchmarks home`: the measurement runs and reports its figures
(the timing itself is the benchmark's, docs/performance.md)."""

import pytest

from benchmarks import home_page

pytestmark = pytest.mark.django_db


def test_the_home_page_benchmark_measures_a_page_under_its_size():
    people, made = home_page.with_site_content()
    found = home_page.measure(runs=3, warm_up=1)
    assert found["runs"] == 3
    assert 0 < found["median_ms"] <= found["p95_ms"]
    assert 10_000 < found["bytes"] < home_page.MAX_BYTES
    assert len(made) == 6 and len(people) == 4
