"""The run contract of a program: which function runs and how its parameters bind.

Every backend's program and the reference executor follow DESIGN.md, "The generated-program
contract": scalar, ``node`` and ``SetN`` parameters come from ``--name value`` options,
``propEdge`` parameters bind to the graph's edge weights, ``propNode`` parameters are results,
the ``Graph`` parameter is the input graph.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional

from starc import errors
from starc.argparsing import nearest_option
from starc.ir import nodes as ir
from starc.ir.types import GraphType, PropType, Scalar, SetType, UpdatesType, is_integer
from starc.records import Record, record

# numpy is imported where values are bound: the compiler asks this module only for
# entry_function, and `starc compile` must start without numpy.
if TYPE_CHECKING:
    import numpy as np

__all__ = ["UsageError", "DataError", "ParamSpec", "param_specs", "bind_arguments",
           "entry_function", "RUN_OPTION_NAMES", "report_run_option_names",
           "describe_kind", "graph_label"]


class UsageError(errors.UsageError):
    """A bad command line for a run (exit status 2): the message names the parameter."""


class DataError(errors.InputError):
    """Input data the program cannot use (exit status 1), e.g. a graph without the weights
    a propEdge parameter needs."""


@record
class ParamSpec(Record):
    """One parameter of the entry function as the command line sees it.

    ``kind`` is one of ``scalar`` (``scalar`` holds its type), ``node``, ``edge``, ``SetN``,
    ``SetE``, ``propEdge``, ``propNode`` (``scalar`` = element type), ``Graph`` or ``updates``
    (a Dynamic function's update stream, from ``--updates FILE``).
    ``is_input`` is True for parameters given as ``--name value`` options; ``default`` is
    the value of an optional one when it is not given (None: the option is required).
    """

    name: str
    kind: str
    scalar: Optional[Scalar]
    is_input: bool
    symbol: ir.Symbol
    default: Optional[object] = None

    @property
    def option(self) -> str:
        return f"--{self.name}"


_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_NODE_ID = re.compile(r"[0-9]+\Z")
_NUMBER = re.compile(r"[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)\Z",
                     re.IGNORECASE)
_RANGES = {Scalar.INT: (-2**31, 2**31 - 1), Scalar.LONG: (-2**63, 2**63 - 1)}


def describe_kind(spec: ParamSpec, num_nodes: Optional[int] = None,
                  num_edges: Optional[int] = None) -> str:
    """What the option expects, in words: ``an int``, ``a node id (0..n-1)``."""
    if spec.kind == "node":
        if num_nodes == 0:
            return "a node id, but the graph has no vertices"
        upper = f"{num_nodes - 1}" if num_nodes is not None else "n-1"
        return f"a node id (0..{upper})"
    if spec.kind == "edge":
        if num_edges == 0:
            return "an edge id, but the graph has no edges"
        upper = f"{num_edges - 1}" if num_edges is not None else "m-1"
        return f"an edge id (0..{upper})"
    if spec.kind == "SetN":
        return "a comma-separated list of node ids, e.g. 0,5,9"
    if spec.kind == "SetE":
        return "a comma-separated list of edge ids, e.g. 0,5,9"
    if spec.kind == "scalar":
        return {Scalar.INT: "an int", Scalar.LONG: "a long", Scalar.FLOAT: "a float",
                Scalar.DOUBLE: "a double",
                Scalar.BOOL: "a bool (0, 1, true or false)"}[spec.scalar]
    return str(spec.kind)


def param_specs(fn: ir.Function) -> List[ParamSpec]:
    """The parameters of ``fn`` in order, classified for binding."""
    specs = []
    defaults = dict(fn.defaults)
    for sym in fn.params:
        t = sym.type
        if isinstance(t, GraphType):
            specs.append(ParamSpec(sym.name, "Graph", None, False, sym))
        elif isinstance(t, PropType):
            kind = "propNode" if t.kind == "node" else "propEdge"
            specs.append(ParamSpec(sym.name, kind, t.elem, False, sym))
        elif isinstance(t, UpdatesType):
            specs.append(ParamSpec(sym.name, "updates", None, False, sym))
        elif isinstance(t, SetType):
            specs.append(ParamSpec(sym.name, "SetN" if t.kind == "node" else "SetE", None,
                                   True, sym))
        elif t is Scalar.NODE:
            specs.append(ParamSpec(sym.name, "node", Scalar.NODE, True, sym))
        elif t is Scalar.EDGE:
            specs.append(ParamSpec(sym.name, "edge", Scalar.EDGE, True, sym))
        elif isinstance(t, Scalar):
            specs.append(ParamSpec(sym.name, "scalar", t, True, sym, defaults.get(sym.name)))
        else:
            raise UsageError(f"parameter {sym.name!r} has type {t}, which a program "
                             f"cannot take from the command line")
    return specs


def graph_label(graph) -> str:
    """The graph's file name as messages show it."""
    name = getattr(graph, "name", "") or "the graph"
    return name[:-len(" (undirected)")] if name.endswith(" (undirected)") else name


def _parse_scalar(spec: ParamSpec, text: str):
    scalar = spec.scalar
    bad = UsageError(f"{spec.option} expects {describe_kind(spec)}, got {text!r}")
    if scalar is Scalar.BOOL:
        if text in ("1", "true"):
            return True
        if text in ("0", "false"):
            return False
        raise bad
    if scalar in (Scalar.INT, Scalar.LONG):
        if not _INTEGER.match(text):
            raise bad
        value = int(text)
        low, high = _RANGES[scalar]
        if not low <= value <= high:
            raise UsageError(f"{spec.option} expects {describe_kind(spec)}, got {text!r} "
                             f"(out of range {low}..{high})")
        return value
    if not _NUMBER.match(text):
        raise bad
    value = float(text)
    if scalar is Scalar.FLOAT:
        import numpy as np
        with np.errstate(over="ignore"):
            value = float(np.float32(value))
        if math.isinf(value) and not math.isinf(float(text)):
            raise UsageError(f"{spec.option} expects {describe_kind(spec)}, got {text!r} "
                             f"(too large for a float)")
    return value


def _no_ids(spec: ParamSpec, item: str, graph) -> UsageError:
    """An id given on a graph without vertices (edges): out of range like any other id, in
    the generated programs' words (starc_cli.hpp's check_node), for an id and a set's item."""
    node = spec.kind in ("node", "SetN")
    return UsageError(f"{spec.option} {item}: {graph_label(graph)} has no "
                      f"{'vertices' if node else 'edges'}, so no {'node' if node else 'edge'} "
                      f"id is valid")


def _parse_id(spec: ParamSpec, text: str, limit: int, graph) -> int:
    if limit == 0 and _NODE_ID.match(text):
        raise _no_ids(spec, text, graph)
    if not _NODE_ID.match(text):
        # a node id that is no id reads as the generated programs say it (starc_cli.hpp),
        # which check it before reading the graph
        what = ("a node id (a non-negative integer)" if spec.kind == "node" else
                describe_kind(spec, graph.num_nodes, graph.num_edges))
        raise UsageError(f"{spec.option} expects {what}, got {text!r}")
    value = int(text)
    if value >= limit:
        what = "vertices" if spec.kind in ("node", "SetN") else "edges"
        raise UsageError(f"{spec.option} expects "
                         f"{describe_kind(spec, graph.num_nodes, graph.num_edges)}, got {text!r} "
                         f"({graph_label(graph)} has {limit} {what})")
    return value


def _parse_id_list(spec: ParamSpec, text: str, limit: int, graph) -> List[int]:
    items = text.split(",") if text.strip() else []
    ids = []
    what = "node" if spec.kind == "SetN" else "edge"
    for item in items:
        item = item.strip()
        if not _NODE_ID.match(item):
            raise UsageError(f"{spec.option} expects {describe_kind(spec)}, got {text!r} "
                             f"({item!r} is not a {what} id)")
        if limit == 0:
            raise _no_ids(spec, item, graph)
        if int(item) >= limit:
            plural = "vertices" if what == "node" else "edges"
            raise UsageError(f"{spec.option} expects {describe_kind(spec)}, got {text!r} "
                             f"({item} is out of range: {graph_label(graph)} has {limit} "
                             f"{plural})")
        ids.append(int(item))
    ordered = sorted(ids)       # a set: a repeat would count its item twice (bc's sources)
    repeated = [a for a, b in zip(ordered, ordered[1:]) if a == b]
    if repeated:
        raise UsageError(f"{spec.option} expects {describe_kind(spec)}, got {text!r} "
                         f"({repeated[0]} is given twice)")
    return ids


def _weight_location(graph, bad) -> str:
    """``"path:line: "`` of the first weight token for which ``bad(token)`` holds, read
    back from the graph's file (only on this error path), or "" if there is none."""
    from starc.graphs.readers import first_weight_line
    found = first_weight_line(graph_label(graph), bad)
    return "" if found is None else f"{graph_label(graph)}:{found[0]}: weight {found[1]!r}: "


def _bind_weights(fn: ir.Function, spec: ParamSpec, graph) -> np.ndarray:
    import numpy as np

    from starc.results import numpy_dtype
    if graph.weights is None:
        # the generated programs' words (starc_support.hpp's assign_edge_weights)
        raise DataError(f"{graph_label(graph)}: the program reads edge weights "
                        f"({spec.symbol.type} {spec.name}) but the file has none")
    weights = np.asarray(graph.weights, dtype=np.float64)
    if spec.scalar is Scalar.BOOL:
        return weights != 0
    if is_integer(spec.scalar):
        def locate(info) -> str:
            if info is None:
                return _weight_location(graph, lambda token: not _INTEGER.match(token))
            return _weight_location(graph, lambda token: _INTEGER.match(token) is not None
                                    and not info.min <= int(token) <= info.max)
        _check_integer_weights(fn, spec, weights, graph.weights_integral, graph_label(graph),
                               locate)
    return weights.astype(numpy_dtype(spec.scalar))


def _check_integer_weights(fn: ir.Function, spec: ParamSpec, weights, integral: bool,
                           label: str, locate) -> None:
    """The integer edge property ``spec`` takes the weights of ``label`` (a graph file, an
    update stream's additions) only as whole numbers in its type's range; else a DataError
    prefixed by ``locate(info)``: where the first weight is that is not whole (``info``
    None) or that lies outside ``info``'s range."""
    import numpy as np

    from starc.results import numpy_dtype
    if not integral or not np.all(np.isfinite(weights)) or \
            not np.array_equal(weights, np.trunc(weights)):
        raise DataError(locate(None) + f"{fn.name} needs integer edge weights for {spec.name!r} "
                        f"(propEdge<{spec.scalar}>) but {label} has non-integer weights")
    info = np.iinfo(numpy_dtype(spec.scalar))
    if weights.size and (weights.min() < info.min or weights.max() > info.max):
        raise DataError(locate(info) + f"{fn.name}: a weight of {label} does not fit "
                        f"propEdge<{spec.scalar}> {spec.name!r}")


def _check_updates(fn: ir.Function, specs: List[ParamSpec], graph, updates) -> None:
    """An update stream exactly where the function takes one, with the weights it needs."""
    stream = next((spec for spec in specs if spec.kind == "updates"), None)
    if stream is None and updates is not None:
        raise UsageError(f"--updates: {fn.name} takes no update stream (only a Dynamic "
                         "function with an 'updates<g>' parameter does)")
    if stream is None:
        return
    if updates is None:
        raise UsageError(f"missing --updates FILE (the update stream '{stream.name}' of "
                         f"{fn.name})")
    weighted = next((spec for spec in specs if spec.kind == "propEdge"), None)
    adds = bool((updates.kinds == 1).any())
    if weighted is not None and graph.weights is not None and adds and updates.weights is None:
        raise DataError(f"{updates.name}: the additions carry no weights, and {fn.name} "
                        f"needs edge weights for {weighted.name!r} (write 'a u v w')")
    if weighted is not None and updates.weights is not None and is_integer(weighted.scalar) \
            and weighted.scalar is not Scalar.BOOL:     # (any weight converts to a bool)
        _check_update_weights(fn, weighted, updates)


def _check_update_weights(fn: ir.Function, spec: ParamSpec, updates) -> None:
    """An integer edge property takes an addition's weight as it takes the graph file's
    (``_check_integer_weights``), located at the line of the first it cannot take."""
    from starc.graphs.updates import ADD, first_update_weight_line

    def locate(info) -> str:
        bad = (lambda w: not w.is_integer()) if info is None else \
            (lambda w: not info.min <= w <= info.max)
        found = first_update_weight_line(updates.name, bad)
        return "" if found is None else f"{updates.name}:{found[0]}: weight {found[1]!r}: "
    _check_integer_weights(fn, spec, updates.weights[updates.kinds == ADD],
                           updates.weights_integral, updates.name, locate)


def bind_arguments(fn: ir.Function, graph, options: Mapping[str, str],
                   updates=None) -> Dict[ir.Symbol, object]:
    """Values for the inputs of ``fn``: the graph, the weights and the ``--name value`` options
    (keys with or without the leading ``--``). A key that names no parameter is a UsageError:
    a misspelt option must not silently leave a parameter at some default.

    Returns ``{symbol: value}`` with Python ints/floats/bools for scalars and ids, a list of ids
    for ``SetN``/``SetE``, the graph for ``Graph`` and a numpy array (converted to the element
    type) for ``propEdge`` parameters. ``propNode`` parameters are results and not bound.
    ``updates`` (a ``starc.graphs.updates.UpdateStream``) binds a Dynamic function's
    ``updates<g>`` parameter. Raises UsageError naming the parameter and what it expects.
    """
    given = {key[2:] if key.startswith("--") else key: value for key, value in options.items()}
    specs = param_specs(fn)
    inputs = [spec.name for spec in specs if spec.is_input]
    for key in given:
        if key not in inputs:
            known = ", ".join("--" + name for name in inputs) or "none"
            near = nearest_option(f"--{key}", [f"--{name}" for name in inputs])
            raise UsageError(f"unknown option '--{key}' ({fn.name} takes: {known})"
                             + (f"; did you mean '{near}'?" if near else ""))
    bound: Dict[ir.Symbol, object] = {}
    _check_updates(fn, specs, graph, updates)
    for spec in specs:
        if spec.kind == "updates":
            bound[spec.symbol] = updates
            continue
        if spec.kind == "Graph":
            bound[spec.symbol] = graph
            continue
        if spec.kind in ("propEdge", "propNode"):   # weights after the options, below
            continue
        if (spec.name not in given or given[spec.name] is None) and spec.default is not None:
            bound[spec.symbol] = spec.default
            continue
        if spec.name not in given or given[spec.name] is None:
            raise UsageError(f"missing {spec.option} "
                             f"({describe_kind(spec, graph.num_nodes, graph.num_edges)})")
        text = str(given[spec.name])
        if spec.kind == "node":
            bound[spec.symbol] = _parse_id(spec, text, graph.num_nodes, graph)
        elif spec.kind == "edge":
            bound[spec.symbol] = _parse_id(spec, text, graph.num_edges, graph)
        elif spec.kind in ("SetN", "SetE"):
            limit = graph.num_nodes if spec.kind == "SetN" else graph.num_edges
            bound[spec.symbol] = _parse_id_list(spec, text, limit, graph)
        else:
            bound[spec.symbol] = _parse_scalar(spec, text)
    # The options are checked before the file's weights, as the generated programs do (a
    # weightless file and a bad --src: both say the --src, exit 2).
    for spec in specs:
        if spec.kind == "propEdge":
            bound[spec.symbol] = _bind_weights(fn, spec, graph)
    return bound


#: The names of a run's own options that a parameter could have: `starc run`'s (its
#: parser takes them first) and the generated programs' (`--device` on OpenCL and SYCL).
#: A parameter of the function a run executes with one of them could never be given
#: (tests/test_cli.py checks the list against `starc run`'s parser).
RUN_OPTION_NAMES = frozenset({"backend", "cache", "device", "function", "graph", "help",
                              "hostfile", "launcher", "np", "out", "oversubscribe", "schedule",
                              "stats", "time", "traceback", "trials", "undirected", "updates"})


def report_run_option_names(fn: ir.Function, sink) -> None:
    """E0414 at each parameter of ``fn``, the function a run executes, given as ``--name
    value`` and named like a run option: `--out 5` would be taken for the results file, never
    for the parameter (results, the graph and the update stream are no such options)."""
    for spec in param_specs(fn):
        sym = spec.symbol
        if spec.is_input and sym.name in RUN_OPTION_NAMES:
            sink.error("E0414", f"parameter '{sym.name}' of {fn.name}, the function a run "
                                f"executes, has the name of a run option (--{sym.name}): the "
                                "command line could never give it", sym.loc,
                       hint=f"rename it, e.g. '{sym.name}_value'")


def entry_function(program: ir.Program, name: Optional[str] = None) -> ir.Function:
    """The function a run executes: ``name`` when given; else the only function; else the
    file's Dynamic function (it runs over the update stream); else the
    last function in the file that no other function calls (a file of helpers followed by
    their driver runs the driver); when every function is called by another (mutual
    recursion), the last function in the file."""
    functions = list(program.functions)
    if not functions:
        raise UsageError(f"{program.filename} defines no function")
    if name is not None:
        for fn in functions:
            if fn.name == name:
                return fn
        listed = ", ".join(fn.name for fn in functions)
        raise UsageError(f"{program.filename} has no function {name!r} (it has {listed})")
    if len(functions) == 1:
        return functions[0]
    dynamic = [fn for fn in functions if fn.kind == "Dynamic"]
    if dynamic:
        return dynamic[0]
    called = set()
    for fn in functions:
        called |= {callee for callee in ir.called_names(fn) if callee != fn.name}
    roots = [fn for fn in functions if fn.name not in called]
    return roots[-1] if roots else functions[-1]
