"""Which bounds and overflow checks can leave the loop (MegaGuards §3.3.3).

An integer expression is *hoistable* when it is built from constants, loop-invariant
integer live-ins, array sizes and the variables of enclosing ``range`` loops with
``+ - *`` (and ``//``, ``%`` by positive constants).  Its range over the whole
iteration space follows by interval arithmetic from the loops' bounds, so one check
at kernel entry proves every subscript in range and every intermediate within int64.

This module only decides *what* is hoisted (pure, over the typed IR); the renderer
emits the entry checks (the kernel's prologue) and a check-free copy of the loop,
used when they all pass.  A subscript whose range may be negative (``a[i - 1]``,
``a[n - 1 - i]``) is wrapped Python-style without a branch to an error path.

Ranges are path-sensitive: under a condition comparing a loop variable with a hoistable
bound (``t[r - 1][c] if r > 0 else t[r][c]``, ``if i < n - 1:``), the subscripts of the
guarded branch see the variable's range narrowed by it (a ``Refinement``), so that a
clamped stencil hoists every check.  A condition on a compound expression (``if 0 <= i
+ dx < n: g[i + dx]``, dx another loop's variable) narrows that expression itself: the
same expression in the branch takes the narrowed range, which its parts' ranges alone
would lose (i >= -dx gives i + dx >= -dx - dx's widest).
"""
from __future__ import annotations


from ..record import record, replace
from ..ir import nodes as ir
from ..ir.printer import format_expression
from ..ir.types import Scalar
from .typeinfer import TypedLoop

HOISTABLE_TYPES = (Scalar.PY_INT, Scalar.PY_BOOL, Scalar.NP_INT64, Scalar.NP_BOOL)


@record
class LoopRange:
    """A ``for`` loop whose variable's range is computable at entry."""

    loop: int              # nid of the ir.For node
    var: str
    start: ir.Expr
    stop: ir.Expr
    step: int              # the constant step; 0: a loop-invariant variable's (``step_expr``), sign known at entry
    parent: int | None     # the enclosing LoopRange's loop id
    scope: tuple           # (variable, loop id) pairs usable in start and stop
    step_expr: ir.Expr = None


@record
class Refinement:
    """A loop variable's range narrowed inside a branch guarded by ``var op bound`` (the
    prologue's interval ``mg_R{k}``, its number k in ``HoistFacts.refinements``)."""

    key: int               # negative: distinct from loop ids in scopes (-1 - k)
    var: str
    parent: int            # the loop id or refinement key the variable had outside the branch
    op: str                # "<" "<=" ">" ">=" "==" "!=": what holds for the variable in the branch
    bound: ir.Expr         # hoistable
    scope: tuple           # (variable, loop id or key) pairs usable in the bound
    after: int             # how many of HoistFacts.loops come before it (the prologue's order)
    # A compound expression narrowed (var is then its expression_key; parent None where
    # nothing narrowed it before): its range starts from its parts' ranges in scope, and
    # is empty where ``within`` (the innermost interval at the test) is.
    expression: ir.Expr | None = None
    within: int | None = None


COMPOUND = (ir.BinOp, ir.UnaryOp, ir.Call)   # what an expression refinement narrows
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=", None: None}


@record
class HoistedIndex:
    """One subscript (one dimension of one access) checked once, at entry."""

    access: int            # nid of the ir.Load / ir.Store
    array: str
    dim: int
    index: ir.Expr
    wrap: bool             # may be negative: wrapped Python-style in the fast loop
    loop: int | None       # innermost enclosing LoopRange (its emptiness skips the check)
    description: str
    scope: tuple           # (variable, loop id) pairs: which loop each variable belongs to


@record
class HoistFacts:
    loops: tuple[LoopRange, ...]                 # outer before inner
    indices: tuple[HoistedIndex, ...]
    ranges: tuple[tuple[ir.Expr, int | None, tuple], ...]  # other hoisted integer expressions: (expr, loop, scope)
    unchecked: frozenset                         # nid of BinOp/UnaryOp nodes proven within int64
    refinements: tuple = ()                      # Refinement, in creation order (parents first)
    branches: tuple = ()                         # (IfExp nid, body's scope, orelse's scope): narrowed by its test
    divisors: tuple = ()                         # (divisor, nids of the float divisions by it): see invariant_divisors

    @property
    def empty(self) -> bool:
        return not (self.indices or self.ranges)

    def index(self, access: ir.Node, dim: int) -> HoistedIndex | None:
        return self._by_access.get((access.nid, dim))

    def branch_scopes(self, node: ir.IfExp) -> tuple | None:
        """The scopes a hoisted conditional expression's branches are ranged in (None: its own)."""
        return self._branches.get(node.nid)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_access", {(h.access, h.dim): h for h in self.indices})
        object.__setattr__(self, "_branches", {nid: (dict(body), dict(orelse)) for nid, body, orelse in self.branches})
        object.__setattr__(self, "nonzero_divisions", frozenset(nid for _, nids in self.divisors for nid in nids))


def expression_key(node: ir.Expr) -> str:
    """A compound expression's name in a scope (no variable's name starts with '=')."""
    return "=" + format_expression(node)


def first_rows(node: ir.Length) -> bool:
    """``len(a)``, ``len(a[0])``, ``len(a[0][0])``: sizes the entry's dims give (a list's
    shape is read along its first elements), hoistable like ``a.shape[d]``."""
    return all(ir.int_constant(index) == 0 for index in node.prefix)


def _names_bound_outside_headers(node: ir.Node) -> set[str]:
    return {n.target for n in ir.walk(node) if isinstance(n, ir.Assign)}


def _for_bindings(node: ir.Node) -> dict[str, int]:
    counts: dict[str, int] = {}
    for child in ir.walk(node):
        if isinstance(child, ir.For):
            counts[child.var] = counts.get(child.var, 0) + 1
    return counts


class _Hoister:
    def __init__(self, typed: TypedLoop) -> None:
        self.typed = typed
        assigned = _names_bound_outside_headers(typed.body)
        self.invariant = {name for name in typed.live_ins if name not in typed.assigned_types}
        self.reassigned = assigned
        self.loops: list[LoopRange] = []
        self.indices: list[HoistedIndex] = []
        self.ranges: list[tuple] = []
        self.unchecked: set[int] = set()
        self.refinements: list[Refinement] = []
        self.expression_names: dict[str, frozenset] = {}   # expression_key -> the names it reads
        self.made: dict[tuple, int] = {}   # a narrowing's parts -> its key
        self.branches: list[tuple] = []   # HoistFacts.branches
        self.definitions: dict[str, int] = {}   # name -> how many assignments the loop makes to it
        for node in ir.walk(typed.body):
            if isinstance(node, ir.Assign):
                self.definitions[node.target] = self.definitions.get(node.target, 0) + 1
            elif isinstance(node, ir.For):
                self.definitions[node.var] = 2   # a loop's variable is no definition

    # is an expression hoistable, given the usable loop variables ------------------
    def hoistable(self, node: ir.Expr, scope: dict[str, int]) -> bool:
        if node.type not in HOISTABLE_TYPES:
            return False
        if isinstance(node, ir.Const):
            return True
        if isinstance(node, ir.Name):
            return node.id in scope or node.id in self.invariant
        if isinstance(node, ir.Shape) or (isinstance(node, ir.Length) and first_rows(node)):
            return True
        if isinstance(node, ir.UnaryOp):
            return node.op in ("-", "+") and self.hoistable(node.operand, scope)
        if isinstance(node, ir.IfExp):   # either branch: a display's element (``for dx, dy in ((1, 0), ...)``)
            return self.hoistable(node.body, scope) and self.hoistable(node.orelse, scope)
        if isinstance(node, ir.Call):   # a clamp: a[min(i + 1, n - 1)]
            return (self.typed.functions.get(node.function) in ("min", "max")
                    and all(self.hoistable(argument, scope) for argument in node.args))
        if isinstance(node, ir.BinOp):
            if node.op in ("+", "-", "*"):
                return self.hoistable(node.left, scope) and self.hoistable(node.right, scope)
            if node.op in ("//", "%"):
                right = node.right
                return (isinstance(right, ir.Const) and type(right.value) is int and right.value > 0
                        and self.hoistable(node.left, scope))
        return False

    def ranged(self, node: ir.Expr, scope: dict) -> None:
        """A hoisted expression's conditional expressions: each branch's scope, narrowed by
        the test (``i + 1 if i < n - 1 else i`` stays below n)."""
        pending = [(node, scope)]
        while pending:
            part, outer = pending.pop()
            if isinstance(part, ir.IfExp):
                body, _ = self.refined(part.test, True, outer, None)
                orelse, _ = self.refined(part.test, False, outer, None)
                self.branches.append((part.nid, tuple(body.items()), tuple(orelse.items())))
                pending += [(part.body, body), (part.orelse, orelse)]
            else:
                pending += [(child, outer) for child in _parts(part)]

    def mark(self, node: ir.Expr) -> None:
        """The arithmetic of a hoisted expression, proven within int64 at entry (a
        conditional expression's test is no part of its range: it keeps its checks)."""
        pending = [node]
        while pending:
            child = pending.pop()
            if isinstance(child, ir.IfExp):
                pending += [child.body, child.orelse]
                continue
            if isinstance(child, (ir.BinOp, ir.UnaryOp)):
                self.unchecked.add(child.nid)
            pending += _parts(child)

    @staticmethod
    def may_be_negative(node: ir.Expr) -> bool:
        """Static guess of the sign: constants below zero, subtraction, negation."""
        for child in ir.walk(node):
            if isinstance(child, ir.Const) and child.value < 0:
                return True
            if isinstance(child, ir.UnaryOp) and child.op == "-":
                return True
            if isinstance(child, ir.BinOp) and child.op == "-":
                return True
        return False

    # walk -------------------------------------------------------------------------
    def statements(self, statements, scope: dict[str, int], loop: int | None) -> None:
        """Each statement sees what the ones before it established for the rest of the
        block: a definition (``ni = i + di``), a guard that leaves (``if ni < 0: continue``)."""
        for statement in statements:
            scope, loop = self.statement(statement, scope, loop) or (scope, loop)

    def statement(self, node: ir.Stmt, scope: dict[str, int], loop: int | None):
        if isinstance(node, ir.For):
            self.expressions((node.start, node.stop, node.step), scope, loop)
            inner_scope = {k: v for k, v in scope.items()
                           if k != node.var and node.var not in self.expression_names.get(k, ())}
            inner_loop = loop
            step = node.step
            constant_step = ir.int_constant(step)   # -1 is the literal 1 negated
            constant = constant_step is not None and constant_step != 0
            # A step held by a live-in the loop never assigns (``range(p * p, n, p)``): its
            # sign, read at entry, orders the range's bounds.
            invariant = (isinstance(step, ir.Name) and step.id in self.invariant and step.type in HOISTABLE_TYPES)
            usable = ((constant or invariant)
                      and self.hoistable(node.start, scope) and self.hoistable(node.stop, scope)
                      and node.var not in self.reassigned
                      and _for_bindings_in(node.body).get(node.var, 0) == 0)
            if usable:
                self.loops.append(LoopRange(node.nid, node.var, node.start, node.stop, constant_step if constant else 0,
                                            loop, tuple(scope.items()), step))
                inner_scope[node.var] = node.nid
                inner_loop = node.nid
            self.statements(node.body, inner_scope, inner_loop)
            return
        if isinstance(node, (ir.Assign, ir.Append)):
            self.expressions((node.value,), scope, loop)
            if isinstance(node, ir.Assign) and self.definitions.get(node.target) == 1 \
                    and node.value.type in HOISTABLE_TYPES and self.hoistable(node.value, scope) \
                    and self.typed.variables.get(node.target) == node.value.type:
                return self.defined(node, scope, loop)
        elif isinstance(node, ir.Store):
            self.access(node, scope, loop)
            self.expressions((node.value,), scope, loop)
        elif isinstance(node, ir.If):
            self.expressions((node.test,), scope, loop)
            for branch, holds in ((node.body, True), (node.orelse, False)):
                inner_scope, inner_loop = self.refined(node.test, holds, scope, loop)
                self.statements(branch, inner_scope, inner_loop)
            if not node.orelse and any(isinstance(s, (ir.Continue, ir.Break, ir.Raise)) for s in node.body):
                return self.refined(node.test, False, scope, loop)   # what follows runs where it failed
        elif isinstance(node, ir.While):
            self.expressions((node.test,), scope, loop)
            self.statements(node.body, scope, loop)

    def access(self, node: ir.Load | ir.Store, scope: dict[str, int], loop: int | None) -> None:
        for dim, index in enumerate(node.indices):
            if self.hoistable(index, scope):
                self.mark(index)
                where = f"line {node.line}: subscript {dim + 1} of {ir.describe_name(node.array)} in range"
                self.indices.append(HoistedIndex(node.nid, node.array, dim, index, self.may_be_negative(index), loop, where,
                                                 tuple(scope.items())))
                self.expressions([part.test for part in ir.walk(index) if isinstance(part, ir.IfExp)], scope, loop)
                self.ranged(index, scope)
            else:
                self.expressions((index,), scope, loop)

    def expressions(self, roots, scope: dict[str, int], loop: int | None) -> None:
        for root in roots:
            self.expression(root, scope, loop)

    def expression(self, node: ir.Expr, scope: dict[str, int], loop: int | None) -> None:
        if isinstance(node, (ir.BinOp, ir.UnaryOp)) and self.hoistable(node, scope):
            self.mark(node)
            self.ranges.append((node, loop, tuple(scope.items())))  # its intermediates are checked against int64 at entry
            return
        if isinstance(node, ir.Load):
            self.access(node, scope, loop)
            return
        if isinstance(node, ir.IfExp):
            self.expression(node.test, scope, loop)
            for branch, holds in ((node.body, True), (node.orelse, False)):
                inner_scope, inner_loop = self.refined(node.test, holds, scope, loop)
                self.expression(branch, inner_scope, inner_loop)
            return
        if isinstance(node, ir.BoolOp):   # each operand runs only where the ones before it were
            inner_scope, inner_loop = scope, loop   # true (``and``) or false (``or``)
            for value in node.values:
                self.expression(value, inner_scope, inner_loop)
                inner_scope, inner_loop = self.refined(value, node.op == "and", inner_scope, inner_loop)
            return
        for value in node.__dict__.values():
            for child in value if isinstance(value, tuple) else (value,):
                if isinstance(child, ir.Expr):
                    self.expression(child, scope, loop)


    def refined(self, test: ir.Expr, holds: bool, scope: dict, loop):
        """(scope, innermost interval) inside a branch taken when ``test`` is ``holds``:
        each comparison of a hoisted loop variable with a hoistable bound that must hold
        there (through ``not``, ``and`` when true, ``or`` when false, chains when true)
        narrows the variable."""
        if isinstance(test, ir.UnaryOp) and test.op == "not":
            return self.refined(test.operand, not holds, scope, loop)
        if isinstance(test, ir.BoolOp) and (test.op == "and") == holds:
            for value in test.values:
                scope, loop = self.refined(value, holds, scope, loop)
            return scope, loop
        if not isinstance(test, ir.Compare) or (not holds and len(test.ops) != 1):
            return scope, loop
        lefts = (test.left,) + tuple(test.comparators[:-1])
        for left, op, right in zip(lefts, test.ops, test.comparators):
            scope, loop = self.compared(left, op if holds else NEGATED.get(op), right, scope, loop)
        return scope, loop

    def compared(self, left: ir.Expr, op, right: ir.Expr, scope: dict, loop):
        if op not in ("<", "<=", ">", ">=", "==", "!=") or not (self.hoistable(left, scope)
                                                             and self.hoistable(right, scope)):
            return scope, loop
        expression, bound, expression_op = (left, right, op) if isinstance(left, COMPOUND) else (right, left, MIRRORED[op])
        side = self.isolated(left, scope)
        if side is None:
            side, right, op = self.isolated(right, scope), left, MIRRORED[op]
        if side is not None:
            var, moved = side
            if moved is not None:   # ``i + k OP e`` is ``i OP e - k``
                right = ir.BinOp(moved[0], right, moved[1], type=Scalar.PY_INT, line=right.line)
            key = self.refinement(Refinement(0, var.id, scope[var.id], op, right, tuple(scope.items()), len(self.loops)))
            scope, loop = {**scope, var.id: key}, key
        # Narrowing the variable loses nothing where the rest is fixed (``i + 1 < n``); with
        # another loop's variable in it (``i + dx``) only the expression's own range is exact.
        if isinstance(expression, COMPOUND) and (side is None or _moves(side[1], scope)):
            name = expression_key(expression)
            key = self.refinement(Refinement(0, name, scope.get(name), expression_op, bound, tuple(scope.items()),
                                             len(self.loops), expression, loop))
            self.expression_names[name] = _names(expression)
            scope, loop = {**scope, name: key}, key
        return scope, loop

    def defined(self, node: ir.Assign, scope: dict, loop):
        """``name = e``, the loop's only assignment to name, e hoistable: below it in its
        block name has e's range (a Refinement of e that narrows nothing, under name)."""
        self.ranged(node.value, scope)
        key = self.refinement(Refinement(0, node.target, None, None, None, tuple(scope.items()), len(self.loops),
                                         node.value, loop))
        self.expression_names[node.target] = _names(node.value)
        return {**scope, node.target: key}, loop

    def refinement(self, made: Refinement) -> int:
        """The key of ``made`` (its key field ignored), or of the same narrowing made before:
        a test met twice (an ``and``'s operands, then its branch) narrows once."""
        same = (made.var, made.parent, made.op, format_expression(made.bound or made.expression), made.scope,
                made.within)
        if same not in self.made:
            self.made[same] = -1 - len(self.refinements)
            self.refinements.append(replace(made, key=self.made[same]))
        return self.made[same]

    def isolated(self, side: ir.Expr, scope: dict):
        """For ``var + k`` / ``k + var`` / ``var - k`` (var a hoisted loop variable, k
        hoistable): (var, (the inverse operator, k)); a bare var: (var, None); else None."""
        if isinstance(side, ir.Name) and side.id in scope:
            return side, None
        if isinstance(side, ir.BinOp) and side.op in ("+", "-") and side.type in HOISTABLE_TYPES:
            inverse = "-" if side.op == "+" else "+"
            if isinstance(side.left, ir.Name) and side.left.id in scope and self.hoistable(side.right, scope):
                return (side.left, (inverse, side.right))
            if side.op == "+" and isinstance(side.right, ir.Name) and side.right.id in scope \
                    and self.hoistable(side.left, scope):
                return (side.right, ("-", side.left))
        return None


def _parts(node: ir.Expr) -> list:
    """The expressions directly below ``node``."""
    return [part for value in node.__dict__.values()
            for part in (value if isinstance(value, tuple) else (value,)) if isinstance(part, ir.Expr)]


def _names(expression: ir.Expr) -> frozenset:
    """The names ``expression`` reads."""
    return frozenset(n.id for n in ir.walk(expression) if isinstance(n, ir.Name))


def _moves(moved, scope: dict) -> bool:
    """Does the part moved across a comparison read a loop variable?"""
    return moved is not None and not _names(moved[1]).isdisjoint(scope)


def _for_bindings_in(statements) -> dict[str, int]:
    counts: dict[str, int] = {}
    for statement in statements:
        for name, count in _for_bindings(statement).items():
            counts[name] = counts.get(name, 0) + count
    return counts


DIVIDED_FLOATS = (Scalar.PY_FLOAT,)
DIVISORS = (Scalar.PY_FLOAT, Scalar.PY_INT)


def invariant_divisors(typed: TypedLoop, invariant: set) -> tuple:
    """Float true divisions (``x / ry``) whose divisor is a nonzero constant or a name the
    loop never assigns, grouped by divisor: one test at entry (``ry != 0``; a constant needs
    none) proves every one of them; the fast copy then divides without its zero test, whose
    branch kept the loop from vectorizing (hotspot: four per cell).  A zero divisor fails the
    test and the checking copy raises where CPython does."""
    found: dict = {}
    for node in ir.walk(typed.body):
        if not (isinstance(node, ir.BinOp) and node.op == "/" and node.type in DIVIDED_FLOATS
                and node.left.type in DIVISORS and node.right.type in DIVISORS):
            continue
        divisor = node.right
        if isinstance(divisor, ir.Const) and divisor.value != 0:
            key = ("constant", repr(divisor.value))
        elif isinstance(divisor, ir.Name) and divisor.id in invariant:
            key = ("name", divisor.id)
        else:
            continue
        found.setdefault(key, [divisor, []])[1].append(node.nid)
    return tuple((divisor, tuple(nids)) for divisor, nids in found.values())


def hoist_checks(typed: TypedLoop) -> HoistFacts:
    """The checks that can be done once at entry for this typed loop."""
    hoister = _Hoister(typed)
    hoister.statement(typed.body, {}, None)
    return HoistFacts(tuple(hoister.loops), tuple(hoister.indices), tuple(hoister.ranges),
                      frozenset(hoister.unchecked), tuple(hoister.refinements), tuple(hoister.branches),
                      invariant_divisors(typed, hoister.invariant))


def touched_box(typed: TypedLoop, facts: HoistFacts) -> frozenset:
    """The lists whose every subscript, in every dimension, is hoisted: the prologue's
    intervals then bound every element the loop can touch, and the runtime unboxes (and
    boxes back) only that box of the list instead of all of it.  A list whose size a
    ``len(a[k])`` reads (another row than the first) is unboxed whole: only the rows
    unboxed are checked to have the first row's length."""
    # Swapped lists are touched under each other's names: unboxed whole.
    # A table whose rows are swapped is touched in the order of its row map: unboxed whole.
    candidates = {name for name, info in typed.arrays.items() if info.is_list} - ir.rebound_names(typed.body) \
        - ir.swapped_tables(typed.body)
    for node in ir.walk(typed.body):
        if isinstance(node, (ir.Load, ir.Store)) and node.array in candidates:
            if len(node.indices) != typed.arrays[node.array].rank or any(facts.index(node, dim) is None for dim in range(len(node.indices))):
                candidates.discard(node.array)
        elif isinstance(node, ir.Length) and node.prefix and not first_rows(node):
            candidates.discard(node.array)
    return frozenset(name for name in typed.arrays if name in candidates)


def strided_loop(facts: HoistFacts, array: str, dim: int) -> LoopRange | None:
    """The loop whose every step a list's last dimension follows, where the loop touches
    only every k-th element of it (``for m in range(p * p, n, p): a[m] = ...``): each
    subscript of that dimension is the bare variable of one loop whose step is not 1 and
    whose start moves with no other loop.  The runtime then unboxes only those elements."""
    indices = [h for h in facts.indices if h.array == array and h.dim == dim]
    if not indices or any(not isinstance(h.index, ir.Name) for h in indices):
        return None
    owners = {dict(h.scope).get(h.index.id) for h in indices}
    if len(owners) != 1 or None in owners:
        return None
    owner = owners.pop()
    found = [candidate for candidate in facts.loops if candidate.loop == owner]
    if not found:   # a refined range (a branch's): every element may be touched
        return None
    [loop] = found
    moving = {name for name, _ in loop.scope}
    if abs(loop.step) == 1 or any(isinstance(n, ir.Name) and n.id in moving for n in ir.walk(loop.start)):
        return None
    return loop
