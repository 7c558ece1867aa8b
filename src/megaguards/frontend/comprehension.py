"""Expression sites: comprehensions, ``list(map(...))``, ``sum(...)``, ``min(...)``/``max(...)`` of one
iterable and ``functools.reduce``.

Such an expression ``E`` outside any loop is rewritten into::

    __megaguards_expr__(site_id,
                        lambda: (n, xs, ...),          # the names E reads, read lazily
                        lambda __mg0: E',               # E itself, as written, on the values below
                        <outer iterable>, ...)          # the parts of E evaluated before it runs

The parts CPython evaluates first (a comprehension's outermost iterable, the callee and
arguments of ``map``/``sum``/``reduce``) are evaluated exactly once, in the enclosing
scope, in CPython's order; the site either returns the compiled result or calls the
fallback ``E'`` on them, so a falsy result (``[]``, ``0``) never re-evaluates anything.
The comprehension in ``E'`` keeps its own scope, so its variable never leaks and names
resolve as before (class bodies are not rewritten at all).

At run time the site builds a synthetic ``for`` loop (``build_loop``) that computes E
into a fresh output (or an accumulator), and runs it as an ordinary loop site.
Pure functions of the ``ast``.
"""
from __future__ import annotations

import ast
import copy

from . import work
from .desugar import COLUMN
from .syntax import zipped_table
from .siteinfo import EXPRESSION_FUNCTION, NEXT_NAME, ExpressionInfo, Level, Source, skip_name
ARGUMENT = "__mg{}"          # fallback lambda parameters
VALUE, OUTPUT, ACCUMULATOR = "mg_value", "mg_out", "mg_acc"
FIRST = "mg_first"           # min/max: no element met yet (the accumulator holds none)
KEY_VALUE, BEST = "mg_kv", "mg_best"   # min/max with key=: this element's key, the kept element's
_FORBIDDEN = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Starred)
_REDUCE_OPS = {ast.Add: "+", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}


def _element_name(level: int, source: int) -> str:
    return f"mg_x{level}_{source}"


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _pure_inner(node: ast.expr, bound: set[str]) -> bool:
    """An inner iterable the site can evaluate itself: ``name`` or ``range(a[, b[, c]])`` of
    int constants, names, ``len(name)`` and integer arithmetic, none bound by the loops."""
    def scalar(e) -> bool:
        if isinstance(e, ast.Constant):
            return type(e.value) is int
        if isinstance(e, ast.Name):
            return e.id not in bound
        if isinstance(e, ast.BinOp):
            return type(e.op) in (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv) and scalar(e.left) and scalar(e.right)
        if isinstance(e, ast.UnaryOp):
            return isinstance(e.op, ast.USub) and scalar(e.operand)
        return (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len"
                and len(e.args) == 1 and not e.keywords and isinstance(e.args[0], ast.Name)
                and e.args[0].id not in bound)
    if isinstance(node, ast.Name):
        return node.id not in bound
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
            and 1 <= len(node.args) <= 3 and not node.keywords and all(scalar(a) for a in node.args))


def _comprehension_levels(generators, conditions_allowed: bool) -> tuple[Level, ...] | None:
    levels, bound = [], set()
    for number, generator in enumerate(generators):
        if generator.is_async or not isinstance(generator.target, ast.Name):
            return None
        if generator.ifs and not conditions_allowed:
            return None
        if number == 0:
            source = Source(0)
        elif _pure_inner(generator.iter, bound | {generator.target.id}):
            source = Source(None, generator.iter)
        else:
            return None
        bound.add(generator.target.id)
        levels.append(Level((generator.target.id,), (source,), tuple(generator.ifs)))
    return tuple(levels)


def _nested_list(node: ast.ListComp) -> tuple[tuple[Level, ...], ast.expr] | None:
    """``[[e for j in J] for i in I]``: one level per comprehension, each with one ``for``."""
    levels: list[Level] = []
    bound: set[str] = set()
    while isinstance(node, ast.ListComp):
        if len(node.generators) != 1:
            return None
        found = _comprehension_levels(node.generators, conditions_allowed=False)
        if found is None:
            return None
        (level,) = found
        if levels:  # an inner comprehension: its iterable is evaluated per outer element
            if not _pure_inner(node.generators[0].iter, bound | set(level.targets)):
                return None
            level = Level(level.targets, (Source(None, node.generators[0].iter),))
        bound |= set(level.targets)
        levels.append(level)
        node = node.elt
    return tuple(levels), node


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _plain_call(node: ast.AST, name: str, arities) -> bool:
    return (isinstance(node, ast.Call) and _is_name(node.func, name) and not node.keywords
            and len(node.args) in arities and not any(isinstance(a, ast.Starred) for a in node.args))


def _simple_lambda(node: ast.AST, arity: int) -> bool:
    if not isinstance(node, ast.Lambda):
        return False
    arguments = node.args
    return (len(arguments.args) == arity and not arguments.posonlyargs and not arguments.vararg
            and not arguments.kwonlyargs and not arguments.kwarg and not arguments.defaults)


def _reducer(function: ast.Lambda) -> tuple:
    """How the compiled loop combines: a recognised ``a op b`` / ``max(a, b)`` (a candidate
    for a parallel reduction), or the lambda's body after binding its parameters."""
    first, second = (a.arg for a in function.args.args)
    body = function.body
    if (isinstance(body, ast.BinOp) and type(body.op) in _REDUCE_OPS and _is_name(body.left, first)
            and _is_name(body.right, second)):
        return ("op", _REDUCE_OPS[type(body.op)])
    if (isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id in ("min", "max")
            and not body.keywords and len(body.args) == 2 and _is_name(body.args[0], first)
            and _is_name(body.args[1], second)):
        return ("call", body.func.id)
    return ("lambda", first, second, body)


def recognise(node: ast.expr):
    """(kind, arguments, fallback, levels, element, extras) for a supported expression, else None.

    ``arguments``: the sub-expressions evaluated before E runs, in CPython's order;
    ``fallback``: E with them replaced by the fallback lambda's parameters."""
    param = lambda k: ast.Name(id=ARGUMENT.format(k), ctx=ast.Load())  # noqa: E731
    if isinstance(node, ast.ListComp):
        found = _nested_list(node)
        if found is None:
            return None
        levels, element = found
        table = zipped_table(node.generators[0].iter)
        if table is not None:   # [sum(c) for c in zip(*rows)]: zip, then rows, evaluated first
            levels = (Level(levels[0].targets, (Source(1, columns=True),)), *levels[1:])
            fallback = _replace_outer_iterable(node, _zip_star(param(0), param(1)))
            return "list", [node.generators[0].iter.func, table], fallback, levels, element, {}
        fallback = _replace_outer_iterable(node, param(0))
        return "list", [node.generators[0].iter], fallback, levels, element, {}
    if _plain_call(node, "list", (1,)) and _plain_call(node.args[0], "map", range(2, 9)):
        callee, *iterables = node.args[0].args
        arguments = [node.func, node.args[0].func, callee, *iterables]
        sources = tuple(Source(3 + k) for k in range(len(iterables)))
        fallback = ast.Call(param(0), [ast.Call(param(1), [param(k) for k in range(2, len(arguments))], [])], [])
        if _simple_lambda(callee, len(iterables)):
            level = Level(tuple(a.arg for a in callee.args.args), sources)
            return "map", arguments, fallback, (level,), callee.body, {}
        targets = tuple(_element_name(0, k) for k in range(len(iterables)))
        element = ast.Call(ast.Name(id="mg_f", ctx=ast.Load()),
                           [ast.Name(id=t, ctx=ast.Load()) for t in targets], [])
        return "map", arguments, fallback, (Level(targets, sources),), element, {"callee": 2}
    if _extreme(node):
        found = _folded(node, param)
        if found is None:
            return None
        levels, element, arguments, fallback = found
        extras = {"reducer": ("call", node.func.id)}
        for keyword in node.keywords:   # in the order written, which is CPython's order of evaluation
            if keyword.arg == "default":   # an argument, returned where no element is left
                extras["start"] = len(arguments)
                fallback.keywords.append(ast.keyword(arg="default", value=param(len(arguments))))
                arguments.append(keyword.value)
                continue
            key = keyword.value   # key=: a lambda's body is compiled; any other key is called (mg_f)
            if _simple_lambda(key, 1):
                extras["reducer"] = ("key", node.func.id, key.args.args[0].arg, key.body)
                fallback.keywords.append(ast.keyword(arg="key", value=copy.deepcopy(key)))
            else:
                extras.update(reducer=("key", node.func.id, None, None), callee=len(arguments))
                fallback.keywords.append(ast.keyword(arg="key", value=param(len(arguments))))
                arguments.append(key)
        return node.func.id, arguments, fallback, levels, element, extras
    if _plain_call(node, "sum", (1, 2)):
        found = _folded(node, param)
        if found is None:
            return None
        levels, element, arguments, fallback = found
        return "sum", arguments, fallback, levels, element, {"start": len(arguments) - 1 if len(node.args) == 2 else None}
    if _plain_call(node, "any", (1,)) or _plain_call(node, "all", (1,)):
        found = _folded(node, param)
        if found is None or len(found[0]) != 1:   # one level: a 'break' ends it at the deciding element
            return None
        levels, element, arguments, fallback = found
        return node.func.id, arguments, fallback, levels, element, {}
    if (isinstance(node, ast.Call) and not node.keywords and len(node.args) in (2, 3)
            and not any(isinstance(a, ast.Starred) for a in node.args)
            and (_is_name(node.func, "reduce") or (isinstance(node.func, ast.Attribute) and node.func.attr == "reduce"
                                                   and _is_name(node.func.value, "functools")))):
        callee = node.args[0]
        arguments = [node.func, *node.args]
        fallback = ast.Call(param(0), [param(k) for k in range(1, len(arguments))], [])
        level = Level((_element_name(0, 0),), (Source(2),))
        extras = {"start": 3 if len(node.args) == 3 else None}
        if _simple_lambda(callee, 2):
            extras["reducer"] = _reducer(callee)
        else:
            extras["callee"] = 1
        return "reduce", arguments, fallback, (level,), ast.Name(id=_element_name(0, 0), ctx=ast.Load()), extras
    return None


def _extreme(node: ast.AST) -> bool:
    """``min(iterable)`` or ``max(iterable)``, perhaps with ``key=`` and ``default=``."""
    names = [keyword.arg for keyword in getattr(node, "keywords", ())]
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max")
            and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred)
            and set(names) <= {"key", "default"} and len(set(names)) == len(names))


def _folded(node: ast.Call, param):
    """(levels, element, arguments, fallback) of ``f(<generator or list comprehension>[, start])``
    or ``f(xs[, start])``, ``f`` the called built-in; None where the levels are not supported."""
    iterable = node.args[0]
    arguments = [node.func, iterable, *node.args[1:]]
    rest = [param(k) for k in range(2, len(arguments))]   # sum's start
    if isinstance(iterable, (ast.GeneratorExp, ast.ListComp)):
        levels = _comprehension_levels(iterable.generators, conditions_allowed=True)
        if levels is None:
            return None
        table = zipped_table(iterable.generators[0].iter)
        if table is not None:   # sum(max(c) for c in zip(*rows)): zip, then rows, after the callee
            arguments[1:2] = [iterable.generators[0].iter.func, table]
            levels = (Level(levels[0].targets, (Source(2, columns=True),), levels[0].conditions), *levels[1:])
            outer = _zip_star(param(1), param(2))
            rest = [param(k) for k in range(3, len(arguments))]
        else:
            levels = (Level(levels[0].targets, (Source(1),), levels[0].conditions), *levels[1:])
            arguments[1] = iterable.generators[0].iter
            outer = param(1)
        fallback = ast.Call(param(0), [_replace_outer_iterable(iterable, outer), *rest], [])
        return levels, iterable.elt, arguments, fallback
    level = Level((_element_name(0, 0),), (Source(1),))
    fallback = ast.Call(param(0), [param(1), *rest], [])
    return (level,), ast.Name(id=_element_name(0, 0), ctx=ast.Load()), arguments, fallback


def _zip_star(function: ast.expr, table: ast.expr) -> ast.Call:
    return ast.Call(function, [ast.Starred(table, ast.Load())], [])


def _replace_outer_iterable(node, replacement: ast.expr):
    import copy

    clone = copy.deepcopy(node)
    clone.generators[0].iter = replacement
    return clone


def _compiled_parts(levels, element, extras) -> list[ast.AST]:
    parts: list[ast.AST] = [element]
    for level in levels:
        parts += level.conditions
        parts += [s.expression for s in level.sources if s.expression is not None]
    reducer = extras.get("reducer", ())
    if reducer and reducer[0] in ("lambda", "key") and reducer[3] is not None:
        parts.append(reducer[3])
    if reducer and reducer[0] == "call":
        parts.append(ast.Name(id=reducer[1], ctx=ast.Load()))
    return parts


def make_info(node: ast.expr, filename: str, function: str | None):
    """(ExpressionInfo, arguments, fallback) for a supported expression, else None."""
    found = recognise(node)
    if found is None:
        return None
    kind, arguments, fallback, levels, element, extras = found
    parts = _compiled_parts(levels, element, extras)
    if any(isinstance(n, _FORBIDDEN) for part in parts for n in ast.walk(part)):
        return None
    bound = {t for level in levels for t in level.targets}
    reducer = extras.get("reducer", ())
    if reducer and reducer[0] == "lambda":
        bound |= {reducer[1], reducer[2]}
    elif reducer and reducer[0] == "key" and reducer[2] is not None:
        bound.add(reducer[2])
    synthetic = {"mg_f"} | {_element_name(number, k) for number, level in enumerate(levels)
                            for k in range(len(level.sources))}
    names = set().union(*(_names(p) for p in parts)) | bound
    if any(n.startswith(("mg_", "__mg")) or n in ("super", "__class__") for n in names - synthetic):
        return None  # the synthetic loop's own names, or scoping magic
    live_ins = sorted(names - bound - synthetic)
    line = node.lineno
    inner = node.args[0] if kind in ("sum", "min", "max", "any", "all") else node
    if isinstance(inner, (ast.ListComp, ast.GeneratorExp)):  # the first 'for' line, where report marks go
        line = inner.generators[0].target.lineno
    fields = dict(filename=filename, line=line, function=function, kind=kind, expression=node,
                  live_ins=tuple(live_ins), levels=levels, element=element, callee=extras.get("callee"),
                  reducer=reducer, start=extras.get("start"))
    formula = work.expression_formula(ExpressionInfo(**fields), len(arguments))
    return ExpressionInfo(**fields, work=formula or False), arguments, fallback


def skip_test(site_id) -> ast.expr:
    """``__megaguards_next__(<the site's skip name>, 0) is None``: does the site skip this
    entry (runtime/backoff.py)?"""
    load = lambda name: ast.Name(id=name, ctx=ast.Load())  # noqa: E731
    draw = ast.Call(func=load(NEXT_NAME), args=[load(skip_name(site_id)), ast.Constant(0)], keywords=[])
    return ast.Compare(left=draw, ops=[ast.Is()], comparators=[ast.Constant(None)])


def rewrite(node: ast.expr, filename: str, function: str | None, register, visit) -> ast.expr | None:
    """The site call replacing ``node``, or None when it is not a supported expression.
    ``visit`` rewrites the pre-evaluated arguments (they may hold sites of their own)."""
    made = make_info(node, filename, function)
    if made is None:
        return None
    info, arguments, fallback = made
    site_id = register(info)
    load = lambda name: ast.Name(id=name, ctx=ast.Load())  # noqa: E731
    no_arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    thunk = ast.Lambda(args=no_arguments, body=ast.Tuple(elts=[load(n) for n in info.live_ins], ctx=ast.Load()))
    parameters = ast.arguments(posonlyargs=[], args=[ast.arg(arg=ARGUMENT.format(k)) for k in range(len(arguments))],
                               kwonlyargs=[], kw_defaults=[], defaults=[])
    call = ast.Call(func=load(EXPRESSION_FUNCTION),
                    args=[ast.Constant(site_id), thunk, ast.Lambda(args=parameters, body=fallback),
                          *(visit(a) for a in arguments)], keywords=[])
    # An entry the site skips (backing off) runs the expression as written, in place.
    site = ast.IfExp(test=skip_test(site_id), body=copy.deepcopy(node), orelse=call)
    for child in ast.walk(site):
        if isinstance(child, ast.expr) and getattr(child, "lineno", None) is None:
            ast.copy_location(child, node)
    return site


# The synthetic loop ------------------------------------------------------------------------

def _element(level: int, source: int, kind: str) -> ast.expr:
    counter = ast.Name(id=f"mg_k{level}", ctx=ast.Load())
    start = ast.Name(id=f"mg_s{level}_{source}", ctx=ast.Load())
    if kind == "range1":
        return ast.BinOp(start, ast.Add(), counter)
    if kind == "range":
        return ast.BinOp(start, ast.Add(), ast.BinOp(counter, ast.Mult(), ast.Name(id=f"mg_d{level}_{source}",
                                                                                   ctx=ast.Load())))
    sequence = ast.Name(id=f"mg_q{level}_{source}", ctx=ast.Load())
    if kind == "columns":   # the column k of zip(*sequence): frontend/columns.py
        return ast.Call(ast.Name(id=COLUMN, ctx=ast.Load()), [sequence, counter], [])
    return ast.Subscript(sequence, counter, ast.Load())


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)


def _innermost(info: ExpressionInfo, reducer: tuple) -> list[ast.stmt]:
    load = lambda name: ast.Name(id=name, ctx=ast.Load())  # noqa: E731
    value = [_assign(VALUE, info.element)]
    if info.kind in ("list", "map"):
        target: ast.expr = load(OUTPUT)
        for level in range(len(info.levels)):
            target = ast.Subscript(target, load(f"mg_k{level}"), ast.Load())
        target.ctx = ast.Store()
        return value + [ast.Assign(targets=[target], value=load(VALUE))]
    if info.kind in ("any", "all"):   # the deciding element ends the loop, as it ends CPython's
        decides = load(VALUE) if info.kind == "any" else ast.UnaryOp(ast.Not(), load(VALUE))
        return value + [ast.If(test=decides, body=[_assign(ACCUMULATOR, ast.Constant(info.kind == "any")),
                                                   ast.Break()], orelse=[])]
    kind = reducer[0]
    if kind == "op":
        operator = {v: k for k, v in _REDUCE_OPS.items()}[reducer[1]]()
        combined: ast.expr = ast.BinOp(load(ACCUMULATOR), operator, load(VALUE))
        combined.sum_step = info.kind == "sum"   # compensated on Python 3.12+ (analysis/compensation.py)
    elif kind == "key":
        return value + _keyed(reducer)
    elif kind == "call" and info.kind in ("min", "max"):   # the first element starts, as in min()/max()
        return value + [ast.If(test=load(FIRST),
                               body=[_assign(ACCUMULATOR, load(VALUE)), _assign(FIRST, ast.Constant(False))],
                               orelse=[_assign(ACCUMULATOR, ast.Call(load(reducer[1]), [load(ACCUMULATOR),
                                                                                        load(VALUE)], []))])]
    elif kind == "call":
        combined = ast.Call(load(reducer[1]), [load(ACCUMULATOR), load(VALUE)], [])
    elif kind == "function":
        combined = ast.Call(load("mg_f"), [load(ACCUMULATOR), load(VALUE)], [])
    else:  # a lambda's body, its parameters bound first
        _, first, second, body = reducer
        value += [_assign(first, load(ACCUMULATOR)), _assign(second, load(VALUE))]
        combined = body
    return value + [_assign(ACCUMULATOR, combined)]


def _keyed(reducer: tuple) -> list[ast.stmt]:
    """min/max with key=: the element whose key is first found smallest (largest) is kept:
    CPython replaces the kept one only when a key compares strictly below (above) its key."""
    load = lambda name: ast.Name(id=name, ctx=ast.Load())  # noqa: E731
    _, extreme, parameter, body = reducer
    if body is None:
        statements = [_assign(KEY_VALUE, ast.Call(load("mg_f"), [load(VALUE)], []))]
    else:
        statements = [_assign(parameter, load(VALUE)), _assign(KEY_VALUE, copy.deepcopy(body))]
    kept = [_assign(ACCUMULATOR, load(VALUE)), _assign(BEST, load(KEY_VALUE))]
    better = ast.Compare(load(KEY_VALUE), [ast.Lt() if extreme == "min" else ast.Gt()], [load(BEST)])
    return statements + [ast.If(test=load(FIRST), body=kept + [_assign(FIRST, ast.Constant(False))],
                                orelse=[ast.If(test=better, body=copy.deepcopy(kept), orelse=[])])]


def build_loop(info: ExpressionInfo, kinds: tuple, reducer: tuple) -> ast.For:
    """The loop computing the expression, for these source kinds ("range1", "range" or
    "seq" per source of each level) and combining step (sum, reduce)."""
    body = _innermost(info, reducer)
    for number in reversed(range(len(info.levels))):
        level = info.levels[number]
        for condition in reversed(level.conditions):
            body = [ast.If(test=condition, body=body, orelse=[])]
        bindings = [_assign(target, _element(number, k, kind))
                    for k, (target, kind) in enumerate(zip(level.targets, kinds[number]))]
        for binding in bindings:   # an element of a list: its objects' fields may be read (fields.py)
            binding.element_bind = isinstance(binding.value, (ast.Subscript, ast.Call))
            binding.column_bind = isinstance(binding.value, ast.Call)   # a column: read in place
        bounds = [ast.Name(id=f"mg_n{number}", ctx=ast.Load())]
        if number == 0 and info.kind == "reduce":
            bounds.insert(0, ast.Name(id="mg_b0", ctx=ast.Load()))  # 1 when the first element is the start
        body = [ast.For(target=ast.Name(id=f"mg_k{number}", ctx=ast.Store()),
                        iter=ast.Call(ast.Name(id="range", ctx=ast.Load()), bounds, []),
                        body=bindings + body, orelse=[])]
    (loop,) = body
    import copy

    loop = copy.deepcopy(loop)
    for node in ast.walk(loop):
        for attribute, value in (("lineno", info.line), ("col_offset", 0),
                                 ("end_lineno", info.line), ("end_col_offset", 0)):
            if hasattr(node, "_attributes") and attribute in node._attributes and getattr(node, attribute, None) is None:
                setattr(node, attribute, value)
    return loop
