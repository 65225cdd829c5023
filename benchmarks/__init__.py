"""The platform's tools: benchmarks, the load and soak tests, generated data, simulations, the duel.

`python -m benchmarks` lists the commands (benchmarks/commands/). The product never imports this
package (an import-linter contract in pyproject.toml); this package imports the product. Beside
it, `floor/` is a separate minimal Django project, the load benchmark's yardstick, with its own
`manage.py`.
"""
