"""Benchmarks of Attention Explorer: ``python -m benchmarks.run`` prints every figure and ratio in one run.

Nothing here is imported by the application or the tests; matplotlib (the comparison) is an
optional extra, ``pip install matplotlib`` or ``pip install -e .[bench]``.
"""
