"""How much CPython time one entry of a loop site takes, told before anything is compiled
(issue 25: the cost of megaguards follows the work a loop does; ``runtime/tiering.py``
decides with it).

``formula(loop, live_ins)`` reads the loop's ``ast`` once and returns a frozen, plain
record; ``estimate(formula, values)`` evaluates it against one entry's live-ins in a few
microseconds, without running any user code: trip counts of ``range(...)`` over ints and
``len(...)`` of built-in sequences, bounds that depend on an enclosing loop's variable
taken at their largest (interval arithmetic: ``range(i + 1, n)`` counts ``n`` trips), each
statement weighed by its syntax nodes.  Where a trip count cannot be told (a ``while``
loop, an iterator, a comprehension) the answer is None: such a loop is compiled at once,
as every loop was before.  The estimate is rough on purpose: it only has to tell a loop
worth microseconds from one worth milliseconds.

Encodings (tuples, so that evaluation is a few dictionary look-ups):

* an int expression: ``("c", value)``, ``("in", position)`` (a live-in), ``("var", name)``
  (an enclosing loop's variable), ``("len", sequence)``, ``(operator, left, right)`` with
  ``+ - * // %``, ``("neg", operand)``, ``("min" | "max", operand, ...)``;
* a sequence: ``("in", position)``, ``("var", name)`` (an element of an enclosing loop's
  sequence) or ``("item", sequence)`` (a subscript of one): its length is taken as that of
  the sequence's first element;
* trips: ``("range", start, stop, step)``, ``("each", sequence)``, ``("zip", trips, ...)``;
* a formula: ``(assumed, callees, work)``, ``assumed`` the live-ins (position, name) that
  must be the built-ins of their names (``range``, ``len``: a loop's live-ins include
  them), ``callees`` the live-ins (position, attribute) called: a function whose bytecode
  loops makes the estimate unknown (its trips are not seen here);
* work: ``(weight, ((trips, bindings, work), ...))``: the nodes run once per execution of
  the block, and the loops nested in it, each with what its target names are bound to
  (``(name, ("index", trips))``: the range's values; ``(name, ("element", sequence))``).
"""
from __future__ import annotations

import ast
import builtins
import types

NODE_SECONDS = 2.5e-9    # CPython 3.11-3.12: one syntax node of a loop body in a function, about
LOOP_WEIGHT = 3          # nodes an iteration costs beyond its body (the iterator, the target)
CALL_WEIGHT = 20         # a call of a user function (its body is not seen here; one with loops: not told)
CHEAP_CALL_WEIGHT = 8    # a call of a built-in such as abs() or min(): about 20 ns
UNKNOWN = None

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
_FOLDS = frozenset({"sum", "min", "max", "sorted", "any", "all"})   # of one sequence: a loop over it
_CHEAP_CALLS = frozenset({"abs", "min", "max", "len", "int", "float", "bool", "round", "divmod", "pow", "sqrt",
                          "exp", "log", "sin", "cos", "tan", "floor", "ceil", "fabs", "isnan", "isinf", "range",
                          "enumerate", "zip", "append", "extend"})


def formula(loop: ast.For, live_ins: tuple) -> tuple | None:
    """The work of one entry of the site ``loop`` (a ``for`` statement), or None where the
    loop's own trip count cannot be told."""
    positions = {name: position for position, name in enumerate(live_ins)}
    reader = _Reader(positions)
    work = reader.statements([loop])
    return UNKNOWN if work is UNKNOWN else (tuple(sorted(reader.builtins)), tuple(sorted(reader.callees)), work)


def expression_formula(info, arguments: int) -> tuple | None:
    """The work of one entry of an expression site (``siteinfo.ExpressionInfo``) given
    ``arguments`` pre-evaluated arguments: the estimate's values are those arguments
    followed by the live-ins (an inner level iterates ``range(...)`` of live-ins, or of an
    outer level's element)."""
    reader = _Reader({name: arguments + position for position, name in enumerate(info.live_ins)})
    levels = []
    for level in info.levels:
        each, bindings = [], []
        for target, source in zip(level.targets, level.sources):
            if source.argument is not None:
                sequence = ("in", source.argument)
                each.append(("each", sequence))
                bindings.append((target, ("element", sequence)))
            else:
                trips, bound = reader.iteration(source.expression, ast.Name(id=target, ctx=ast.Store()))
                if trips is UNKNOWN:
                    return UNKNOWN
                each.append(trips)
                bindings.extend(bound)
        reader.loop_names |= {name for name, _ in bindings}
        levels.append((each[0] if len(each) == 1 else ("zip", *each), tuple(bindings),
                       sum(_nodes(condition) for condition in level.conditions)))
    if info.callee is not None:   # map(f, ...), reduce(f, ...): f's loops are not seen here
        reader.callees.add((info.callee, None))
    inner = reader.inner_loops(ast.Expr(info.element))
    if inner is UNKNOWN:
        return UNKNOWN
    work = (_nodes(info.element) + 1 + (CALL_WEIGHT if info.callee is not None else 0), tuple(inner))
    for trips, bindings, conditions in reversed(levels):
        work = (0, ((trips, bindings, (work[0] + conditions, work[1])),))
    return tuple(sorted(reader.builtins)), tuple(sorted(reader.callees)), work


class _Reader:
    def __init__(self, positions: dict) -> None:
        self.positions = positions
        self.loop_names: set = set()   # targets of the loops being read: bound per iteration
        self.builtins: set = set()     # (live-in position, name): the built-in the estimate assumes
        self.callees: set = set()      # (live-in position, attribute or None): functions called, whose loops
                                       # (if any) the estimate does not see

    def statements(self, body: list) -> tuple | None:
        weight, loops = 0, []
        for index, statement in enumerate(body):
            if isinstance(statement, (ast.For, ast.While)):
                loop = self.loop(statement) if isinstance(statement, ast.For) else self.counted(statement, body[:index])
                if loop is UNKNOWN:
                    return UNKNOWN
                loops.append(loop)
                weight += _nodes(statement.iter if isinstance(statement, ast.For) else statement.test)
                for part in statement.orelse:
                    weight += _nodes(part)
            elif isinstance(statement, (ast.AsyncFor, ast.AsyncWith, ast.FunctionDef, ast.ClassDef,
                                        ast.AsyncFunctionDef, ast.Try, ast.With)):
                return UNKNOWN   # bodies that are not simply run once
            elif isinstance(statement, ast.If):
                inner = self.statements(statement.body + statement.orelse)   # both branches: an upper bound
                tested = self.inner_loops(ast.Expr(statement.test))
                if UNKNOWN in (inner, tested):
                    return UNKNOWN
                weight += _nodes(statement.test) + inner[0]
                loops.extend(tested + list(inner[1]))
            else:
                if any(isinstance(node, (ast.For, ast.While, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom))
                       for node in ast.walk(statement)):
                    return UNKNOWN   # loops inside a ``match``, a lambda: not told
                inner = self.inner_loops(statement)
                if inner is UNKNOWN:
                    return UNKNOWN
                loops.extend(inner)
                weight += _nodes(statement)
        return weight, tuple(loops)

    def counted(self, statement: ast.While, before: list) -> tuple | None:
        """A ``while`` loop that counts: ``k < stop`` (or ``<=``) among its condition's
        ``and`` operands, ``k += step`` (a positive int) among its body's statements, ``k``
        an int assigned before it in the same block (or a live-in): at most the trips of
        ``range(start, stop, step)``."""
        test = statement.test
        for compare in test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]:
            if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1 and isinstance(compare.left, ast.Name)
                    and isinstance(compare.ops[0], (ast.Lt, ast.LtE))):
                continue
            name = compare.left.id
            steps = [part.value.value for part in statement.body
                     if isinstance(part, ast.AugAssign) and isinstance(part.target, ast.Name)
                     and part.target.id == name and isinstance(part.op, ast.Add)
                     and isinstance(part.value, ast.Constant) and type(part.value.value) is int and part.value.value > 0]
            stop = self.integer(compare.comparators[0])
            start = self.start(name, before)
            if len(steps) != 1 or UNKNOWN in (stop, start):
                continue
            if isinstance(compare.ops[0], ast.LtE):
                stop = ("+", stop, ("c", 1))
            trips = ("range", start, stop, ("c", steps[0]))
            hidden = {name} - self.loop_names
            self.loop_names |= hidden
            try:
                body = self.statements(statement.body)
            finally:
                self.loop_names -= hidden
            tested = self.inner_loops(ast.Expr(test))
            if UNKNOWN in (body, tested):
                return UNKNOWN
            return trips, ((name, ("index", trips)),), (body[0] + _nodes(test), body[1] + tuple(tested))
        return UNKNOWN

    def start(self, name: str, before: list) -> tuple | None:
        """The int a counter starts from: its last assignment in ``before``, or a live-in."""
        for statement in reversed(before):
            if any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
                   for node in ast.walk(statement)):
                if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                        and isinstance(statement.targets[0], ast.Name):
                    return self.integer(statement.value)
                return UNKNOWN
        return ("in", self.positions[name]) if name in self.positions and name not in self.loop_names else UNKNOWN

    def inner_loops(self, node: ast.AST) -> list | None:
        """The loops inside the expressions of ``node``: comprehensions (not those nested in
        one of them), ``sum``/``min``/``max``/``sorted``/``any``/``all`` of a sequence; and
        the live-ins it calls, noted (a function that loops makes the estimate unknown)."""
        loops = []
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                loop = self.comprehension(child, 0)
                if loop is UNKNOWN:
                    return UNKNOWN
                loops.append(loop)
                continue
            if isinstance(child, ast.Call):
                loops.extend(self.call(child))
            inner = self.inner_loops(child)
            if inner is UNKNOWN:
                return UNKNOWN
            loops.extend(inner)
        return loops

    def call(self, node: ast.Call) -> list:
        callee = node.func
        if isinstance(callee, ast.Name) and callee.id not in self.loop_names:
            if callee.id in _FOLDS and len(node.args) == 1 and not self.shadowed(callee.id):
                sequence = self.sequence(node.args[0])
                if sequence is not UNKNOWN:
                    return [(("each", sequence), (), (2, ()))]
            if callee.id in self.positions:
                self.callees.add((self.positions[callee.id], None))
        elif isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) \
                and callee.value.id in self.positions and callee.value.id not in self.loop_names:
            self.callees.add((self.positions[callee.value.id], callee.attr))   # module.function(...)
        return []

    def comprehension(self, node: ast.expr, level: int) -> tuple | None:
        generator = node.generators[level]
        if generator.is_async:
            return UNKNOWN
        trips, bindings = self.iteration(generator.iter, generator.target)
        if trips is UNKNOWN:
            return UNKNOWN
        hidden = {name for name, _ in bindings} - self.loop_names
        self.loop_names |= hidden
        try:
            weight = sum(_nodes(condition) for condition in generator.ifs)
            if level + 1 < len(node.generators):
                inner = self.comprehension(node, level + 1)
                loops = UNKNOWN if inner is UNKNOWN else [inner]
            else:
                elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                weight += sum(_nodes(element) for element in elements) + 1
                loops = []
                for element in elements:
                    nested = UNKNOWN if loops is UNKNOWN else self.inner_loops(ast.Expr(element))
                    loops = UNKNOWN if nested is UNKNOWN else loops + nested
        finally:
            self.loop_names -= hidden
        return UNKNOWN if loops is UNKNOWN else (trips, bindings, (weight, tuple(loops)))

    def loop(self, statement: ast.For) -> tuple | None:
        trips, bindings = self.iteration(statement.iter, statement.target)
        if trips is UNKNOWN:
            return UNKNOWN
        added = {name for name, _ in bindings}
        hidden = added - self.loop_names
        self.loop_names |= added
        try:
            body = self.statements(statement.body)
        finally:
            self.loop_names -= hidden
        return UNKNOWN if body is UNKNOWN else (trips, bindings, body)

    def iteration(self, iterable: ast.expr, target: ast.expr) -> tuple:
        """(trips, bindings) of ``for target in iterable``; trips None: not told."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and not iterable.keywords:
            name, arguments = iterable.func.id, iterable.args
            if name == "range" and 1 <= len(arguments) <= 3 and not self.shadowed(name):
                bounds = [self.integer(a) for a in arguments]
                if UNKNOWN in bounds:
                    return UNKNOWN, ()
                start, stop, step = ([("c", 0)] + bounds + [("c", 1)])[:3] if len(bounds) == 1 else \
                    (bounds + [("c", 1)])[:3]
                trips = ("range", start, stop, step)
                return trips, self.bind(target, ("index", trips))
            if name == "enumerate" and len(arguments) == 1 and isinstance(target, ast.Tuple) \
                    and len(target.elts) == 2 and not self.shadowed(name):
                sequence = self.sequence(arguments[0])
                if sequence is UNKNOWN:
                    return UNKNOWN, ()
                trips = ("each", sequence)
                return trips, self.bind(target.elts[0], ("index", ("range", ("c", 0), ("len", sequence), ("c", 1)))) \
                    + self.bind(target.elts[1], ("element", sequence))
            if name == "zip" and arguments and isinstance(target, ast.Tuple) and len(target.elts) == len(arguments) \
                    and not self.shadowed(name):
                sequences = [self.sequence(a) for a in arguments]
                if UNKNOWN in sequences:
                    return UNKNOWN, ()
                bindings = sum((self.bind(t, ("element", s)) for t, s in zip(target.elts, sequences)), ())
                return ("zip", *(("each", s) for s in sequences)), bindings
            return UNKNOWN, ()
        sequence = self.sequence(iterable)
        if sequence is UNKNOWN:
            return UNKNOWN, ()
        return ("each", sequence), self.bind(target, ("element", sequence))

    def bind(self, target: ast.expr, how: tuple) -> tuple:
        if isinstance(target, ast.Name):
            return ((target.id, how),)
        # A tuple target (``for a, b in pairs``): its names are not told apart.
        return tuple((node.id, None) for node in ast.walk(target) if isinstance(node, ast.Name))

    def shadowed(self, name: str) -> bool:
        """Is ``name`` (range, len, ...) not known to be the built-in?  A live-in of that name
        (as every built-in a loop calls is) is checked to be the built-in at each estimate."""
        if name in self.loop_names:
            return True
        if name in self.positions:
            self.builtins.add((self.positions[name], name))
        return False

    def sequence(self, node: ast.expr) -> tuple | None:
        if isinstance(node, ast.Name):
            if node.id in self.loop_names:
                return ("var", node.id)
            if node.id in self.positions:
                return ("in", self.positions[node.id])
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            outer = self.sequence(node.value)   # a row: as long as the first row, roughly
            return UNKNOWN if outer is UNKNOWN else ("item", outer)
        return UNKNOWN

    def integer(self, node: ast.expr) -> tuple | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return ("c", node.value)
        if isinstance(node, ast.Name):
            if node.id in self.loop_names:
                return ("var", node.id)
            if node.id in self.positions:
                return ("in", self.positions[node.id])
            return UNKNOWN
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = self.integer(node.left), self.integer(node.right)
            return UNKNOWN if UNKNOWN in (left, right) else (_OPERATORS[type(node.op)], left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self.integer(node.operand)
            return UNKNOWN if operand is UNKNOWN else ("neg", operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
                and not self.shadowed(node.func.id):
            if node.func.id == "len" and len(node.args) == 1:
                sequence = self.sequence(node.args[0])
                return UNKNOWN if sequence is UNKNOWN else ("len", sequence)
            if node.func.id in ("min", "max") and len(node.args) >= 2:
                operands = [self.integer(a) for a in node.args]
                return UNKNOWN if UNKNOWN in operands else (node.func.id, *operands)
        return UNKNOWN


def _nodes(node: ast.AST) -> int:
    """The weight of running ``node`` once: its expression and statement nodes, a call of
    something not known to be cheap counting ``CALL_WEIGHT`` more."""
    weight = 0
    for child in ast.walk(node):
        if isinstance(child, (ast.expr, ast.stmt)):
            weight += 1
            if isinstance(child, ast.Call):
                callee = child.func
                name = callee.id if isinstance(callee, ast.Name) else \
                    callee.attr if isinstance(callee, ast.Attribute) else None
                weight += CHEAP_CALL_WEIGHT if name in _CHEAP_CALLS else CALL_WEIGHT
    return weight


# -- evaluation, at a site's entry ------------------------------------------------------------

def estimate(formula: tuple, values: tuple) -> float | None:
    """Seconds CPython is estimated to take for one entry whose live-ins are ``values``;
    None where a trip count cannot be told from them."""
    assumed, callees, work = formula
    for position, name in assumed:
        if values[position] is not getattr(builtins, name):
            return None
    for position, attribute in callees:
        if _loops_inside(values[position], attribute):
            return None
    weight = _Evaluator(values).work(work, {})
    return None if weight is None else weight * NODE_SECONDS


_SEQUENCES = (list, tuple, range, str, bytes, bytearray)


class _Evaluator:
    def __init__(self, values: tuple) -> None:
        self.values = values

    def work(self, work: tuple, scope: dict) -> float | None:
        weight, loops = work
        total = float(weight)
        for trips, bindings, body in loops:
            count = self.trips(trips, scope)
            if count is None:
                return None
            if count == 0:
                continue
            inner = dict(scope)
            for name, how in bindings:
                inner[name] = self.binding(how, scope)
            per_trip = self.work(body, inner)
            if per_trip is None:
                return None
            total += count * (LOOP_WEIGHT + per_trip)
        return total

    def binding(self, how, scope: dict):
        """What a loop variable is known to be: an interval (lo, hi), a sample element
        ``("sample", value)``, or None."""
        if how is None:
            return None
        kind, what = how
        if kind == "index":
            return self.values_of(what, scope)
        sequence = self.sequence(what, scope)
        return ("sample", _first(sequence)) if sequence is not None and _length(sequence) else None

    def values_of(self, trips: tuple, scope: dict) -> tuple | None:
        """The interval a range's variable runs through (None: empty or not told)."""
        _, start, stop, step = trips
        start, stop, step = self.integer(start, scope), self.integer(stop, scope), self.integer(step, scope)
        if None in (start, stop, step):
            return None
        if step[0] > 0:
            return (start[0], stop[1] - 1) if stop[1] - 1 >= start[0] else None
        if step[1] < 0:
            return (stop[0] + 1, start[1]) if start[1] >= stop[0] + 1 else None
        return None

    def trips(self, trips: tuple, scope: dict) -> int | None:
        kind = trips[0]
        if kind == "range":
            start, stop, step = (self.integer(part, scope) for part in trips[1:])
            if None in (start, stop, step):
                return None
            if step[0] > 0:     # the most trips: the lowest start, the highest stop, the smallest step
                return max(0, -(-(stop[1] - start[0]) // step[0]))
            if step[1] < 0:
                return max(0, -(-(start[1] - stop[0]) // -step[1]))
            return None         # a step that may be 0 (ValueError) or change sign
        if kind == "each":
            sequence = self.sequence(trips[1], scope)
            return None if sequence is None else _length(sequence)
        counts = [self.trips(part, scope) for part in trips[1:]]   # zip: the shortest
        return None if None in counts else min(counts)

    def sequence(self, node: tuple, scope: dict):
        kind = node[0]
        if kind == "in":
            return self.values[node[1]]
        if kind == "item":
            outer = self.sequence(node[1], scope)
            return None if outer is None or not _length(outer) else _first(outer)
        known = scope.get(node[1])
        return known[1] if type(known) is tuple and known and known[0] == "sample" else None

    def integer(self, node: tuple, scope: dict) -> tuple | None:
        """The interval (lo, hi) of an int expression, or None."""
        kind = node[0]
        if kind == "c":
            return node[1], node[1]
        if kind == "in":
            value = self.values[node[1]]
            return (value, value) if type(value) is int else None
        if kind == "var":
            known = scope.get(node[1])
            return known if type(known) is tuple and len(known) == 2 and type(known[0]) is int else None
        if kind == "len":
            sequence = self.sequence(node[1], scope)
            length = None if sequence is None else _length(sequence)
            return None if length is None else (length, length)
        operands = [self.integer(part, scope) for part in node[1:]]
        if None in operands:
            return None
        if kind == "neg":
            return -operands[0][1], -operands[0][0]
        if kind == "min":
            return min(o[0] for o in operands), min(o[1] for o in operands)
        if kind == "max":
            return max(o[0] for o in operands), max(o[1] for o in operands)
        (a, b), (c, d) = operands
        if kind == "+":
            return a + c, b + d
        if kind == "-":
            return a - d, b - c
        if kind == "*":
            products = (a * c, a * d, b * c, b * d)
            return min(products), max(products)
        if c <= 0 <= d:
            return None         # a divisor that may be 0
        if kind == "//":
            quotients = (a // c, a // d, b // c, b // d)
            return min(quotients), max(quotients)
        return (0, max(abs(c), abs(d)) - 1) if c > 0 else (-max(abs(c), abs(d)) + 1, 0)   # %


_LOOP_OPCODES = None
_LOOPING: dict = {}   # code object -> does it (or code nested in it) loop?


def _loops_inside(value, attribute: str | None) -> bool:
    """Does calling ``value`` (``value.<attribute>`` of a module) run a Python function
    whose code loops?  Read from the bytecode, without running user code; a class is
    judged by its own ``__init__``."""
    if attribute is not None:
        if type(value) is not types.ModuleType:
            return False
        value = value.__dict__.get(attribute)
    if isinstance(value, type):
        value = value.__dict__.get("__init__")
    code = getattr(value, "__code__", None) if type(value) in (types.FunctionType, types.MethodType) else None
    return code is not None and _code_loops(code)


def _code_loops(code) -> bool:
    global _LOOP_OPCODES
    known = _LOOPING.get(code)
    if known is None:
        if _LOOP_OPCODES is None:
            import opcode

            _LOOP_OPCODES = {opcode.opmap[name] for name in ("FOR_ITER", "JUMP_BACKWARD", "JUMP_ABSOLUTE",
                                                             "JUMP_BACKWARD_NO_INTERRUPT") if name in opcode.opmap}
        raw = code.co_code
        known = any(raw[k] in _LOOP_OPCODES for k in range(0, len(raw), 2)) or any(
            type(constant) is types.CodeType and _code_loops(constant) for constant in code.co_consts)
        _LOOPING[code] = known
    return known


def _first(sequence):
    """The first element of a non-empty built-in sequence or array (no user code runs)."""
    try:
        return sequence[0]
    except Exception:   # a zero-dimensional array: no rows
        return None


def _length(value) -> int | None:
    """len() of a built-in sequence or an array (never a user class's __len__)."""
    cls = type(value)
    if cls in _SEQUENCES:
        try:
            return len(value)
        except OverflowError:   # a range past sys.maxsize
            return None
    if cls.__name__ == "ndarray" and cls.__module__.split(".")[0] in ("numpy", "cupy"):
        shape = value.shape
        return shape[0] if shape else None
    return None
