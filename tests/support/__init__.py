"""What the tests share besides their fixtures: plain modules the conftest.py files' fixtures and
the test modules import (no fixtures here, and no test module imports another).

- :mod:`~tests.support.harness`: the integration harness (a studio on the local stack), the
  supervisor's console on the bus, the tests' timers.
- :mod:`~tests.support.arena`: the boundary tests' raw HTTP, state snapshots, event tap and arena.
- :mod:`~tests.support.direct`: the in-process round driver (the round workflow off).
- :mod:`~tests.support.faults`: crash injection and lockstep races at the DynamoDB client.
- :mod:`~tests.support.money`: exactly-once money checks and the audit.
- :mod:`~tests.support.figures`: the reliability figures and ``tests/reliability/figures.json``.
- :mod:`~tests.support.browser`: the browser's settings and a signed-in page.
- :mod:`~tests.support.layout`: how the test tree is laid out (what its own test checks).
"""
