"""The tournament pairing benchmark's short run: every round checked, a whole Swiss recounted."""

from benchmarks import commands


def test_the_quick_benchmark_pairs_every_round_and_its_standings_agree_with_a_recount(capsys):
    assert commands.main(["pairing", "--quick", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("standings agree with the recount") == 2
    assert "at tables of 2: slowest round" in out and "at tables of 5: slowest round" in out
    assert "CHECK FAILED" not in out
