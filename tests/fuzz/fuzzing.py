"""The fuzzers' shared settings: a small budget in CI, the ``long`` profile's by hand."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["budget", "campaign", "SETTINGS"]

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                     HealthCheck.data_too_large,
                                                     HealthCheck.function_scoped_fixture])


def budget(ci_examples: int) -> int:
    """Examples for one fuzzer: ``$STARC_FUZZ_EXAMPLES`` when set, else the profile's under
    ``long`` (``pytest -m fuzz --hypothesis-profile=long``, registered in tests/conftest.py),
    else its CI budget."""
    if os.environ.get("STARC_FUZZ_EXAMPLES"):
        return int(os.environ["STARC_FUZZ_EXAMPLES"])
    if settings.get_current_profile_name() == "long":
        return settings().max_examples
    return ci_examples


def campaign() -> bool:
    """Whether this is a long campaign by hand (``$STARC_FUZZ_EXAMPLES`` or the ``long``
    profile) rather than CI: a fuzzer may then also try what costs more per example."""
    return budget(0) != 0
