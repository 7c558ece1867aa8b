"""Lowering: a Python ``for ... in range`` loop (``ast``) to the loop IR.

Only the supported subset lowers; anything else raises ``Unsupported`` with the
reason and the source location, and the loop stays in CPython.
"""
from __future__ import annotations

import ast
import itertools
import sys

from ..errors import Unsupported
from ..ir import nodes as ir
from . import desugar, early_exits, fields, object_uses
from .appends import AppendLowering, grows_in_place
from .row_swaps import RowSwapLowering, check_swapped
from .built_rows import built_rows
from .columns import ColumnLowering, column_source
from .lower_calls import NO_RETURN_VALUE, CallLowering, Resolver, _Callee, _Objects, _Row, array_arguments, \
    float_text, item_call
from .syntax import _unsupported, _where, dotted_path, int_literal

BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
          ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
          ast.LShift: "<<", ast.RShift: ">>"}
UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class _Lowerer(CallLowering, AppendLowering, RowSwapLowering, ColumnLowering, fields.FieldLowering):
    def __init__(self, resolve: Resolver | None = None) -> None:
        self.resolve = resolve
        self.callees: list[_Callee] = []       # the inlined calls being lowered, innermost last
        self.inlined: dict[str, object] = {}   # function path -> code object inlined for it
        self.pending: list[ir.Stmt] = []       # inlined bodies to run before the current statement
        self.tuples: dict[str, int] = {}        # variable holding a tuple -> its length
        self.array_ranks: dict[str, set[int]] = {}
        self.written_arrays: set[str] = set()
        self.length_only: set[str] = set()
        self.min_rank: dict[str, int] = {}   # len(A[0]) needs A to have at least rank 2
        self.shape_dims: dict[str, set] = {}  # a.shape[k] reads
        self.tuple_indexed: set[str] = set()  # arrays subscripted as A[i, j]
        self.widths: dict[str, int] = {}      # arrays whose rows a loop target unpacks -> their length
        self.scalar_reads: dict[str, None] = {}
        self.assigned: dict[str, None] = {}
        self.functions: dict[str, None] = {"range": None}
        self.assumed: dict[str, str] = {}    # path -> the built-in a desugared form relies on
        self.temporaries = itertools.count()
        self.rebound_groups: list[frozenset] = []   # names some ``a, b = b, a`` exchanges
        self.appended: dict[str, None] = {}   # lists the loop appends to (``values.append(v)``)
        self.built_rows: dict[str, str] = {}   # row lists the site's code builds -> their table (built_rows.py)
        self.joined_rows: dict[str, str] = {}  # ... those joined by a ``table.append(row)`` lowered
        self.values_appended: set[str] = set()   # lists given values (not rows) by some Append
        self.appended_in_calls: set[str] = set()   # lists an inlined function appends to
        self.swapped_rows: set[str] = set()        # tables whose rows a RowSwap exchanges
        self.keyed: dict[str, tuple] = {}   # table of ``table[k].append(v)`` -> (hidden values list, source)
        # ``for row in table`` at the site's own level: the name of each row used as an array (a
        # ``_Row`` of ``table``, its elements read in place), inside its loop's body only.
        self.site_rows: dict[str, _Row] = {}
        self.row_names: set[str] = set()   # names that may become such aliases (``row_candidates``)
        self.row_aliases: dict[str, str] = {}   # each alias made -> the array it is a row of
        self.column_aliases: dict[str, str] = {}   # ``for col in zip(*rows)``'s col -> rows (columns.py)
        self.objects = object_uses.NONE         # lists used through their items' fields (object_uses.py)
        self.object_rows: dict = {}             # alias ``p`` of ``for p in ps`` -> its _Objects (list, indices)

    # statements -------------------------------------------------------------
    def block(self, statements: list[ast.stmt]) -> tuple[ir.Stmt, ...]:
        lowered: list[ir.Stmt] = []
        for statement in statements:
            lowered.extend(self.statement(statement))
        return tuple(lowered)

    def statement(self, node: ast.stmt) -> list[ir.Stmt]:
        """The statement's IR, preceded by the bodies of the functions its expressions call."""
        outer, self.pending = self.pending, []
        try:
            lowered = self.plain_statement(node)
            return self.pending + lowered
        finally:
            self.pending = outer

    def plain_statement(self, node: ast.stmt) -> list[ir.Stmt]:
        rewritten = desugar.statement(node, self.temporary)
        if rewritten is not None:
            self.assume(rewritten)
            return list(self.block(rewritten))
        if isinstance(node, desugar.EmptyReduction):  # typing decides: its value, or back to CPython
            assign = self.bind(node.target, self.expression(node.value), node)
            return [ir.EmptyReduction(assign.target, assign.value, raises=node.raises, **_where(node))]
        where = _where(node)
        if isinstance(node, ast.Assign):
            return self.assign(node.targets, node.value, node)
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                return []
            return self.assign([node.target], node.value, node)
        if isinstance(node, ast.AugAssign):
            if isinstance(node.op, ast.Add) and isinstance(node.value, ast.List):   # out += [e, ...]
                appended = self.appends(node.target, node.value.elts, node)
                if appended is not None:
                    return appended
            op = BINARY[type(node.op)]
            if isinstance(node.target, ast.Name):
                value = ir.BinOp(op, self.expression(node.target), self.expression(node.value), **where)
                return [self.bind(node.target.id, value, node)]
            if isinstance(node.target, ast.Subscript) and self.item_method(node.target.value, "__setitem__"):
                return self.item_update(node, op)
            if isinstance(node.target, ast.Subscript):
                array, indices = self.subscript(node.target, written=True)
                value = ir.BinOp(op, ir.Load(array, indices, **where), self.expression(node.value), **where)
                return [ir.Store(array, indices, value, **where)]
            access = self.field_access(node.target, written=True)
            if access is not None:   # p.x += v: a field of a list's objects
                value = ir.BinOp(op, ir.Load(*access, **where), self.expression(node.value), **where)
                return [ir.Store(*access, value, **where)]
            if isinstance(node.target, ast.Attribute):   # self.total += x
                path = self.attribute_variable(node.target)
                value = ir.BinOp(op, self.expression(node.target), self.expression(node.value), **where)
                return [self.bind(path, value, node)]
            raise _unsupported(node.target)
        if isinstance(node, ast.For):
            return [self.range_loop(node)]
        if isinstance(node, ast.While):
            if node.orelse:
                raise _unsupported(node, "'while ... else'")
            test = self.expression(node.test)
            if self.pending:
                raise _unsupported(node.test, "a call to a Python function in a 'while' condition")
            return [ir.While(test, self.block(node.body), **where)]
        if isinstance(node, ast.If):
            return [ir.If(self.expression(node.test), self.block(node.body), self.block(node.orelse), **where)]
        if isinstance(node, ast.Break):
            return [ir.Break(**where)]
        if isinstance(node, ast.Continue):
            return [ir.Continue(**where)]
        if isinstance(node, ast.Pass):
            return [ir.Pass(**where)]
        if isinstance(node, ast.Raise):   # its exception is CPython's to make (lowered: nothing of it)
            return [ir.Raise(returned_none=getattr(node, "returns_none", False), **where)]
        if isinstance(node, ast.Assert):   # python -O compiled none (the loop CPython runs has none)
            failed = ir.UnaryOp("not", self.expression(node.test), **where)
            return [] if sys.flags.optimize else [ir.If(failed, (ir.Raise(**where),), (), **where)]
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):  # a docstring or a bare literal
                return []
            if isinstance(node.value, ast.Call):
                appended = self.append(node.value)
                if appended is not None:
                    return appended
                if self.call(node.value, value_used=False) is NO_RETURN_VALUE:
                    return []  # an inlined function: its body is pending
                name = dotted_path(node.value.func) or "a computed function"
                raise _unsupported(node, f"call to '{name}' as a statement (side effects)")
            raise _unsupported(node, "expression statement")
        raise _unsupported(node)

    def range_loop(self, node: ast.For) -> ir.For:
        rows_before, objects_before = dict(self.site_rows), dict(self.object_rows)
        try:
            return self.plain_range_loop(node)
        finally:
            self.site_rows = rows_before   # a row alias holds inside its loop's body only
            self.object_rows = objects_before

    def plain_range_loop(self, node: ast.For) -> ir.For:
        node = desugar.for_loop(node, self.temporary)
        self.assume([node])
        if not (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                and node.iter.func.id == "range"):
            raise _unsupported(node, "'for' over something other than range(...)")
        if node.orelse:
            raise _unsupported(node, "'for ... else'")
        if not isinstance(node.target, ast.Name):
            raise _unsupported(node.target, "loop target is not a plain name")
        arguments = node.iter.args
        if node.iter.keywords or not 1 <= len(arguments) <= 3 or any(isinstance(a, ast.Starred) for a in arguments):
            raise _unsupported(node.iter, "range() with unusual arguments")
        lowered = [self.expression(a) for a in arguments]
        one, zero = ir.Const(1, **_where(node)), ir.Const(0, **_where(node))
        start, stop, step = {1: lambda: (zero, lowered[0], one), 2: lambda: (lowered[0], lowered[1], one),
                             3: lambda: tuple(lowered)}[len(lowered)]()
        var = self.rename(node.target.id)
        self.assigned.setdefault(var, None)
        self.functions.setdefault(self.rename("range"), None)  # checked to be the builtin
        return ir.For(var, start, stop, step, self.block(node.body), **_where(node))

    def assign(self, targets: list[ast.expr], value_node: ast.expr, node: ast.stmt) -> list[ir.Stmt]:
        where = _where(node)
        if (not self.callees and len(targets) == 1 and isinstance(targets[0], ast.Name)
                and targets[0].id in self.built_rows and isinstance(value_node, ast.List) and not value_node.elts):
            return []   # row = []: the row starts where the one before it ended (built_rows.py)
        if (getattr(node, "element_bind", False) and not self.callees and isinstance(targets[0], ast.Name)
                and targets[0].id in self.row_names and isinstance(value_node, ast.Subscript)):
            setup: list[ir.Stmt] = []
            row = self.site_rows[targets[0].id] = self.row_argument(value_node, setup)
            self.row_aliases[targets[0].id] = row.array
            return setup
        alias = self.column_alias(targets, value_node, node)
        if alias is None:
            alias = self.object_alias(targets, value_node, node)
        if alias is None:
            alias = self.object_variable(targets, value_node, node)
        if alias is not None:
            return alias
        swap = self.row_swap(targets, value_node, node)
        if swap is not None:
            return [swap]
        rebind = self.rebind(targets, value_node, node)
        if rebind is not None:
            return [rebind]
        single = len(targets) == 1 and not isinstance(targets[0], (ast.Tuple, ast.List))
        if single and not isinstance(value_node, ast.Tuple):
            values = self.values_of(value_node)
            if len(values) == 1:
                self.unpacked(node, values[0])
                return self.store(targets[0], values[0], node)
        # Several targets or unpacking: evaluate the right side once, into temporaries.
        elif (isinstance(value_node, (ast.Tuple, ast.List))
              and not any(isinstance(e, ast.Starred) for e in value_node.elts)):
            values = [self.expression(e) for e in value_node.elts]
        else:
            values = self.values_of(value_node)
        statements: list[ir.Stmt] = []
        temporaries = []
        for value in values:
            name = f"mg_tmp{next(self.temporaries)}"
            statements.append(ir.Assign(name, value, **where))
            temporaries.append(ir.Name(name, **where))
        for target in targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                if len(values) == 1 or len(target.elts) != len(values):
                    raise _unsupported(target, "unpacking that is not a tuple of the same length")
                for element, value in zip(target.elts, temporaries):
                    statements += self.store(element, value, node)
            elif len(values) == 1:
                statements += self.store(target, temporaries[0], node)
            elif isinstance(target, ast.Name) and isinstance(value_node, (ast.Tuple, ast.Name, ast.Call)):
                statements.extend(self.bind_tuple(target, temporaries, node))
            else:
                raise _unsupported(target, "assigning a tuple to one name")
        return statements

    def rebind(self, targets: list[ast.expr], value_node: ast.expr, node: ast.stmt) -> ir.Rebind | None:
        """``a, b = b, a`` over arrays the loop has subscripted already (a double buffer's
        swap, after the arrays' use): the names exchange their arrays; None for anything else
        (scalars swap through temporaries)."""
        if len(targets) != 1 or not isinstance(targets[0], (ast.Tuple, ast.List)) \
                or not isinstance(value_node, (ast.Tuple, ast.List)):
            return None
        names = [element.id if isinstance(element, ast.Name) else None for element in targets[0].elts]
        sources = [element.id if isinstance(element, ast.Name) else None for element in value_node.elts]
        if None in names or None in sources or len(names) != len(sources) or len(set(names)) != len(names) \
                or set(names) != set(sources) or names == sources:
            return None
        names, sources = [self.rename(n) for n in names], [self.rename(n) for n in sources]
        if not all(name in self.array_ranks for name in names):
            return None
        if self.callees:
            raise _unsupported(node, "arrays swapped inside a called function (its caller's names would change)")
        self.rebound_groups.append(frozenset(names))
        return ir.Rebind(tuple(names), tuple(sources), **_where(node))

    def unpacked(self, node: ast.stmt, value: ir.Expr) -> None:
        """A bind of a row's element to a name of a loop target (desugar._unpack's
        ``unpacks``): the guard checks the rows hold as many values as the target names."""
        width = getattr(node, "unpacks", 0)
        if not width:
            return
        if not isinstance(value, ir.Load):
            raise _unsupported(node, "loop target unpacks something other than the rows of a list or array")
        known = self.widths.setdefault(value.array, width)
        if known != width:
            raise _unsupported(node, f"the rows of {ir.describe_name(value.array)} are unpacked into {known} "
                                     f"and into {width} names")

    def store(self, target: ast.expr, value: ir.Expr, node: ast.stmt) -> list[ir.Stmt]:
        if isinstance(target, ast.Name):
            return [self.bind(target.id, value, node)]
        if isinstance(target, ast.Subscript):
            if self.item_method(target.value, "__setitem__"):   # grid[x, y] = v of a class's own
                return self.item_store(target, value, node)
            array, indices = self.subscript(target, written=True)
            return [ir.Store(array, indices, value, **_where(node))]
        access = self.field_access(target, written=True)
        if access is not None:
            return [ir.Store(*access, value, **_where(node))]
        if isinstance(target, ast.Attribute):
            return [self.bind(self.attribute_variable(target), value, node)]
        raise _unsupported(target)

    def attribute_variable(self, target: ast.Attribute) -> str:
        """``self.total`` assigned in the loop: a scalar variable named by its path, read at
        entry and written back once after the loop (the guard checks that Python would run no
        code of the object's to set it, lower_loop that no other path may name it)."""
        written = dotted_path(target)
        path = self.rename(written)
        # In a called function, an attribute of an object the caller names (``self.seed = s``
        # of ``rnd.next()``: ``rnd.seed``), as if the loop assigned it; not through a route.
        if path is None or self.callees and (path.startswith("mg_tmp") or ir.through_route(path)):
            raise _unsupported(target, f"assignment to attribute '{written or target.attr}'"
                                       + (" inside a called function" if written and self.callees else ""))
        if path.split(".")[0] in self.assigned:
            raise _unsupported(target, f"assignment to attribute '{path}' of a name the loop rebinds")
        return written   # (bind renames it)

    def bind(self, name: str, value: ir.Expr, node: ast.AST) -> ir.Assign:
        name = self.rename(name)
        if name in self.array_ranks or name in self.length_only:
            raise _unsupported(node, f"{ir.describe_name(name)} is used both as an array and as a scalar")
        self.assigned.setdefault(name, None)
        return ir.Assign(name, value, **_where(node))

    # expressions ------------------------------------------------------------
    def subscript(self, node: ast.Subscript, written: bool = False) -> tuple[str, tuple[ir.Expr, ...]]:
        indices: list[ast.expr] = []
        base: ast.expr = node
        tupled = False
        while isinstance(base, ast.Subscript):
            index = base.slice
            parts = index.elts if isinstance(index, ast.Tuple) else [index]
            tupled = tupled or isinstance(index, ast.Tuple)
            indices[:0] = parts
            base = base.value
        row = self.row_alias(dotted_path(base))
        path = row.array if row else self.rename(dotted_path(base))
        if path is None:
            raise _unsupported(base, "subscript of a computed value")
        if path in self.assigned:
            raise _unsupported(node, f"{ir.describe_name(path)} is assigned in the loop and subscripted: "
                                     "partial indexing such as 'row = A[i]' is not supported (write A[i][j])")
        prefix, suffix = (row.prefix, row.suffix) if row else ((), ())   # (a column's: rows[k][j])
        self.array_ranks.setdefault(path, set()).add(len(prefix) + len(indices) + len(suffix))
        if tupled:  # A[i, j]: fine for NumPy, a TypeError for lists (checked per signature)
            self.tuple_indexed.add(path)
        if written:
            self.check_column_write(path, node)
            self.written_arrays.add(path)
        return path, prefix + tuple(self.expression(i) for i in indices) + suffix

    def expression(self, node: ast.expr) -> ir.Expr:
        where = _where(node)
        if isinstance(node, ast.Constant):
            if type(node.value) not in (int, float, bool, complex, str):  # 1j: a complex constant
                raise _unsupported(node, f"constant of type {type(node.value).__name__}")
            return ir.Const(node.value, **where)
        if isinstance(node, ast.Name) and self.constant_alias(node.id):
            return ir.Const(self.constant_alias(node.id).value, **where)
        if isinstance(node, ast.Name) and not self.callees and node.id in self.site_rows:
            raise _unsupported(node, f"'{node.id}', a row of '{self.site_rows[node.id].array}', used as a value "
                                     "(only its elements can be)")
        access = self.field_access(node)
        if access is not None:
            return ir.Load(*access, **where)
        if isinstance(node, (ast.Name, ast.Attribute)):
            path = self.rename(dotted_path(node))
            if path is None:
                raise _unsupported(node, "attribute of a computed value")
            if path in self.tuples:
                raise _unsupported(node, f"tuple {ir.describe_name(path)} used as a number")
            if path in self.array_ranks or path in self.length_only:
                raise _unsupported(node, f"array {ir.describe_name(path)} used as a value (only its elements can be)")
            self.scalar_reads.setdefault(path, None)
            return ir.Name(path, **where)
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                return self.shape(node)
            item = self.tuple_item(node)
            if item is None and self.item_method(node.value, "__getitem__"):   # grid[x, y] of a class's own
                item = self.call(ast.copy_location(item_call(node, "__getitem__", [node.slice]), node))
            if item is not None:
                return item
            array, indices = self.subscript(node)
            return ir.Load(array, indices, **where)
        if isinstance(node, ast.BinOp):
            return ir.BinOp(BINARY[type(node.op)], self.expression(node.left), self.expression(node.right),
                            sum_step=getattr(node, "sum_step", False), **where)
        if isinstance(node, ast.UnaryOp):
            return ir.UnaryOp(UNARY[type(node.op)], self.expression(node.operand), **where)
        if isinstance(node, ast.BoolOp):
            return self.boolean(node)
        if isinstance(node, ast.Compare):
            compared = self.object_comparison(node)
            if compared is not None:
                return compared
            if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                    and isinstance(node.comparators[0], ast.Constant) and type(node.comparators[0].value) is str:
                return self.in_text(node)
            ops = []
            for op in node.ops:
                if type(op) not in COMPARE:
                    raise _unsupported(node, f"comparison '{type(op).__name__}' (is / in)")
                ops.append(COMPARE[type(op)])
            operands = [self.expression(node.left), self.expression(node.comparators[0])]
            for comparator in node.comparators[1:]:  # evaluated only if the chain goes on
                operands.append(self.without_calls(comparator, "a call to a Python function late in a "
                                                               "comparison chain"))
            return ir.Compare(operands[0], tuple(ops), tuple(operands[1:]), **where)
        if isinstance(node, ast.IfExp):
            return self.conditional(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Tuple):
            raise _unsupported(node, "tuple value")
        raise _unsupported(node)

    def in_text(self, node: ast.Compare) -> ir.Expr:
        """``c in "aeiou"`` (``not in``): a character compared with each of the constant's (a
        kernel's characters are one long, so the substring test is their equality; typeinfer
        refuses a left side that is not a character)."""
        where = _where(node)
        characters = tuple(dict.fromkeys(node.comparators[0].value))
        if not characters:
            raise _unsupported(node, "'in' an empty str")
        left = self.without_calls(node.left, "a call on the left of 'in'")
        negated = isinstance(node.ops[0], ast.NotIn)
        tests = tuple(ir.Compare(left, ("!=" if negated else "==",), (ir.Const(c, **where),), **where)
                      for c in characters)
        return tests[0] if len(tests) == 1 else ir.BoolOp("and" if negated else "or", tests, **where)

    def call(self, node: ast.Call, value_used: bool = True):
        method = self.object_method(node)   # p.update(dt) on a list's object (fields.py)
        if method is not None:
            result = self.inline(node, method[0], *method[1], value_used)
            return result if value_used else NO_RETURN_VALUE
        written = dotted_path(node.func)
        path = self.rename(written)
        if path is None:
            raise _unsupported(node, "call of a computed function")
        callee = self.resolve(path) if self.resolve is not None else None
        if callee is not None:
            result = self.inline(node, path, *callee, value_used)
            return result if value_used else NO_RETURN_VALUE
        if not value_used:
            return None
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _unsupported(node, f"call to '{path}' with keyword or starred arguments")
        self.functions.setdefault(path, None)
        self.scalar_reads.pop(path, None)
        if written == "len":  # checked to be the builtin at run time; only arrays have lengths
            if len(node.args) != 1:
                raise _unsupported(node, "len() takes one argument")
            return self.length(node.args[0], node)
        return ir.Call(path, float_text(node, written) or tuple(self.expression(a) for a in node.args), **_where(node))

    def length(self, argument: ast.expr, node: ast.Call) -> ir.Length:
        prefix: list[ast.expr] = []
        base = argument
        while isinstance(base, ast.Subscript):
            prefix[:0] = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
            base = base.value
        row = self.row_alias(dotted_path(base))
        path = row.array if row else self.objects_length(self.rename(dotted_path(base)))
        if path is None or path in self.assigned:
            raise _unsupported(node, "len() of something other than an array")
        if row and row.suffix and prefix:
            raise _unsupported(node, "len() of an element of a column of zip(*rows)")
        outer = row.prefix if row else ()
        self.scalar_reads.pop(path, None)
        self.length_only.add(path)
        self.min_rank[path] = max(self.min_rank.get(path, 1), len(outer) + len(prefix) + 1)
        return ir.Length(path, outer + tuple(self.expression(p) for p in prefix), **_where(node))

    def shape(self, node: ast.Subscript) -> ir.Shape:
        """``a.shape[k]`` with a constant k: a dimension of a NumPy array."""
        path = self.rename(dotted_path(node.value.value))
        dim = int_literal(node.slice)
        if path is None or dim is None:
            raise _unsupported(node, "'.shape[...]' with a computed index")
        self.scalar_reads.pop(path, None)
        self.shape_dims.setdefault(path, set()).add(dim)
        return ir.Shape(path, dim, **_where(node))

    def assume(self, nodes) -> None:
        """Built-ins a desugared form relies on without calling them (enumerate, zip, sum):
        the guard checks they are still the built-ins."""
        for node in nodes:
            for name in desugar.assumed_builtins(node):
                self.functions.setdefault(self.rename(name), None)
                self.assumed[self.rename(name)] = desugar.canonical_builtin(name)

    def array_uses(self) -> tuple[ir.ArrayUse, ...]:
        # An array written under one name is written under each name a swap gives it, through
        # chains of swaps too (``a, b = b, a`` then ``b, c = c, b``): to a fixed point.
        changed = True
        while changed:
            changed = False
            for group in self.rebound_groups:
                if group & self.written_arrays and not group <= self.written_arrays:
                    self.written_arrays |= group
                    changed = True
        uses = []
        minimum = self.min_rank
        for path in sorted(set(self.array_ranks) | self.length_only | set(self.shape_dims)):
            ranks = self.array_ranks.get(path, set())
            if len(ranks) > 1:
                raise Unsupported(f"array '{path}' is indexed with {sorted(ranks)} subscripts "
                                  "(partial indexing such as 'row = A[i]' is not supported)")
            dims = self.shape_dims.get(path, set())
            rank = next(iter(ranks)) if ranks else max([minimum.get(path, 1)] + [d + 1 for d in dims])
            if rank < minimum.get(path, 0):
                raise Unsupported(f"len() of a sub-array of '{path}' deeper than its indexing")
            if any(not -rank <= d < rank for d in dims):
                raise Unsupported(f"'{path}.shape[...]' outside its {rank} dimensions (Python raises IndexError)")
            uses.append(ir.ArrayUse(path, rank, path in self.written_arrays, path in self.tuple_indexed,
                                    self.widths.get(path, 0)))
        return tuple(uses)


def lower_loop(loop: ast.For, resolve: Resolver | None = None) -> ir.Loop:
    """Lower one site's loop; raises ``Unsupported`` (with the location) if it cannot.
    ``resolve`` finds the user-defined functions the loop calls (they are inlined)."""
    lowerer = _Lowerer(resolve)
    lowerer.site_loop = loop
    lowerer.row_names = row_candidates(loop, resolve)
    lowerer.built_rows = built_rows(loop)
    lowerer.objects = object_uses.with_method_fields(object_uses.object_uses(loop), resolve)
    for name, array in lowerer.objects.variables.items():   # best = p: best.m wherever the loop reads it
        lowerer.object_rows[name] = _Objects(array, (ir.Name(name),))
    body = lowerer.range_loop(loop)
    arrays = lowerer.array_uses()
    fields.check_shared_fields(arrays, lowerer.scalar_reads, lowerer.assigned)
    check_swapped(lowerer, arrays)
    array_names = {a.name for a in arrays}
    scalars = tuple(n for n in lowerer.scalar_reads if n not in array_names and n not in lowerer.functions)
    assigned = tuple(n for n in lowerer.assigned if not n.startswith("mg_tmp"))
    for path in scalars:  # a route is read once, at entry: wrong for a variable the loop changes
        shared = ir.route_variable(path)
        if shared is not None and shared in assigned:
            raise Unsupported(f"{ir.describe_name(path)} may be the variable '{shared}' this loop assigns "
                              "(an inlined function would read its value at entry only)")
    for path in assigned:   # self.total written: no other path may reach that attribute (other.total)
        if "." in path:
            last = path.rpartition(".")[2]
            other = next((p for p in (*scalars, *array_names, *lowerer.functions, *assigned)
                          if p != path and (p.endswith("." + last) or p.startswith(path + "."))), None)
            if other is not None:
                raise Unsupported(f"attribute '{path}' is assigned and '{other}' used too (one object may be both)")
    for path in set(lowerer.joined_rows.values()) & lowerer.values_appended:
        raise Unsupported(f"list '{path}' is given rows the loop builds and other values too")
    for path in set(lowerer.keyed) & ({*lowerer.joined_rows.values(), *lowerer.values_appended}):
        raise Unsupported(f"list '{path}' is appended to and its rows too ('{path}[key].append')")
    for path in lowerer.appended:
        head = path.split(".")[0]
        if path in array_names and grows_in_place(loop, path, lowerer, arrays):
            continue
        if path in array_names or path in scalars or head in lowerer.assigned:
            raise Unsupported(f"list '{path}' is appended to and also used otherwise in the loop")
    return ir.Loop(body, scalars, arrays, assigned, tuple(lowerer.functions), tuple(lowerer.inlined.items()),
                   tuple(lowerer.assumed.items()), tuple(sorted(lowerer.appended)),
                   tuple(lowerer.row_aliases.items()),
                   tuple(lowerer.objects.aliases.items()) + tuple(lowerer.objects.variables.items()),
                   tuple(sorted(lowerer.objects.compared)), tuple(sorted(lowerer.objects.collected.items())),
                   tuple(sorted(lowerer.joined_rows.items())),
                   tuple(sorted((table, *held) for table, held in lowerer.keyed.items())),
                   tuple(lowerer.column_aliases.items()))


def row_candidates(loop: ast.For, resolve: Resolver | None) -> set[str]:
    """The target of the site's own loop over a named array (``for row in table``, ``for i,
    row in enumerate(table)``) when the loop binds it nowhere else, has no ``break`` of its own and uses it as an array
    (subscripted, ``len()``, passed to an array parameter of a function it inlines): the
    lowering then reads that row in place, and after the run the site gives the name the
    last row, as CPython's loop leaves it (``LoopSite.last_rows``)."""
    source, target = loop.iter, loop.target
    if (isinstance(source, ast.Call) and dotted_path(source.func) == "enumerate" and source.args
            and isinstance(target, ast.Tuple) and len(target.elts) == 2):   # for i, row in enumerate(table)
        source, target = source.args[0], target.elts[1]
    columns = column_source(source) is not None   # for col in zip(*rows): used by its elements, checked there
    if not (isinstance(target, ast.Name) and (columns or dotted_path(source) is not None) and not loop.orelse):
        return set()
    if any(isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == target.id
           for statement in loop.body for node in ast.walk(statement)):
        return set()
    if early_exits.breaks_own_loop(loop.body):
        return set()
    targets = {target.id}
    if columns:
        return targets
    used = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            used.add(node.value.id)
        elif isinstance(node, ast.Call) and resolve is not None:
            used |= array_arguments(node, resolve)
            if isinstance(node.func, ast.Name) and node.func.id == "len" and node.args \
                    and isinstance(node.args[0], ast.Name):
                used.add(node.args[0].id)
    return targets & used
