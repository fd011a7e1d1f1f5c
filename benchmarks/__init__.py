"""chaplab's benchmark suite (issue 10): ``python -m benchmarks [figure ...]`` or ``make bench``.

One module per figure; each exposes ``run() -> list[Result]``. The runner times, prints the table,
writes it as JSON to ``benchmarks/results/latest.json`` and exits non-zero when a target fails.
"""
