"""Expression sites, the heavy half: the synthetic loop of each form, and computing an
expression's value with it (``enter``).  Imported at the first entry of an expression site
(``expression_site.py`` is the light half, registered with every rewritten module)."""
from __future__ import annotations

import builtins
import operator
from array import array as ArrayArray


from .. import record as records
from ..analysis.typeinfer import ArrayInfo, infer_types
from ..errors import GuardFailure
from ..frontend.comprehension import ACCUMULATOR, BEST, FIRST, KEY_VALUE, OUTPUT, VALUE, build_loop
from ..frontend.desugar import COLUMN, INTRODUCED_BUILTINS, introduced_names
from ..frontend.scope import upward_exposed_reads
from ..frontend.siteinfo import ExpressionInfo, SiteInfo
from ..ir import nodes as ir
from ..ir.types import Scalar, binary_result, ndarray_class, numpy_dtype_scalar, numpy_module, scalar_of_class
from .executable import UNSET, Rejected
from .expression_site import NotHere
from .site import Site

_KNOWN_REDUCERS = {id(operator.add): ("op", "+"), id(operator.mul): ("op", "*"),
                   id(builtins.max): ("call", "max"), id(builtins.min): ("call", "min")}
_KNOWN_OBJECTS = {id(operator.add): operator.add, id(operator.mul): operator.mul,
                  id(builtins.max): builtins.max, id(builtins.min): builtins.min}


class WrongElement(Rejected):
    """The output (or accumulator) was set up for another element type than the loop's."""

    __slots__ = ("element",)

    def __init__(self, reason: str, element: Scalar | None = None) -> None:
        super().__init__(reason)
        self.element = element


def accumulator_type(start: Scalar, element: Scalar) -> Scalar | None:
    """The type of ``start + e0 + e1 ...`` when it is one type from the first step on."""
    result = binary_result("+", start, element)
    if result is None or binary_result("+", result, element) is not result:
        return None
    return result


def _strip(node):
    """The loop without the statements that use the element (stores and accumulation)."""
    def keep(statement) -> bool:
        return not ((isinstance(statement, ir.Store) and statement.array == OUTPUT)
                    or (isinstance(statement, ir.Assign) and statement.target in (ACCUMULATOR, BEST)))
    changes = {}
    for name in ("body", "orelse"):
        block = getattr(node, name, None)
        if isinstance(block, tuple):
            changes[name] = tuple(_strip(s) for s in block if keep(s))
    return records.replace(node, **changes) if changes else node


class LoopSite(Site):
    """The synthetic loop of one form; rejects signatures whose output or accumulator
    does not hold exactly the element's type.  Its expression site backs off, not it."""

    backs_off = False

    def __init__(self, site_id: int, info: SiteInfo, expression: ExpressionInfo, start: Scalar | None) -> None:
        super().__init__(site_id, info)
        self.expression = expression
        self.start = start  # sum: the start value's type
        if expression.kind in ("list", "map"):   # allocate() made it; the rectangular nest stores each element
            self.fresh_outputs = (OUTPUT,)

    def specialize(self, binding):
        try:
            element = self.probe(binding)
        except Exception:  # the real specialization says why, or the check after it decides
            element = None
        if element is not None and not self.fits(binding, element):
            result = self.specializations[binding.key] = WrongElement(f"elements are {element!r}", element)
            return result
        result = super().specialize(binding)
        if not isinstance(result, Rejected):
            element = self.element_of(result.typed)
            if element is None or not self.fits(binding, element):
                result = self.specializations[binding.key] = WrongElement(f"elements are {element!r}", element)
        return result

    def probe(self, binding) -> Scalar | None:
        """The element's type, by type inference alone (before anything is compiled)."""
        functions, scalars, arrays = self.binder.describe(binding)
        infos = {use.name: ArrayInfo(arrays[use.name][0], use.rank, *arrays[use.name][1:])
                 for use in self.binder.array_uses}
        return self.element_of(infer_types(_strip(self.loop.body), scalars, infos, functions))

    def element_of(self, typed):
        """The element's type (a Scalar); with key=, (the element's type, its key's type);
        None where one is not a single type."""
        names = (VALUE, KEY_VALUE) if self.expression.reducer[:1] == ("key",) else (VALUE,)
        types = [typed.assigned_types.get(name, frozenset()) for name in names]
        if any(len(found) != 1 for found in types):
            return None
        found = tuple(next(iter(t)) for t in types)
        return found if len(found) == 2 else found[0]

    def fits(self, binding, element: Scalar) -> bool:
        kind = self.expression.kind
        if kind in ("list", "map"):
            position = next(k for k, use in enumerate(self.binder.array_uses) if use.name == OUTPUT)
            return _holds(element, output_element(binding.arrays[position]))
        if kind == "sum":
            position = self.binder.scalar_paths.index(ACCUMULATOR)
            wanted = accumulator_type(self.start, element)
            given = scalar_of_class(type(binding.scalars[position]))
            # An int-or-float sum starts from the start itself (sum_start): 0.0 would make ints floats.
            return wanted is not None and given is (self.start if wanted.is_int_or_float else wanted)
        if kind in ("min", "max"):   # the placeholders have the element's (and its key's) type
            wanted = dict(zip((ACCUMULATOR, BEST), element if type(element) is tuple else (element,)))
            paths = self.binder.scalar_paths   # with key=, the loop never reads the accumulator
            return all(_holds(scalar, scalar_of_class(type(binding.scalars[paths.index(name)])))
                       for name, scalar in wanted.items() if name in paths)
        return True  # reduce: the accumulator's stability is the type inference's


def _holds(wanted: Scalar, given: Scalar | None) -> bool:
    """Does a value of type ``given`` start what ``wanted`` holds (an int-or-float: an int or a float)?"""
    return given is wanted or (wanted.is_int_or_float and given in (Scalar.PY_INT, Scalar.PY_FLOAT))


def output_element(output) -> Scalar | None:
    if type(output) is ndarray_class():
        return numpy_dtype_scalar(output.dtype) if output.dtype.isnative else None
    while type(output) is list and output:
        output = output[0]
    return scalar_of_class(type(output))


def allocate(element: Scalar, shape: tuple[int, ...]):
    if element.is_numpy:
        return numpy_module().empty(shape, dtype=element.pyclass)
    zero = placeholder(element)   # int-or-float: each store gives the class

    def rows(depth: int):
        if depth == len(shape) - 1:
            return [zero] * shape[depth]
        return [rows(depth + 1) for _ in range(shape[depth])]
    return rows(0)


def as_lists(output):
    """A NumPy output as the nested lists of NumPy scalars that iterating it gives."""
    if type(output) is not ndarray_class():
        return output
    return list(output) if output.ndim == 1 else [as_lists(row) for row in output]


def empty_lists(shape: tuple[int, ...]):
    """The value of a nested comprehension with an empty level."""
    if shape[0] == 0 or len(shape) == 1:
        return []
    return [empty_lists(shape[1:]) for _ in range(shape[0])]


def _inner_scalar(node, values: dict):
    import ast

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        value = values[node.id]
        if type(value) is not int:
            raise NotHere(f"'{node.id}' in an inner range() is a {type(value).__name__}, not an int")
        return value
    if isinstance(node, ast.UnaryOp):
        return -_inner_scalar(node.operand, values)
    if isinstance(node, ast.BinOp):
        left, right = _inner_scalar(node.left, values), _inner_scalar(node.right, values)
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            raise NotHere("division by zero in an inner range()")
        return {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                ast.FloorDiv: operator.floordiv}[type(node.op)](left, right)
    sequence = values[node.args[0].id]  # len(name)
    if values.get("len") is not builtins.len or type(sequence) not in (list, ndarray_class()):
        raise NotHere("len() in an inner range() is not the built-in on a list or array")
    return len(sequence)


def inner_iterable(node, values: dict):
    import ast

    if isinstance(node, ast.Name):
        return values[node.id]
    if values.get("range") is not builtins.range:
        raise NotHere("'range' is not the built-in")
    arguments = [_inner_scalar(a, values) for a in node.args]
    try:
        return range(*arguments)
    except ValueError:
        raise NotHere("range() step is zero") from None


def source_kind(value) -> tuple[str, int]:
    """("range1" | "range" | "seq", length) of one iterable."""
    if type(value) is range:
        try:
            return ("range1" if value.step == 1 else "range"), len(value)
        except OverflowError:
            raise NotHere("a range longer than sys.maxsize") from None
    if type(value) is list or type(value) is ArrayArray or (type(value) is ndarray_class() and value.ndim == 1):
        return "seq", len(value)
    raise NotHere(f"iterating over a {type(value).__name__} (only ranges, lists, array.array and 1-D NumPy arrays)")


def columns_kind(value) -> tuple[str, int]:
    """("columns", how many) of the table of ``zip(*table)``: a list of lists or a 2-D NumPy
    array (its rows' lengths, equal, checked by the guard when the loop binds it)."""
    if (type(value) is list and all(type(row) is list for row in value[:1])) or \
            (type(value) is ndarray_class() and value.ndim == 2):
        return "columns", (len(value[0]) if len(value) else 0)
    raise NotHere(f"zip(*...) of a {type(value).__name__} (only a list of lists or a 2-D NumPy array)")


# Python 3.12+ runs comprehensions inline in their function's frame (PEP 709).


def enter(site, values: dict, arguments: tuple):
    """The expression's value computed by the compiled loop of its form, or the fallback's."""
    info = site.info
    site.check_builtins(arguments)
    environment = dict(values)
    for name in INTRODUCED_BUILTINS:   # the loop's range, and desugared forms inside the element (sum(col))
        environment.setdefault(name, getattr(builtins, name))
    environment[COLUMN] = None   # the built loop's zip(*rows) column: an alias the lowering makes (columns.py)
    kinds, lengths = [], []
    for number, level in enumerate(info.levels):
        level_kinds, level_lengths = [], []
        for k, source in enumerate(level.sources):
            value = arguments[source.argument] if source.argument is not None else inner_iterable(
                source.expression, values)
            kind, length = columns_kind(value) if source.columns else source_kind(value)
            level_kinds.append(kind)
            level_lengths.append(length)
            if kind in ("seq", "columns"):
                environment[f"mg_q{number}_{k}"] = value
            else:
                environment[f"mg_s{number}_{k}"] = value.start
                environment[f"mg_d{number}_{k}"] = value.step
        kinds.append(tuple(level_kinds))
        lengths.append(min(level_lengths))
        environment[f"mg_n{number}"] = lengths[-1]
    reducer, start_type, first = reducer_of(site, arguments, environment), None, None
    if info.kind in ("list", "map"):
        if 0 in lengths:
            return site.done(empty_lists(tuple(lengths)))
    elif info.kind in ("min", "max"):
        first = arguments[info.start] if info.start is not None else None   # default=
        if 0 in lengths:
            if info.start is not None:
                return site.done(first)
            raise NotHere(f"{info.kind}() of an empty sequence (Python raises ValueError)")
    elif info.kind in ("any", "all"):
        if 0 in lengths:
            return site.done(info.kind == "all")
    elif info.kind == "sum":
        start = arguments[info.start] if info.start is not None else 0
        if 0 in lengths:
            return site.done(start)
        start_type = scalar_of_class(type(start))
        if start_type is None:
            raise NotHere(f"sum() starting from a {type(start).__name__}")
        first = start
    else:  # reduce
        if info.start is not None:
            first = arguments[info.start]
            environment["mg_b0"] = 0
        elif lengths[0] == 0:
            raise NotHere("reduce() of an empty iterable (Python raises TypeError)")
        else:
            source = arguments[info.levels[0].sources[0].argument]
            first = source[0]
            environment["mg_b0"] = 1
        if lengths[0] == environment["mg_b0"]:
            return site.done(first)
        environment[ACCUMULATOR] = first
    form = (tuple(kinds), reducer, start_type)
    loop_site = site_for(site, form, start_type)
    element = site.guesses.get(form, (Scalar.PY_FLOAT, Scalar.PY_FLOAT) if info.reducer[:1] == ("key",)
                               else Scalar.PY_FLOAT)
    for _ in range(2):
        if info.kind in ("list", "map"):
            environment[OUTPUT] = allocate(element, tuple(lengths))
        elif info.kind == "sum":
            environment[ACCUMULATOR] = sum_start(first, start_type, element)
        elif info.kind in ("min", "max"):   # placeholders of the element's (key's) type, replaced by the first
            for name, scalar in zip((ACCUMULATOR, BEST), element if type(element) is tuple else (element,)):
                environment[name] = placeholder(scalar)
            environment[FIRST] = True
        live_ins = tuple(environment[name] for name in loop_site.info.live_ins)
        outcome = loop_site(live_ins)
        if outcome is not None:
            site.guesses[form] = element
            return site.done(result(site, outcome, environment, first))
        better = learned(loop_site, live_ins)
        if better is None or better == element:
            break
        element = better
    for reason in loop_site.stats.reasons:
        if not reason.startswith("elements are"):
            site.note(reason)
    site.failed(form, "expression", loop_site.last_reason or "the loop site fell back")
    return site.fallback()

def reducer_of(site, arguments, environment) -> tuple:
    info = site.info
    if info.kind == "sum":
        return ("op", "+")
    if info.kind != "reduce":   # min/max: their own step (key= a lambda's body or mg_f); the others none
        if info.callee is not None:   # map(f, ...), min/max(key=f)
            environment["mg_f"] = arguments[info.callee]
        return info.reducer
    if info.reducer:
        return info.reducer
    function = arguments[info.callee]
    known = _KNOWN_REDUCERS.get(id(function))
    if known is not None and _KNOWN_OBJECTS[id(function)] is function:
        if known[0] == "call":
            environment[known[1]] = function
        return known
    environment["mg_f"] = function
    return ("function",)

def sum_start(start, start_type: Scalar, element: Scalar):
    """The accumulator's first value: ``start`` itself, or the int 0 as the type that
    ``0 + e0`` has (the same value: 0 converts exactly, and ``0 + e`` is ``T(0) + e``)."""
    wanted = accumulator_type(start_type, element)
    if wanted is None:
        raise NotHere(f"sum() of {element!r} elements from a {start_type!r} changes type")
    if wanted is start_type or wanted.is_int_or_float:   # an int-or-float starts from either class
        return start
    if type(start) is not int or start != 0:
        raise NotHere(f"sum() of {element!r} elements from the {start_type!r} {start!r}")
    return wanted.pyclass(0)

def placeholder(element: Scalar):
    """A value of type ``element`` for an accumulator the first element replaces."""
    return 0 if element.is_int_or_float else element.pyclass(0)

def learned(site: LoopSite, live_ins: tuple) -> Scalar | None:
    if site.binder is None:
        return None
    try:
        key = site.binder.bind(live_ins).key
    except GuardFailure:
        return None
    rejected = site.specializations.get(key)
    return rejected.element if isinstance(rejected, WrongElement) else None

def result(site, outcome, environment: dict, first):
    if site.info.kind in ("list", "map"):
        return as_lists(environment[OUTPUT])
    if site.info.kind in ("min", "max") and outcome[1] is UNSET:   # every element filtered out
        if site.info.start is not None:
            return first   # default=
        raise NotHere(f"{site.info.kind}() of no element (Python raises ValueError)")
    value = outcome[0]
    if site.info.kind in ("any", "all"):   # no element decided: any() is False, all() True
        return site.info.kind == "all" if value is UNSET else value
    return first if value is UNSET else value

def site_for(site, form, start_type) -> LoopSite:
    loop_site = site.forms.get(form)
    if loop_site is None:
        with site.lock:
            loop_site = site.forms.get(form)
            if loop_site is None:
                loop = build_loop(site.info, form[0], form[1])
                live_outs = {"sum": (ACCUMULATOR,), "reduce": (ACCUMULATOR,), "any": (ACCUMULATOR,),
                             "all": (ACCUMULATOR,), "min": (ACCUMULATOR, FIRST),
                             "max": (ACCUMULATOR, FIRST)}.get(site.info.kind, ())
                reads = upward_exposed_reads(loop)   # and the built-ins an element's idiom calls (sum(col))
                info = SiteInfo(site.info.filename, site.info.line, site.info.function, loop,
                                tuple(dict.fromkeys([*reads, *introduced_names(loop)])), live_outs)
                loop_site = site.forms[form] = LoopSite(site.id, info, site.info, start_type)
    return loop_site
