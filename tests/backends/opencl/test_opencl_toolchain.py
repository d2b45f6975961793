"""The OpenCL toolchain: what `starc backends` says when a part is missing, and build errors."""

from __future__ import annotations

import pathlib

import pytest

from opencl_helpers import compile_dsl
from starc.backends.base import BackendError, BackendOptions
from starc.backends.opencl import toolchain
from starc.backends.opencl.emitter import OpenCLBackend

pytestmark = pytest.mark.opencl

NO_HEADERS = """#!/bin/sh
echo "probe.cpp:1:10: fatal error: CL/cl.h: No such file or directory" >&2
exit 1
"""


def _fake_compiler(tmp_path, monkeypatch, script: str) -> pathlib.Path:
    """A "g++" running ``script``, and a fresh probe and build cache."""
    fake = tmp_path / "g++"
    fake.write_text(script)
    fake.chmod(0o755)
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(toolchain.toolchains, "find_cxx", lambda: str(fake))
    toolchain.availability.cache_clear()
    return fake


@pytest.fixture
def compiler_without_opencl(tmp_path, monkeypatch):
    """A "g++" that cannot find the OpenCL headers."""
    yield _fake_compiler(tmp_path, monkeypatch, NO_HEADERS)
    toolchain.availability.cache_clear()


def test_missing_headers_say_what_to_install(compiler_without_opencl):
    avail = OpenCLBackend().availability()
    assert not avail.can_build and not avail.can_run
    assert avail.detail == ("cannot build OpenCL programs: the OpenCL headers or libOpenCL are "
                            "missing (apt install opencl-headers ocl-icd-opencl-dev): "
                            "probe.cpp:1:10: fatal error: CL/cl.h: No such file or directory")


def test_build_errors_are_backend_errors_with_the_compilers_words(compiler_without_opencl,
                                                                  tmp_path):
    with pytest.raises(BackendError) as raised:
        OpenCLBackend().build(compile_dsl("sssp").generated, tmp_path / "out", BackendOptions())
    message = str(raised.value)
    assert message.startswith("the C++ compiler failed to build sssp.cpp:\n$ ")
    assert "fatal error: CL/cl.h: No such file or directory" in message
    assert message.endswith("(are the OpenCL headers and loader installed? apt install "
                            "opencl-headers ocl-icd-opencl-dev)")
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name.startswith("sssp")) \
        == ["sssp.cl", "sssp.cpp"]              # no half-built executable


def test_the_probe_names_the_device_it_would_use():
    avail = OpenCLBackend().availability()
    if not avail.can_run:
        pytest.skip(avail.detail)
    assert avail.can_build and ": " in avail.detail       # "PoCL: pthread-haswell-..."
    assert "error" not in avail.detail


def test_other_build_errors_get_no_install_hint(tmp_path, monkeypatch):
    _fake_compiler(tmp_path, monkeypatch, "#!/bin/sh\necho \"sssp.cpp:9:1: error: expected ';'\""
                                          " >&2\nexit 1\n")
    try:
        with pytest.raises(BackendError) as raised:
            OpenCLBackend().build(compile_dsl("sssp").generated, tmp_path / "out",
                                  BackendOptions())
    finally:
        toolchain.availability.cache_clear()
    assert str(raised.value).endswith("sssp.cpp:9:1: error: expected ';'")
