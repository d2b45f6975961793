"""The printer tests here compare printed C text; the source-map markers the printers put in
it (taken out when a program is assembled) are tested in tests/backends/test_sourcemap.py."""

import pytest


@pytest.fixture(autouse=True)
def _no_sourcemap_markers(monkeypatch):
    from starc.backends.common import c_statements, cfamily, host_statements
    monkeypatch.setattr(c_statements, "mark", lambda lines, node: list(lines))
    monkeypatch.setattr(host_statements, "mark", lambda lines, node: list(lines))
    monkeypatch.setattr(cfamily, "mark", lambda lines, node: list(lines))
    monkeypatch.setattr(cfamily, "marker", lambda span: "")
