"""The lowering of calls to user-defined Python functions (inlined, see ``inline.py``)
and of tuples of scalars (one variable per component), as a part of ``lower._Lowerer``."""
from __future__ import annotations

import ast
import os
from typing import Callable

from ..record import record
from ..errors import Unsupported
from ..ir import nodes as ir
from . import inline
from .syntax import _unsupported, _where, dotted_path, int_literal


@record
class _Callee:
    """The names of one inlined call: how the callee's names map to the caller's."""

    route: str              # path to the function object from the loop's live-ins
    names: dict             # parameter or local name -> IR path (alias or renamed temporary)
    free: frozenset         # the function's free (closure) variables
    code: object            # its code object (recursion check)


@record
class _Row:
    """A parameter bound to a row ``A[i]`` of an array: its subscripts extend the prefix
    (a column of ``zip(*A)``: they come before the suffix, frontend/columns.py)."""

    array: str
    prefix: tuple  # IR index expressions, free of array reads (the callee may write arrays)
    suffix: tuple = ()


@record
class _Objects:
    """A name standing for one object of a list used through its fields (frontend/fields.py):
    ``p`` of ``for p in ps``, or a method's ``self`` bound to it: ``name.x`` is the field array
    ``array.__items__.x`` at ``prefix``."""

    array: str
    prefix: tuple


@record
class _Constant:
    """A parameter bound to a number literal (``step(A, B, 0.5)``): read as that constant."""

    value: object


# A resolver maps a call path to (function object, receiver path or None) when the path
# names a user-defined Python function at the loop's first entry, else None.
Resolver = Callable[[str], "tuple[object, str | None] | None"]
NO_RETURN_VALUE = object()
_RECEIVER = object()  # the bound object of a method call, passed as its first parameter


def item_call(node: ast.Subscript, method: str, arguments: list) -> ast.Call:
    """``grid.__getitem__(key)`` (``__setitem__(key, value)``) for ``grid[key]``: what CPython
    calls for an object whose class defines it (the lowering then inlines it)."""
    function = ast.Attribute(value=node.value, attr=method, ctx=ast.Load())
    return ast.Call(func=ast.copy_location(function, node), args=arguments, keywords=[])


class CallLowering:
    """Methods of the lowerer for calls and tuples; they use its ``expression``,
    ``block``, ``bind``, ``length`` and bookkeeping (``functions``, ``scalar_reads``)."""

    # tuples of scalars: one variable per component (scalar replacement) ------------
    def values_of(self, node: ast.expr) -> list[ir.Expr]:
        """An expression's value: one, or the components of a tuple variable."""
        plain = isinstance(node, ast.Name) and not self.constant_alias(node.id) and not self.row_alias(node.id)
        path = self.rename(node.id) if plain else None
        value = ir.Name(path, **_where(node)) if path in self.tuples else self.expression(node)
        if isinstance(value, ir.Name) and value.id in self.tuples:
            return [ir.Name(f"{value.id}[{k}]", **_where(node)) for k in range(self.tuples[value.id])]
        return [value]

    def bind_tuple(self, target: ast.Name, components: list[ir.Expr], node: ast.stmt) -> list[ir.Stmt]:
        name = self.rename(target.id)
        if not name.startswith("mg_tmp"):
            raise _unsupported(target, f"a tuple assigned to '{target.id}' (visible after the loop; only "
                                       "a function's locals and return values may hold tuples)")
        if self.tuples.setdefault(name, len(components)) != len(components):
            raise _unsupported(target, f"{ir.describe_name(name)} holds tuples of different lengths")
        return [self.bind(f"{name}[{k}]", value, node) for k, value in enumerate(components)]

    def tuple_item(self, node: ast.Subscript) -> ir.Name | None:
        """``p[k]`` of a tuple variable, with a constant k: its component."""
        if not isinstance(node.value, ast.Name) or self.row_alias(node.value.id):
            return None
        path = self.rename(node.value.id)
        if path not in self.tuples:
            return None
        position = int_literal(node.slice)
        if position is None:
            raise _unsupported(node, "a tuple indexed with a computed index")
        if not -self.tuples[path] <= position < self.tuples[path]:
            raise _unsupported(node, "tuple index out of range (Python raises IndexError)")
        return ir.Name(f"{path}[{position % self.tuples[path]}]", **_where(node))

    # subscripts of objects whose class defines __getitem__ / __setitem__ in Python -----
    def item_method(self, container: ast.expr, method: str) -> bool:
        """Does ``container[...]`` call a Python method of the object's class (``grid[x, y]`` of
        a grid class wrapping a flat array)?  It is then lowered as that call, inlined; the guard
        checks the class's method at each entry as for any method the loop calls."""
        path = dotted_path(container)
        if path is None or self.resolve is None or self.row_alias(path) is not None:
            return False
        try:
            renamed = self.rename(path)
        except Unsupported:   # a constant, a row or a list's object: not a container object
            return False
        if renamed is None or renamed in self.tuples or renamed in self.array_ranks:
            return False
        callee = self.resolve(f"{renamed}.{method}")
        return callee is not None and callee[1] is not None   # found on the class, as CPython looks

    def item_store(self, target: ast.Subscript, value: ir.Expr, node: ast.stmt) -> list[ir.Stmt]:
        """``grid[key] = value`` as ``grid.__setitem__(key, value)``: the value (already lowered,
        evaluated first as in CPython) goes through a temporary."""
        outer, self.pending = self.pending, []
        try:
            held = self.temporary()
            self.pending.append(ir.Assign(held, value, **_where(node)))
            argument = ast.copy_location(ast.Name(id=held, ctx=ast.Load()), node)
            self.call(ast.copy_location(item_call(target, "__setitem__", [target.slice, argument]), node),
                      value_used=False)
            return self.pending
        finally:
            self.pending = outer

    def item_update(self, node: ast.AugAssign, op: str) -> list[ir.Stmt]:
        """``grid[key] += v``: ``__getitem__(key)``, then ``v``, then ``__setitem__(key, result)``,
        as CPython runs it; the key is lowered twice, so it may not call a function."""
        if any(isinstance(part, ast.Call) for part in ast.walk(node.target.slice)):
            raise _unsupported(node.target, "a call in the key of an augmented assignment through '__setitem__'")
        where = _where(node)
        value = ir.BinOp(op, self.expression(node.target), self.expression(node.value), **where)
        return self.store(node.target, value, node)

    # calls to Python functions: inlined ------------------------------------------
    def rename(self, path: str | None) -> str | None:
        """A name as the innermost inlined function sees it, as a path from the loop's
        live-ins: its parameter's argument, its renamed local, or a route to its
        global or closure variable."""
        if path is None or not self.callees or path.startswith("mg_tmp"):
            return path
        callee = self.callees[-1]
        head, dot, rest = path.partition(".")
        if isinstance(callee.names.get(head), _Constant):
            raise Unsupported(f"the number passed as {ir.describe_name(path)} used other than as a value")
        if isinstance(callee.names.get(head), _Row):
            raise Unsupported(f"row {ir.describe_name(path)} of an array used other than by subscripts or len()")
        if isinstance(callee.names.get(head), _Objects):
            raise Unsupported(f"the object {ir.describe_name(path)} used other than through its fields")
        if head in callee.names:
            base = callee.names[head]
        elif head in callee.free:
            base = f"{callee.route}.__closure__.{head}"
        else:
            base = f"{callee.route}.__globals__.{head}"
        return base + dot + rest

    def inline(self, node: ast.Call, path: str, function, receiver, value_used: bool):
        """Lower ``f(args)`` as f's body (pending before the current statement); returns the
        name holding its value."""
        where = _where(node)
        code = function.__code__
        if any(callee.code is code for callee in self.callees):
            raise _unsupported(node, f"recursive call to {ir.describe_name(path)}")
        if len(self.callees) >= inline.MAX_DEPTH:
            raise _unsupported(node, f"calls nested more than {inline.MAX_DEPTH} deep")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise _unsupported(node, f"call to '{path}' with * or ** arguments")
        try:
            definition = inline.check_callable(function, path)
            arguments = ([_RECEIVER] if receiver else []) + list(node.args)
            bound = inline.bind_arguments(definition, path, arguments, {k.arg: k.value for k in node.keywords})
            assigned = inline.assigned_in(definition)
            array_locals, statements_of = inline.array_locals(definition)
        except Unsupported as problem:
            raise Unsupported(problem.reason, problem.line or node.lineno, problem.col or node.col_offset) from None
        prefix = ir.inlined_prefix(function.__name__, next(self.temporaries))
        names: dict[str, str] = {}
        setup: list[ir.Stmt] = []
        rows = inline.array_parameters(definition) - assigned
        for parameter, argument in bound.items():  # evaluated in the caller's scope, left to right
            if argument is _RECEIVER and isinstance(receiver, _Objects):   # a list's object (fields.py)
                names[parameter] = receiver
                continue
            objects = self.objects_named(argument) if isinstance(argument, ast.Name) else \
                self.passed_object(argument, setup) if isinstance(argument, ast.Subscript) else None
            if objects is None and isinstance(argument, ast.Name) and not self.callees \
                    and argument.id in self.objects.refused:   # why the function cannot take it
                raise _unsupported(argument, self.objects.refused[argument.id])
            if objects is not None:   # ``kick(p, dt)``: the parameter stands for the object too
                if parameter in assigned:
                    raise _unsupported(argument, f"'{path}' rebinds its parameter '{parameter}', passed an object")
                names[parameter] = objects
                continue
            if parameter in rows and isinstance(argument, (ast.Subscript, ast.Name)):
                row = self.row_argument(argument, setup)
                if row is not None:
                    names[parameter] = row
                    continue
            if isinstance(argument, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in argument.elts):
                components = [self.expression(element) for element in argument.elts]   # grid[x, y]'s key
                self.tuples[prefix + parameter] = len(components)
                setup += [ir.Assign(f"{prefix}{parameter}[{k}]", c, **where) for k, c in enumerate(components)]
                names[parameter] = prefix + parameter
                continue
            literal = self.literal_argument(argument)
            if literal is not None and parameter not in assigned:
                names[parameter] = literal  # no temporary: the constant itself where it is read
                continue
            if argument is _RECEIVER:
                alias = receiver
            elif argument is None:
                alias = f"{path}.__defaults__.{parameter}"
            else:
                alias = self.rename(dotted_path(argument))
            if alias is not None and parameter not in assigned:
                names[parameter] = alias  # read-only parameter: the argument itself
                continue
            value = self.expression(argument) if isinstance(argument, ast.AST) else self.read(alias, where)
            if isinstance(value, ir.Name) and value.id in self.tuples:  # a tuple: its components
                if parameter not in assigned:
                    names[parameter] = value.id
                    continue
                components = [ir.Name(f"{value.id}[{k}]", **where) for k in range(self.tuples[value.id])]
                self.tuples[prefix + parameter] = len(components)
                setup += [ir.Assign(f"{prefix}{parameter}[{k}]", c, **where) for k, c in enumerate(components)]
                names[parameter] = prefix + parameter
                continue
            names[parameter] = prefix + parameter
            setup.append(ir.Assign(prefix + parameter, value, **where))
        for name in assigned - set(bound):
            names[name] = prefix + name
        self.callees.append(_Callee(path, names, frozenset(code.co_freevars), code))
        try:
            for local, array in array_locals:   # m = self.m then m[i]: read as self.m[i]
                names[local] = self.rename(array)
            result = prefix + ir.CALL_RESULT_SUFFIX[1:]
            statements = inline.structure_returns(list(statements_of), result, prefix + "done", value_used, path)
            body = self.block(statements)
        except Unsupported as problem:  # located in the callee's file: say where, at the call
            where_in_callee = f"{os.path.basename(code.co_filename)}:{problem.line}" if problem.line else ""
            raise Unsupported(f"in {ir.describe_name(path)} ({where_in_callee or code.co_name}): {problem.reason}",
                              node.lineno, node.col_offset) from None
        finally:
            self.callees.pop()
        self.inlined[path] = code
        self.functions.setdefault(path, None)
        self.scalar_reads.pop(path, None)
        self.pending += setup + list(body)
        return ir.Name(result, **where)

    def constant_alias(self, name: str) -> _Constant | None:
        constant = self.callees[-1].names.get(name) if self.callees else None
        return constant if isinstance(constant, _Constant) else None

    def literal_argument(self, argument) -> _Constant | None:
        """An int/float/bool literal (or a parameter bound to one) passed as an argument."""
        if isinstance(argument, ast.Name):
            return self.constant_alias(argument.id)
        sign = None
        if isinstance(argument, ast.UnaryOp) and isinstance(argument.op, (ast.USub, ast.UAdd)):
            sign, argument = argument.op, argument.operand
        if not isinstance(argument, ast.Constant) or type(argument.value) not in (int, float, bool):
            return None
        value = argument.value
        if sign is not None and type(value) is not bool:
            value = -value if isinstance(sign, ast.USub) else +value
        elif sign is not None:
            return None
        return _Constant(value)

    def row_alias(self, path: str | None) -> _Row | None:
        if path is None:
            return None
        row = self.callees[-1].names.get(path) if self.callees else self.site_rows.get(path)
        return row if isinstance(row, _Row) else None

    def row_argument(self, argument: ast.expr, setup: list) -> _Row | None:
        """An argument ``A[i]`` (or a row parameter passed on) for an array parameter: the
        row, with ``len(A[i])`` evaluated at the call (Python's IndexError happens there)."""
        if isinstance(argument, ast.Name):
            return self.row_alias(argument.id)
        length = self.length(argument, argument)
        where = _where(argument)
        prefix = tuple(self.as_at_call(index, setup, where) for index in length.prefix)
        setup.append(ir.Assign(self.temporary(), length, **where))
        return _Row(length.array, prefix)

    def as_at_call(self, index: ir.Expr, setup: list, where: dict) -> ir.Expr:
        """An index an argument passes (a row, an object), as at the call whatever the callee
        writes: one reading arrays or calling is copied into a temporary first."""
        if not any(isinstance(n, (ir.Load, ir.Call)) for n in ir.walk(index)):
            return index
        copy = self.temporary()
        setup.append(ir.Assign(copy, index, **where))
        return ir.Name(copy, **where)

    def read(self, path: str, where: dict) -> ir.Name:
        self.scalar_reads.setdefault(path, None)
        return ir.Name(path, **where)

    def capture(self, node: ast.expr) -> tuple[ir.Expr, list[ir.Stmt]]:
        """Lower an expression evaluated only conditionally: (its value, the inlined
        bodies it needs), kept apart from the current statement's."""
        outer, self.pending = self.pending, []
        try:
            return self.expression(node), self.pending
        finally:
            self.pending = outer

    def without_calls(self, node: ast.expr, what: str) -> ir.Expr:
        value, pending = self.capture(node)
        if pending:
            raise _unsupported(node, what)
        return value

    def temporary(self) -> str:
        return f"mg_tmp{next(self.temporaries)}"

    def conditional(self, node: ast.IfExp) -> ir.Expr:
        """``a if c else b``; a call in a branch becomes an ``if`` statement, so the call
        runs only when Python would run it."""
        where = _where(node)
        test = self.expression(node.test)
        body, body_pending = self.capture(node.body)
        orelse, orelse_pending = self.capture(node.orelse)
        if not body_pending and not orelse_pending:
            return ir.IfExp(test, body, orelse, **where)
        result = self.temporary()
        self.pending.append(ir.If(test, (*body_pending, ir.Assign(result, body, **where)),
                                  (*orelse_pending, ir.Assign(result, orelse, **where)), **where))
        return ir.Name(result, **where)

    def boolean(self, node: ast.BoolOp) -> ir.Expr:
        """``a and b``/``a or b``; a call after the first operand becomes nested ``if``
        statements (short-circuit evaluation)."""
        where = _where(node)
        op = "and" if isinstance(node.op, ast.And) else "or"
        first = self.expression(node.values[0])
        rest = [self.capture(value) for value in node.values[1:]]
        if not any(pending for _, pending in rest):
            return ir.BoolOp(op, (first, *(value for value, _ in rest)), **where)
        result = self.temporary()
        goes_on = ir.Name(result, **where) if op == "and" else ir.UnaryOp("not", ir.Name(result, **where), **where)
        chain: tuple[ir.Stmt, ...] = ()
        for value, pending in reversed(rest):
            rest = (ir.If(goes_on, chain, (), **where),) if chain else ()
            chain = (*pending, ir.Assign(result, value, **where), *rest)
        self.pending += [ir.Assign(result, first, **where), ir.If(goes_on, chain, (), **where)]
        return ir.Name(result, **where)


def float_text(node: ast.Call, written: str) -> tuple | None:
    """The argument of ``float("inf")`` (any str Python's float() reads: "-inf", "nan", "1e3")
    as the float it gives, a constant of the kernel: ``float`` stays a call, checked to be
    the built-in at each entry.  None for other calls; a str float() rejects stays CPython's."""
    if not (written == "float" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
            and type(node.args[0].value) is str):
        return None
    try:
        return (ir.Const(float(node.args[0].value), **_where(node.args[0])),)
    except ValueError:
        raise _unsupported(node, f"float() of {node.args[0].value!r} (Python raises ValueError)") from None


def array_arguments(node: ast.Call, resolve: Resolver) -> set[str]:
    """Names passed to a user function's array parameters in this call (none where it does not
    resolve, or cannot be inlined: the lowering then says why)."""
    path = dotted_path(node.func)
    callee = resolve(path) if path else None
    if callee is None:
        return set()
    function, receiver = callee
    try:
        definition = inline.check_callable(function, path)
        arguments = ([None] if receiver else []) + list(node.args)
        bound = inline.bind_arguments(definition, path, arguments, {k.arg: k.value for k in node.keywords})
    except (Unsupported, TypeError):
        return set()
    rows = inline.array_parameters(definition)
    return {argument.id for parameter, argument in bound.items()
            if parameter in rows and isinstance(argument, ast.Name)}
