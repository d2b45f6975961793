"""starc: a compiler for a StarPlat-style graph DSL with five parallel backends."""

__version__ = "0.1.0"

__all__ = ["__version__", "compile"]


def compile(source, backend="reference", **kwargs):
    """Compile DSL text (or a .sp path) for ``backend``; ``.run(graph, **params)`` runs it.

    Imported lazily so ``import starc`` stays cheap for the command line.
    """
    from starc.runner import compile as _compile
    return _compile(source, backend, **kwargs)
