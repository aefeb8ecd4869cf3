"""Shared test settings.

Hypothesis' per-example deadline is a wall-clock threshold: on a shared, loaded machine
a first call that pays for an import or a compile fails it at random. Speed lives in
``bench/``, so the deadline is off for every property test.
"""

from hypothesis import settings

settings.register_profile("roads", deadline=None)
settings.load_profile("roads")
