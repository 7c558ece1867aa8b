"""Desugaring: Python idioms rewritten, as ``ast``, into the forms the lowering knows,
inside the lowering (``frontend/lower.py``) before a statement or a ``for`` is lowered:

* ``for_loop(node, fresh)``: a ``for`` over a list or array (``for x in xs``, ``enumerate``,
  ``zip``, ``reversed(range(...))``, a display) becomes a ``range`` loop (or stays as it was);
* ``statement(node, fresh)``: a statement using an idiom (``q, r = divmod(a, b)``,
  ``sum``/``min``/``max``/``functools.reduce`` inside an expression) becomes a list
  of plain statements, or None when there is nothing to rewrite.

``fresh()`` gives a new hidden name (prefix ``mg_tmp``: never a live-out). Built-ins the
rewritten code assumes (``enumerate``, ``zip``, ``sum``...) are listed on the returned
nodes (``assumed_builtins``), for the guard to check by identity. Pure functions of the
``ast``; ``Unsupported`` for forms that look like an idiom but cannot be rewritten exactly.
"""
from __future__ import annotations

import ast
import copy
import itertools
from typing import Callable

from ..record import record
from ..errors import Unsupported
from . import early_exits
from .literal_loops import element_at, literal_elements, progression
from .syntax import dotted_path as _path, zipped_table
from .syntax import int_literal, nested_loops, renamed
from .syntax import located as _located

HIDDEN_PREFIX = "mg_tmp"
COLUMN = "mg_column"   # ``mg_column(rows, j)``: the column j of zip(*rows), bound to the loop's name (lower.py)
# Names the rewritten forms call: live-ins of any site whose loop uses an idiom.
INTRODUCED_BUILTINS = ("range", "len", "min")
REDUCTIONS = ("sum", "min", "max", "reduce", "functools.reduce")
_PURE_CALLS = {"abs", "min", "max", "int", "float", "bool", "round", "pow", "len", "divmod"}
_counter = itertools.count()


def _default_fresh() -> str:
    return f"{HIDDEN_PREFIX}_d{next(_counter)}"


class EmptyReduction(ast.stmt):
    """``target = value`` after a reduction found no element: exact only when ``value``
    has the type the reduction's other assignments give ``target`` (Python's empty
    ``sum`` is the int 0 even for float elements); otherwise, or when ``raises``
    (``max([])``, ``reduce`` with no initial value), the loop goes back to CPython.
    """

    _fields = ("target", "value", "raises")


def assumed_builtins(node: ast.AST) -> tuple[str, ...]:
    return getattr(node, "assumed_builtins", ())


def canonical_builtin(name: str) -> str:
    """The canonical name (``analysis/functions.py``) of a built-in as a desugared form calls it."""
    return "functools.reduce" if name == "reduce" else name


def _assume(node: ast.AST, *names: str) -> ast.AST:
    node.assumed_builtins = tuple(dict.fromkeys((*assumed_builtins(node), *names)))
    return node


def _name(identifier: str, store: bool = False) -> ast.Name:
    return ast.Name(id=identifier, ctx=ast.Store() if store else ast.Load())


def _call(function: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_name(function), args=list(args), keywords=[])


def _assign(target: ast.expr | str, value: ast.expr) -> ast.Assign:
    target = _name(target, store=True) if isinstance(target, str) else target
    return ast.Assign(targets=[target], value=value)


def sum_step(node: ast.BinOp) -> ast.BinOp:
    """Mark ``node`` as a step of sum(): Python 3.12+ compensates float ones
    (analysis/compensation.py; lowered as ir.BinOp.sum_step)."""
    node.sum_step = True
    return node


def _binary(left: ast.expr, op: ast.operator, right: ast.expr) -> ast.BinOp:
    return ast.BinOp(left=left, op=op, right=right)


def _assigned(statements) -> set[str]:
    names = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


def _stable(node: ast.expr, assigned: set[str]) -> bool:
    """Evaluating ``node`` again later gives the value it had at loop entry: constants and
    names the loop does not assign, subscripted by such (no calls)."""
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in assigned:
            return False
        if not isinstance(child, (ast.Name, ast.Attribute, ast.Constant, ast.Subscript, ast.expr_context,
                                  ast.UnaryOp, ast.unaryop, ast.BinOp, ast.operator, ast.Tuple)):
            return False
    return True


def _substituted(node: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    class Substitute(ast.NodeTransformer):
        def visit_Name(self, name):
            return copy.deepcopy(values[name.id]) if name.id in values else name
    return Substitute().visit(copy.deepcopy(node))


# -- element iteration ------------------------------------------------------------------
@record
class _Source:
    """What a ``for`` iterates over, by index: its lengths (it stops at the shortest)
    and the element at an index (a tuple of elements for enumerate and zip)."""

    lengths: tuple[ast.expr, ...]
    element: Callable[[ast.expr], object]   # index expression -> ast.expr or tuple
    builtins: tuple[str, ...] = ()
    start: ast.expr | None = None           # enumerate's start: the index runs from it


def _source(node: ast.expr, assigned: set[str], top: bool = True) -> _Source | None:
    """The index form of an iterable, or None when it is not one this module rewrites."""
    if _path(node) is not None or (isinstance(node, ast.Subscript) and _stable(node, assigned)
                                    and _path(_base(node)) is not None):
        return _Source((_call("len", copy.deepcopy(node)),),
                       lambda index: ast.Subscript(value=copy.deepcopy(node), slice=index, ctx=ast.Load()))
    elements = literal_elements(node, assigned)   # for dx in (-1, 0, 1)
    if elements is not None:
        return _Source((ast.Constant(len(elements)),), lambda index: element_at(elements, index))
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    function, args, keywords = node.func.id, node.args, node.keywords
    table = zipped_table(node)
    if table is not None and _path(table) is not None:   # zip(*rows): the columns, len(rows[0]) of them
        count = ast.IfExp(test=_call("len", copy.deepcopy(table)), body=_call("len", ast.Subscript(
            value=copy.deepcopy(table), slice=ast.Constant(0), ctx=ast.Load())), orelse=ast.Constant(0))
        return _Source((count,), lambda index: _call(COLUMN, copy.deepcopy(table), index), ("zip",))
    if any(isinstance(a, ast.Starred) for a in args):
        return None
    if function == "enumerate" and 1 <= len(args) + len(keywords) <= 2 and all(k.arg == "start" for k in keywords):
        inner = _source(args[0], assigned, top=False) if args else None
        start = args[1] if len(args) == 2 else (keywords[0].value if keywords else None)
        if inner is None or inner.start is not None:
            return None
        if start is not None and not (top and _stable(start, assigned)):
            raise Unsupported("enumerate() with a start the loop changes or nested in zip()",
                              node.lineno, node.col_offset)
        if start is None:
            return _Source(inner.lengths, lambda index: (index, inner.element(index)),
                           ("enumerate", *inner.builtins))
        # The index runs from start (range() checks that it is an integer, as enumerate does).
        return _Source(inner.lengths, lambda index: (index, inner.element(
            _binary(index, ast.Sub(), copy.deepcopy(start)))), ("enumerate", *inner.builtins), start)
    if function == "zip" and args and not keywords:
        parts = [_source(a, assigned, top=False) for a in args]
        if any(p is None or p.start is not None for p in parts):
            return None
        return _Source(tuple(length for p in parts for length in p.lengths),
                       lambda index: tuple(p.element(index) for p in parts),
                       ("zip", *(b for p in parts for b in p.builtins)))
    return None


def _base(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def _count(source: _Source) -> ast.expr:
    if len(source.lengths) == 1:
        return copy.deepcopy(source.lengths[0])
    return _call("min", *(copy.deepcopy(n) for n in source.lengths))


def _unpack(target: ast.expr, value, where: ast.AST) -> list[ast.stmt]:
    """``target = value`` for one element, left to right as a ``for`` target binds.  A row
    unpacked into names (``for x, y in pairs``: ``x = pairs[k][0]``, ``y = pairs[k][1]``)
    marks its binds ``unpacks``: the row's length, which the guard checks (Python raises
    ValueError for any other)."""
    if isinstance(value, tuple):
        if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != len(value):
            raise Unsupported("loop target does not unpack the elements one to one", where.lineno, where.col_offset)
        return [s for t, v in zip(target.elts, value) for s in _unpack(t, v, where)]
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Subscript):
        if any(isinstance(t, ast.Starred) for t in target.elts):
            raise Unsupported("loop target with a starred name", where.lineno, where.col_offset)
        binds = []
        for position, name in enumerate(target.elts):
            if not isinstance(name, ast.Name):
                raise Unsupported("loop target unpacks a row into more than names", where.lineno, where.col_offset)
            bind = _assign(name.id, ast.Subscript(value=copy.deepcopy(value), slice=ast.Constant(position),
                                                  ctx=ast.Load()))
            bind.unpacks = len(target.elts)
            binds.append(bind)
        return binds
    if not isinstance(target, ast.Name):
        raise Unsupported("loop target is not a plain name", where.lineno, where.col_offset)
    return [_assign(target.id, value)]


def is_element_loop(node: ast.AST) -> bool:
    """A ``for`` this module can turn into a range loop (decided on the syntax alone; the
    guard then checks the sequences are lists or arrays, else CPython runs it)."""
    if not isinstance(node, ast.For):
        return False
    try:
        return _reversed_range(node.iter) is not None or _source(node.iter, _assigned([node])) is not None
    except Unsupported:
        return True  # lowering explains why it stays in CPython


def for_loop(node: ast.For, fresh: Callable[[], str] = _default_fresh) -> ast.For:
    reversed_range = _reversed_range(node.iter)
    counted = reversed_range if reversed_range is not None else progression(node)   # for dx in (-1, 0, 1)
    if counted is not None:
        loop = ast.For(target=node.target, iter=counted, body=node.body, orelse=node.orelse)
        return _assume(_located([loop], node)[0], *(("reversed",) if reversed_range is not None else ()))
    source = _source(node.iter, _assigned([node.target, *node.body]))
    if source is None:
        return node
    counter = _counter_name(node)
    index = counter or fresh()
    if source.start is None:
        bounds = [_count(source)]
    else:
        bounds = [copy.deepcopy(source.start), _binary(copy.deepcopy(source.start), ast.Add(), _count(source))]
    binds = _unpack(node.target, source.element(_name(index)), node)
    if counter is not None:
        binds = binds[1:]   # the counter is the loop's own variable: no ``i = i``
    for bind in binds:   # the lowering may make a row's name an alias of that row (``for row in table``)
        bind.element_bind = True
    loop = ast.For(target=_name(index, store=True), iter=_call("range", *bounds), body=[*binds, *node.body],
                   orelse=node.orelse)
    return _assume(_located([loop], node)[0], *source.builtins)


def _counter_name(node: ast.For) -> str | None:
    """``for i, x in enumerate(xs)``: ``i`` itself as the range loop's variable, where the
    body does not assign it, so that the analyses see ``out[i]`` as indexed by the loop
    (parallel, hoisted); it ends as enumerate leaves it (the last index, unbound if none)."""
    if not (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
            and node.iter.func.id == "enumerate" and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2
            and isinstance(node.target.elts[0], ast.Name)):
        return None
    name = node.target.elts[0].id
    if name in _assigned([node.target.elts[1], *node.body]):
        return None
    return name


def _reversed_range(node: ast.expr) -> ast.Call | None:
    """``reversed(range(...))`` as a range running backwards; the range's arguments are
    read more than once, so they must be free of calls (len() aside)."""
    if not (isinstance(node, ast.Call) and _path(node.func) == "reversed" and len(node.args) == 1
            and not node.keywords):
        return None
    inner = node.args[0]
    if not (isinstance(inner, ast.Call) and _path(inner.func) == "range" and 1 <= len(inner.args) <= 3
            and not inner.keywords):
        return None
    if any(isinstance(c, (ast.Call, ast.NamedExpr, ast.Starred)) and not (isinstance(c, ast.Call) and _path(c.func) == "len")
           for a in inner.args for c in ast.walk(a)):
        raise Unsupported("reversed(range(...)) with calls in its arguments", node.lineno, node.col_offset)
    args = [copy.deepcopy(a) for a in inner.args]
    one = lambda: ast.Constant(1)  # noqa: E731
    if len(args) == 1:
        return _call("range", _binary(args[0], ast.Sub(), one()), ast.UnaryOp(op=ast.USub(), operand=one()),
                     ast.UnaryOp(op=ast.USub(), operand=one()))
    start, stop = args[0], args[1]
    step = int_literal(args[2]) if len(args) == 3 else 1
    if not step:
        raise Unsupported("reversed(range(...)) with a step that is not a non-zero integer constant",
                          node.lineno, node.col_offset)
    size = abs(step)
    # The last element is start + ((stop - start - 1) // step) * step (for step > 0); for an
    # empty range this start lies on the far side of the new stop, so it stays empty.
    span = _binary(_binary(copy.deepcopy(stop), ast.Sub(), copy.deepcopy(start)), ast.Sub(), one()) if step > 0 else \
        _binary(_binary(copy.deepcopy(start), ast.Sub(), copy.deepcopy(stop)), ast.Sub(), one())
    offset = _binary(_binary(span, ast.FloorDiv(), ast.Constant(size)), ast.Mult(), ast.Constant(size))
    last = _binary(copy.deepcopy(start), ast.Add() if step > 0 else ast.Sub(), offset)
    end = _binary(copy.deepcopy(start), ast.Sub() if step > 0 else ast.Add(), one())
    return _call("range", last, end, ast.Constant(-step))


# -- statements -------------------------------------------------------------------------
def statement(node: ast.stmt, fresh: Callable[[], str] = _default_fresh) -> list[ast.stmt] | None:
    if isinstance(node, EmptyReduction):
        return None
    divided = _divmod(node, fresh)
    if divided is not None:
        return divided
    if isinstance(node, (ast.For, ast.While)) and node.orelse:
        return early_exits.loop_else(node, fresh)
    return _hoist_reductions(node, fresh)


def _divmod(node: ast.stmt, fresh) -> list[ast.stmt] | None:
    """``q, r = divmod(a, b)``: Python's divmod is exactly (a // b, a % b), for ints,
    floats and NumPy scalars alike; both operands are evaluated once, first."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)
            and _path(node.value.func) == "divmod"):
        return None
    target, call = node.targets[0], node.value
    if (not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != 2 or len(call.args) != 2
            or call.keywords or any(isinstance(e, ast.Starred) for e in (*target.elts, *call.args))):
        raise Unsupported("divmod() other than 'q, r = divmod(a, b)'", node.lineno, node.col_offset)
    a, b, quotient, remainder = fresh(), fresh(), fresh(), fresh()
    statements = [_assign(a, call.args[0]), _assign(b, call.args[1]),
                  _assign(quotient, _binary(_name(a), ast.FloorDiv(), _name(b))),
                  _assign(remainder, _binary(_name(a), ast.Mod(), _name(b))),
                  _assign(target.elts[0], _name(quotient)), _assign(target.elts[1], _name(remainder))]
    _assume(statements[0], "divmod")
    return _located(statements, node)


def _is_reduction(node: ast.AST) -> bool:
    """sum(...), functools.reduce(...), and min/max of one iterable, with key= or default= or
    both (min(a, b) is a plain call)."""
    if not isinstance(node, ast.Call) or _path(node.func) not in REDUCTIONS:
        return False
    return _path(node.func) not in ("min", "max") or (
        len(node.args) == 1 and all(k.arg in ("key", "default") for k in node.keywords))


def _hoist_reductions(node: ast.stmt, fresh) -> list[ast.stmt] | None:
    """Each reduction call in the statement's value becomes a loop run before it, into a
    hidden accumulator the statement then reads."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)) and node.value is not None:
        field = "value"   # (out.append(max(col)): the argument's reduction first, as the call would)
    elif isinstance(node, ast.If):
        field = "test"
    else:
        return None
    root = getattr(node, field)
    if not any(_is_reduction(n) for n in ast.walk(root)):
        return None
    hoisted: list[ast.stmt] = []

    class Replace(ast.NodeTransformer):
        def visit_Call(self, call):
            if not _is_reduction(call):
                return self.generic_visit(call)
            statements, result = _reduction(call, fresh)
            hoisted.extend(statements)
            return ast.copy_location(_name(result), call)

        def visit_Lambda(self, lambda_node):  # its own scope, evaluated later: untouched
            return lambda_node

    _check_order(root, root if isinstance(node, ast.Expr) else None)
    new = copy.copy(node)
    setattr(new, field, Replace().visit(copy.deepcopy(root)))
    if not hoisted:
        return None
    return _located([*hoisted, new], node)


def _outside_reductions(node: ast.AST):
    """The nodes of an expression, not looking inside reductions (nor lambdas)."""
    yield node
    if _is_reduction(node) or isinstance(node, ast.Lambda):
        return
    for child in ast.iter_child_nodes(node):
        yield from _outside_reductions(child)


def _check_order(root: ast.expr, statement_call=None) -> None:
    """Running a reduction before its statement is exact when Python evaluates it
    unconditionally and nothing evaluated before it could change what it reads (a
    statement's own ``out.append(...)`` is called after its arguments, as before)."""
    for node in _outside_reductions(root):
        conditional = []
        if isinstance(node, ast.IfExp):
            conditional = [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            conditional = node.values[1:]
        elif isinstance(node, ast.Compare):
            conditional = node.comparators[1:]
        for part in conditional:
            if any(_is_reduction(n) for n in ast.walk(part)):
                raise Unsupported("a reduction evaluated only on some paths of an expression",
                                  part.lineno, part.col_offset)
        if isinstance(node, ast.Call) and not _is_reduction(node) and not (
                node is statement_call and (_path(node.func) or "").rpartition(".")[2] in ("append", "extend")):
            path = _path(node.func) or ""
            if path not in _PURE_CALLS and not path.startswith("math."):
                raise Unsupported(f"a reduction in the same statement as a call to '{path or 'a function'}' "
                                  "(their order would change)", node.lineno, node.col_offset)


@record
class _Fold:
    """How one reduction combines elements into the accumulator ``acc``."""

    first: Callable[[ast.expr], list[ast.stmt]]   # the first element's value -> statements
    step: Callable[[ast.expr], list[ast.stmt]]    # one more element's value -> statements
    empty: EmptyReduction                         # after a loop that saw no element


def _reduction(call: ast.Call, fresh) -> tuple[list[ast.stmt] | None, str]:
    """(statements computing the reduction into a hidden accumulator, its name)."""
    where = (call.lineno, call.col_offset)
    function = _path(call.func)
    args, keywords = call.args, call.keywords
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
        raise Unsupported(f"{function}() with * or ** arguments", *where)
    acc = fresh()
    acc_name = lambda: _name(acc)  # noqa: E731
    prologue: list[ast.stmt] = []
    if function == "sum":
        starts = args[1:] + [k.value for k in keywords if k.arg == "start"]
        if len(args) not in (1, 2) or len(starts) > 1 or any(k.arg != "start" for k in keywords):
            raise Unsupported("sum() with unusual arguments", *where)
        start = ast.Constant(0)
        if starts:
            start = _name(fresh())
            prologue.append(_assign(start.id, starts[0]))
        fold = _Fold(lambda e: [_assign(acc, sum_step(_binary(copy.deepcopy(start), ast.Add(), e)))],
                     lambda e: [_assign(acc, sum_step(_binary(acc_name(), ast.Add(), e)))],
                     EmptyReduction(target=acc, value=copy.deepcopy(start), raises=False))
        iterable = args[0]
    elif function in ("min", "max"):
        fold = _extreme(function, acc, {k.arg: k.value for k in keywords}, prologue, fresh, where)
        iterable = args[0]
    else:
        if len(args) not in (2, 3) or keywords:
            raise Unsupported("functools.reduce() with unusual arguments", *where)
        combine = _applied(args[0], 2, "functools.reduce()", where)
        iterable = args[1]
        if len(args) == 3:
            initial = fresh()
            prologue.append(_assign(initial, args[2]))
            fold = _Fold(lambda e: [_assign(acc, combine(_name(initial), e))],
                         lambda e: [_assign(acc, combine(acc_name(), e))],
                         EmptyReduction(target=acc, value=_name(initial), raises=False))
        else:
            fold = _Fold(lambda e: [_assign(acc, e)], lambda e: [_assign(acc, combine(acc_name(), e))],
                         EmptyReduction(target=acc, value=ast.Constant(0), raises=True))
    if isinstance(iterable, ast.GeneratorExp):
        loop = _generator_loop(iterable, fold, prologue, fresh, where)
    else:
        element = fresh()
        loop = _single_loop(_name(element, store=True), iterable, _name(element), [], fold, prologue, fresh, where)
    _assume(loop[0], function)
    return loop, acc


def _extreme(function: str, acc: str, keywords: dict, prologue: list, fresh, where) -> _Fold:
    """min()/max() of one iterable as CPython's min_max runs it: each element's key (the
    element itself without key=) compared with the best key so far by < (min) or > (max),
    so the first of equal or unordered keys stays; default= evaluated before the loop and
    given for no element, which otherwise raises ValueError."""
    op = ast.Gt() if function == "max" else ast.Lt()
    key = keywords.get("key")
    if isinstance(key, ast.Constant) and key.value is None:
        key = None
    if key is not None:
        key = _applied(key, 1, f"{function}()'s key", where)
        best_key = fresh()
    empty = EmptyReduction(target=acc, value=ast.Constant(0), raises=True)
    if "default" in keywords:
        default = fresh()
        prologue.append(_assign(default, keywords["default"]))
        empty = EmptyReduction(target=acc, value=_name(default), raises=False)

    def first(e):
        return [_assign(acc, e)] + ([_assign(best_key, key(_name(acc)))] if key is not None else [])

    def better(e):
        value = fresh()
        if key is None:
            return [_assign(value, e), ast.If(test=ast.Compare(left=_name(value), ops=[op], comparators=[_name(acc)]),
                                             body=[_assign(acc, _name(value))], orelse=[])]
        value_key = fresh()
        return [_assign(value, e), _assign(value_key, key(_name(value))),
                ast.If(test=ast.Compare(left=_name(value_key), ops=[op], comparators=[_name(best_key)]),
                       body=[_assign(acc, _name(value)), _assign(best_key, _name(value_key))], orelse=[])]
    return _Fold(first, better, empty)


def _applied(function: ast.expr, arity: int, what: str, where) -> Callable[..., ast.expr]:
    """A function of ``arity`` arguments applied to values: a lambda's body with the values
    in place of its parameters, or an ordinary call of a named function (which the lowering
    inlines or rejects)."""
    if isinstance(function, ast.Lambda):
        parameters = function.args
        if (parameters.posonlyargs or parameters.vararg or parameters.kwonlyargs or parameters.kwarg
                or parameters.defaults or len(parameters.args) != arity):
            raise Unsupported(f"{what} with a lambda that does not take exactly {arity} argument"
                              + "s" * (arity > 1), *where)
        names = [a.arg for a in parameters.args]
        return lambda *values: _substituted(function.body, dict(zip(names, values)))
    if _path(function) is None:
        raise Unsupported(f"{what} of a computed function", *where)
    return lambda *values: ast.Call(func=copy.deepcopy(function), args=list(values), keywords=[])


def own_clauses(generator: ast.GeneratorExp | ast.ListComp, fresh, where) -> tuple[list, ast.expr]:
    """(target, iterable, conditions) per clause and the element, the generator's variables
    renamed to hidden names: they are its own (the first iterable runs outside, as written)."""
    bound = {}
    for clause in generator.generators:
        if clause.is_async:
            raise Unsupported(f"async {'comprehension' if isinstance(generator, ast.ListComp) else 'generator expression'}",
                              *where)
        for child in ast.walk(clause.target):
            if isinstance(child, ast.Name):
                bound.setdefault(child.id, fresh())
    clauses = [(renamed(clause.target, bound), clause.iter if k == 0 else renamed(clause.iter, bound),
                [renamed(c, bound) for c in clause.ifs]) for k, clause in enumerate(generator.generators)]
    return clauses, renamed(generator.elt, bound)


def _generator_loop(generator: ast.GeneratorExp, fold: _Fold, prologue, fresh, where) -> list[ast.stmt]:
    clauses, element = own_clauses(generator, fresh, where)
    if len(clauses) == 1 and not clauses[0][2]:
        target, iterable, _ = clauses[0]
        return _single_loop(target, iterable, element, [], fold, prologue, fresh, where)
    return _flagged_loop(clauses, element, fold, prologue, fresh)


def _single_loop(target, iterable, element, ifs, fold: _Fold, prologue, fresh, where) -> list[ast.stmt]:
    """One ``for`` clause without conditions: the first element peeled off, so the loop
    is the plain ``acc = acc + e`` the parallel analysis recognises."""
    source = _source(iterable, set())
    if source is None and isinstance(iterable, ast.Call) and _path(iterable.func) == "range":
        return _range_peeled(target, iterable, element, fold, prologue, fresh, where)
    if source is None or source.start is not None:
        return _flagged_loop([(target, iterable, ifs)], element, fold, prologue, fresh)
    count = fresh()
    index = fresh()
    first = _unpack(target, source.element(ast.Constant(0)), iterable)
    rest = _unpack(target, source.element(_name(index)), iterable)
    loop = ast.For(target=_name(index, store=True), iter=_call("range", ast.Constant(1), _name(count)),
                   body=[*rest, *fold.step(copy.deepcopy(element))], orelse=[])
    test = ast.Compare(left=_name(count), ops=[ast.Gt()], comparators=[ast.Constant(0)])
    statements = [*prologue, _assign(count, _count(source)),
                  ast.If(test=test, body=[*first, *fold.first(copy.deepcopy(element)), loop], orelse=[fold.empty])]
    _assume(statements[0], *source.builtins)
    return statements


def _range_peeled(target, iterable: ast.Call, element, fold: _Fold, prologue, fresh, where) -> list[ast.stmt]:
    args = iterable.args
    if iterable.keywords or not 1 <= len(args) <= 3 or any(isinstance(a, ast.Starred) for a in args):
        raise Unsupported("range() with unusual arguments", *where)
    step = 1
    if len(args) == 3:
        step = int_literal(args[2])
        if not step:
            return _flagged_loop([(target, iterable, [])], element, fold, prologue, fresh)
    if not isinstance(target, ast.Name):
        raise Unsupported("loop target is not a plain name", *where)
    low, high = fresh(), fresh()
    bounds = [_assign(low, ast.Constant(0) if len(args) == 1 else args[0]),
              _assign(high, args[0] if len(args) == 1 else args[1])]
    variable = target.id
    rest = ast.For(target=_name(variable, store=True),
                   iter=_call("range", _binary(_name(low), ast.Add(), ast.Constant(step)), _name(high), ast.Constant(step)),
                   body=fold.step(copy.deepcopy(element)), orelse=[])
    test = ast.Compare(left=_name(low), ops=[ast.Lt() if step > 0 else ast.Gt()], comparators=[_name(high)])
    first = fold.first(_substituted(element, {variable: _name(low)}))
    # Typing checks the range's arguments are integers (as range() does), taken or not.
    return [*prologue, *bounds, ast.If(test=test, body=[*first, rest], orelse=[fold.empty])]


def _flagged_loop(clauses, element, fold: _Fold, prologue, fresh) -> list[ast.stmt]:
    """Any generator (several clauses, conditions): a flag tells the first element."""
    first, value = fresh(), fresh()
    body = nested_loops(clauses, [_assign(value, element), ast.If(
        test=_name(first), body=[*fold.first(_name(value)), _assign(first, ast.Constant(False))],
        orelse=fold.step(_name(value)))])
    return [*prologue, _assign(first, ast.Constant(True)), *body,
            ast.If(test=_name(first), body=[fold.empty], orelse=[])]


def introduced_names(loop: ast.For) -> list[str]:
    """Built-ins the rewritten forms of this loop call (so they must be site live-ins)."""
    for node in ast.walk(loop):
        if (isinstance(node, ast.For) and is_element_loop(node)) or _is_reduction(node) or (
                isinstance(node, ast.Call) and _path(node.func) == "divmod"):
            return list(INTRODUCED_BUILTINS)
    return []
