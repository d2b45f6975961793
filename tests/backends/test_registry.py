"""The backend registry: names, lazy classes, and the command-line options backends declare."""

from __future__ import annotations

import importlib

from starc.backends import REGISTRY, backend_names, backend_options, get_backend
from starc.backends.base import Backend, BackendOption, BackendOptions
from starc.cli import build_parser


def test_every_registered_backend_is_a_backend_named_as_registered():
    for name in backend_names():
        backend = get_backend(name)
        assert isinstance(backend, Backend) and backend.name == name


def test_backends_declare_their_options_in_their_package():
    declared = {(name, option.flag) for name, option in backend_options()}
    assert ("cuda", "--gpu-arch") in declared and ("sycl", "--sycl-compiler") in declared
    for name, (_, package) in REGISTRY.items():
        if package is not None:
            assert all(isinstance(o, BackendOption)
                       for o in importlib.import_module(package).OPTIONS), name


def test_every_declared_option_reaches_the_command_line_and_the_backend():
    parser = build_parser()
    for _, option in backend_options():
        args = parser.parse_args(["build", "dsl/tc.sp", "-b", "cuda", option.flag, "x"])
        assert getattr(args, option.dest) == "x"


def test_option_values_default_and_check():
    arch = BackendOption("--gpu-arch", "h", default="sm_75", pattern=r"sm_[0-9]+",
                         expects="an architecture")
    assert BackendOptions().value(arch) == "sm_75"
    assert BackendOptions(extra={"gpu_arch": "sm_90"}).value(arch) == "sm_90"
    assert arch.check("sm_90") is None and arch.check(None) is None
    assert arch.check("x86") == "--gpu-arch expects an architecture, got 'x86'"


def test_every_backend_package_has_the_same_modules():
    """docs/architecture.md: emitter, kernels, host, toolchain, templates in every package."""
    import pathlib
    root = pathlib.Path(importlib.import_module("starc.backends").__file__).parent
    packages = [pathlib.Path(importlib.import_module(REGISTRY[n][0].split(":")[0]).__file__).parent
                for n in backend_names() if REGISTRY[n][0].startswith("starc.backends.")]
    assert len(packages) >= 3 and all(p.parent == root for p in packages)
    shapes = {p.name: sorted(f.name for f in p.glob("*.py")) for p in packages}
    expected = ["__init__.py", "emitter.py", "host.py", "kernels.py", "toolchain.py"]
    assert all(modules == expected for modules in shapes.values()), shapes
    for package in packages:
        assert list(package.glob("templates/program.*.mako")), package.name
        assert list(package.glob("templates/prelude.*.mako")), package.name
