"""How much CPython time one entry of a loop site takes, told before anything is compiled
(issue 25: the cost of megaguards follows the work a loop does; ``runtime/tiering.py``
decides with it).

``formula(loop, live_ins)`` reads the loop's ``ast`` once, at rewrite time, and returns a
plain record (tuples of ints and strings: the rewrite cache keeps it beside the site, so
no ``ast`` is unpickled to estimate an entry); ``runtime/estimate.py`` evaluates it against
one entry's live-ins: trip counts of ``range(...)`` over ints and ``len(...)`` of built-in
sequences, bounds that depend on an enclosing loop's variable taken at their largest
(``range(i + 1, n)`` counts ``n`` trips), each statement weighed by its syntax nodes.
Where a trip count cannot be told (a ``while`` loop that does not count to a bound, an
iterator, a lambda) that loop counts one trip and the formula is marked inexact: a lower
bound, roughly (``runtime/tiering.py`` compiles such a loop at once only where even that
is real work, and otherwise times CPython's run of it).  The estimate is rough on purpose:
it only has to tell a loop worth microseconds from one worth milliseconds.

Encodings (tuples, so that evaluation is a few dictionary look-ups):

* an int expression: ``("c", value)``, ``("in", position)`` (a live-in), ``("var", name)``
  (an enclosing loop's variable), ``("len", sequence)``, ``(operator, left, right)`` with
  ``+ - * // %``, ``("neg", operand)``, ``("min" | "max", operand, ...)``;
* an attribute of an object (``self.n``, ``self.cells``): ``("attr", sequence, name)``;
* a sequence: ``("in", position)``, ``("var", name)`` (an element of an enclosing loop's
  sequence) or ``("item", sequence)`` (a subscript of one): its length is taken as that of
  the sequence's first element; ``("lit", length)``: a display (``[a, b]``, ``[0.0] * n``);
  ``("built", trips)``: a list comprehension of one ``for``, as long as its trips;
* trips: ``("range", start, stop, step)``, ``("each", sequence)``, ``("zip", trips, ...)``;
* a formula: ``(assumed, callees, inlined, work, exact)``, ``assumed`` the live-ins (position,
  name) that must be the built-ins of their names (``range``, ``len``: a loop's live-ins
  include them), ``callees`` the live-ins (position, attribute) called but not read: a
  function whose bytecode loops makes the estimate unknown (its trips are not seen here),
  ``inlined`` the live-ins (position, name, first line) that must be the module's
  functions whose bodies the formula read in place of their calls (parameters bound to
  the call's arguments, ``n = len(a)`` and the like followed), ``exact`` False where some
  loop's trips were not told (counted as one trip);
* work: ``(weight, ((trips, bindings, work), ...))``: the nodes run once per execution of
  the block, and the loops nested in it, each with what its target names are bound to
  (``(name, ("index", trips))``: the range's values; ``(name, ("element", sequence))``).
"""
from __future__ import annotations

import ast

CALL_WEIGHT = 20         # a call of a user function (its body is not seen here; one with loops: not told)
CHEAP_CALL_WEIGHT = 8    # a call of a built-in such as abs() or min(): about 20 ns
UNKNOWN = None
ONE_TRIP = ("range", ("c", 0), ("c", 1), ("c", 1))   # the trips of a call read inline, or of a loop not told

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
_FOLDS = frozenset({"sum", "min", "max", "sorted", "any", "all"})   # of one sequence: a loop over it
_CHEAP_CALLS = frozenset({"abs", "min", "max", "len", "int", "float", "bool", "round", "divmod", "pow", "sqrt",
                          "exp", "log", "sin", "cos", "tan", "floor", "ceil", "fabs", "isnan", "isinf", "range",
                          "enumerate", "zip", "append", "extend"})


def formula(loop: ast.For | ast.While, live_ins: tuple, functions: dict | None = None) -> tuple:
    """The work of one entry of the site ``loop``: exact where every trip count can be told
    (``told``), else a rough lower bound.  ``functions``: the module's functions by name
    (untouched copies of their ``def``), read in place of a call to one of them."""
    positions = {name: position for position, name in enumerate(live_ins)}
    reader = _Reader(positions, functions or {})
    return reader.formula(reader.statements([loop]))


def told(formula) -> bool:
    """Is ``formula`` (a site's ``work``) exact: every trip count of the loop told?"""
    return bool(formula) and formula[4]


def module_functions(tree: ast.Module) -> dict:
    """Copies of a module's top-level functions that loop and that the module calls, by
    name (the last ``def`` of a name): the calls a loop makes to them are estimated through
    their bodies.  (Copies: the rewrite turns their own loops into sites.)"""
    import copy

    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    return {node.name: copy.deepcopy(node) for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name in called
            and any(isinstance(inner, (ast.For, ast.While, ast.comprehension)) for inner in ast.walk(node))}


def expression_formula(info, arguments: int) -> tuple | None:
    """The work of one entry of an expression site (``siteinfo.ExpressionInfo``) given
    ``arguments`` pre-evaluated arguments: the estimate's values are those arguments
    followed by the live-ins (an inner level iterates ``range(...)`` of live-ins, or of an
    outer level's element)."""
    reader = _Reader({name: arguments + position for position, name in enumerate(info.live_ins)}, {})
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
        if info.kind in ("any", "all"):   # the deciding element may come first: one trip, a lower bound
            each, bindings = [ONE_TRIP], [(name, None) for name, _ in bindings]
            reader.untold.add(info.line)
        reader.loop_names |= {name for name, _ in bindings}
        levels.append((each[0] if len(each) == 1 else ("zip", *each), tuple(bindings),
                       sum(_nodes(condition) for condition in level.conditions)))
    if info.callee is not None:   # map(f, ...), reduce(f, ...): f's loops are not seen here
        reader.callees.add((info.callee, None))
    inner = reader.inner_loops(ast.Expr(info.element))
    keyed = info.reducer[3] if info.reducer and info.reducer[0] == "key" and info.reducer[3] is not None else None
    work = (_nodes(info.element) + 1 + (CALL_WEIGHT if info.callee is not None else 0)
            + (_nodes(keyed) if keyed is not None else 0), tuple(inner))
    for trips, bindings, conditions in reversed(levels):
        work = (0, ((trips, bindings, (work[0] + conditions, work[1])),))
    return reader.formula(work)


def _counter(node: ast.expr) -> str | None:
    """``k`` of a counting condition's left side ``k`` or ``k * k``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and isinstance(node.left, ast.Name) \
            and isinstance(node.right, ast.Name) and node.left.id == node.right.id:
        node = node.left
    return node.id if isinstance(node, ast.Name) else None


class _Reader:
    def __init__(self, positions: dict, functions: dict, parameters: dict | None = None,
                 local_names: frozenset = frozenset(), outer: _Reader | None = None, reading: str = "") -> None:
        self.positions = positions
        self.functions = functions     # the module's functions that loop, read inline where called
        self.parameters = parameters or {}   # in a function read inline: parameter -> (kind, caller's encoding)
        self.local_names = local_names       # ... and the names it assigns (never the caller's live-ins)
        self.lets: dict = {}           # name -> (kind, encoding) of a simple assignment read so far
        self.loop_names: set = set()   # targets of the loops being read: bound per iteration
        # The functions being read inline, outermost first: no recursion, at most two deep.
        self.reading: tuple = (*outer.reading, reading) if outer else ()
        # Shared with the functions read inline: what the estimate must check at run time.
        self.builtins: set = outer.builtins if outer else set()   # (position, name): the built-ins assumed
        self.callees: set = outer.callees if outer else set()     # (position, attribute): called, not read
        self.inlined: set = outer.inlined if outer else set()     # (position, name, first line): read inline
        self.untold: set = outer.untold if outer else set()       # lines of loops counted as one trip

    def formula(self, work: tuple) -> tuple:
        return (tuple(sorted(self.builtins)), tuple(sorted(self.callees)), tuple(sorted(self.inlined)), work,
                not self.untold)

    def one_trip(self, statement: ast.For | ast.While | ast.comprehension, body: list) -> tuple:
        """A loop whose trips cannot be told, counted as one trip of ``body`` (its targets'
        values unknown): the formula is a lower bound from now on."""
        self.untold.add(getattr(statement, "lineno", 0))
        targets = {node.id for node in ast.walk(statement.target) if isinstance(node, ast.Name)} \
            if not isinstance(statement, ast.While) else set()
        hidden = targets - self.loop_names
        self.loop_names |= hidden
        try:
            inner = self.statements(body)
        finally:
            self.loop_names -= hidden
        return (ONE_TRIP, tuple((name, None) for name in sorted(targets)), inner)

    def statements(self, body: list) -> tuple:
        weight, loops = 0, []
        for index, statement in enumerate(body):
            if isinstance(statement, (ast.For, ast.While)):
                loop = self.loop(statement) if isinstance(statement, ast.For) else self.counted(statement, body[:index])
                if loop is UNKNOWN:
                    loop = self.one_trip(statement, statement.body)
                loops.append(loop)
                weight += _nodes(statement.iter if isinstance(statement, ast.For) else statement.test)
                for part in statement.orelse:
                    weight += _nodes(part)
            elif isinstance(statement, (ast.Try, ast.With)):   # the body once, at least
                inner = self.statements(statement.body)
                weight += inner[0]
                loops.extend(inner[1])
                self.untold.add(statement.lineno)
            elif isinstance(statement, (ast.AsyncFor, ast.AsyncWith, ast.FunctionDef, ast.ClassDef,
                                        ast.AsyncFunctionDef)):
                weight += 1      # bodies that are not simply run once: not told
                self.untold.add(statement.lineno)
            elif isinstance(statement, ast.If):
                inner = self.statements(statement.body + statement.orelse)   # both branches: an upper bound
                weight += _nodes(statement.test) + inner[0]
                loops.extend(self.inner_loops(ast.Expr(statement.test)) + list(inner[1]))
            else:
                if any(isinstance(node, (ast.For, ast.While, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom))
                       for node in ast.walk(statement)):
                    self.untold.add(statement.lineno)   # loops inside a ``match``, a lambda: not told
                else:
                    loops.extend(self.inner_loops(statement))
                weight += _nodes(statement)
                self.assigned(statement)
        return weight, tuple(loops)

    def assigned(self, statement: ast.stmt) -> None:
        """Note ``name = <int or sequence expression>`` (used by later trip counts); forget
        what any other store of a name said."""
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.lets.pop(node.id, None)
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            value = self.value(statement.value)
            if value is not UNKNOWN:
                self.lets[statement.targets[0].id] = value

    def value(self, node: ast.expr) -> tuple | None:
        """(kind, encoding) of an argument or an assigned value: "any" for a name (an int or
        a sequence), "int", "seq"; None if neither."""
        if isinstance(node, ast.Name):
            found = self.resolve(node.id, "any")
            return UNKNOWN if found is UNKNOWN else ("any", found)
        number = self.integer(node)
        if number is not UNKNOWN:
            return ("int", number)
        sequence = self.sequence(node)
        return UNKNOWN if sequence is UNKNOWN else ("seq", sequence)

    def resolve(self, name: str, kind: str) -> tuple | None:
        """The encoding of the name ``name`` used as ``kind`` ("int", "seq" or "any")."""
        if name in self.loop_names:
            return ("var", name)
        for table in (self.lets, self.parameters):
            if name in table:
                known, encoding = table[name]
                return encoding if known in ("any", kind) or kind == "any" else UNKNOWN
        if name in self.local_names or name not in self.positions:
            return UNKNOWN
        return ("in", self.positions[name])

    def counted(self, statement: ast.While, before: list) -> tuple | None:
        """A ``while`` loop that counts: ``k < stop`` (or ``<=``; or ``k * k <= stop``, a
        sieve's) among its condition's ``and`` operands, ``k += step`` (a positive int) among
        its body's statements, ``k`` an int assigned before it in the same block (or a
        live-in): at most the trips of ``range(start, stop, step)``."""
        test = statement.test
        for compare in test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]:
            if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1
                    and isinstance(compare.ops[0], (ast.Lt, ast.LtE))):
                continue
            name = _counter(compare.left)
            if name is None:
                continue
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
        return self.resolve(name, "int")

    def inner_loops(self, node: ast.AST) -> list:
        """The loops inside the expressions of ``node``: comprehensions (not those nested in
        one of them; one whose trips cannot be told counts one trip), ``sum``/``min``/``max``/
        ``sorted``/``any``/``all`` of a sequence; and the live-ins it calls, noted (a function
        that loops makes the estimate a lower bound)."""
        loops = []
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                loop = self.comprehension(child, 0)
                if loop is UNKNOWN:
                    self.untold.add(child.lineno)
                    loop = (ONE_TRIP, (), (_nodes(child), ()))
                loops.append(loop)
                continue
            if isinstance(child, ast.Call):
                loops.extend(self.call(child))
            loops.extend(self.inner_loops(child))
        return loops

    def call(self, node: ast.Call) -> list:
        callee = node.func
        if isinstance(callee, ast.Name) and callee.id not in self.loop_names:
            if callee.id in _FOLDS and len(node.args) == 1 and not self.shadowed(callee.id):
                sequence = self.sequence(node.args[0])
                if sequence is not UNKNOWN:
                    return [(("each", sequence), (), (2, ()))]
            if callee.id in self.positions and callee.id not in self.local_names:
                body = self.inline(node, callee.id)
                if body is not UNKNOWN:
                    return [(ONE_TRIP, (), body)]
                self.callees.add((self.positions[callee.id], None))
        elif isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) \
                and callee.value.id in self.positions and callee.value.id not in self.loop_names | self.local_names:
            self.callees.add((self.positions[callee.value.id], callee.attr))   # module.function(), self.method()
        return []

    def inline(self, call: ast.Call, name: str) -> tuple | None:
        """The work of a call of the module's function ``name`` (its body read with its
        parameters bound to the call's arguments), or None."""
        definition = self.functions.get(name)
        if definition is None or name in self.reading or len(self.reading) >= 2 or call.keywords \
                or any(isinstance(argument, ast.Starred) for argument in call.args):
            return UNKNOWN
        signature = definition.args
        names = [argument.arg for argument in signature.args]
        if signature.posonlyargs or signature.vararg or signature.kwonlyargs or signature.kwarg \
                or not len(names) - len(signature.defaults) <= len(call.args) <= len(names):
            return UNKNOWN
        parameters = {}
        for parameter, argument in zip(names, call.args):
            value = self.value(argument)
            if value is not UNKNOWN:
                parameters[parameter] = value
        stored = frozenset(node.id for node in ast.walk(definition)
                           if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
        reader = _Reader(self.positions, self.functions, parameters, stored | set(names), outer=self, reading=name)
        body = reader.statements(definition.body)
        line = definition.decorator_list[0].lineno if definition.decorator_list else definition.lineno
        self.inlined.add((self.positions[name], name, line))
        return body

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
                    loops += self.inner_loops(ast.Expr(element))
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
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "reversed" \
                and len(iterable.args) == 1 and not iterable.keywords and not self.shadowed("reversed"):
            return self.iteration(iterable.args[0], target)   # as many trips, the same values
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
            if name == "enumerate" and len(arguments) in (1, 2) and isinstance(target, ast.Tuple) \
                    and len(target.elts) == 2 and not self.shadowed(name):
                sequence = self.sequence(arguments[0])
                start = self.integer(arguments[1]) if len(arguments) == 2 else ("c", 0)
                if UNKNOWN in (sequence, start):
                    return UNKNOWN, ()
                counts = ("range", start, ("+", start, ("len", sequence)), ("c", 1))
                return ("each", sequence), self.bind(target.elts[0], ("index", counts)) \
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
        if name in self.loop_names or name in self.local_names or name in self.lets:
            return True
        if name in self.positions:
            self.builtins.add((self.positions[name], name))
        return False

    def sequence(self, node: ast.expr) -> tuple | None:
        if isinstance(node, ast.Name):
            return self.resolve(node.id, "seq")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base = self.resolve(node.value.id, "seq")   # self.cells: an attribute of an object
            return UNKNOWN if base is UNKNOWN else ("attr", base, node.attr)
        if isinstance(node, ast.ListComp) and len(node.generators) == 1 and not node.generators[0].ifs \
                and not node.generators[0].is_async:   # [e for k in range(n)]: as long as its trips
            trips, _ = self.iteration(node.generators[0].iter, node.generators[0].target)
            return UNKNOWN if trips is UNKNOWN else ("built", trips)
        if isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return ("lit", ("c", len(node.elts)))   # a display: its length
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and isinstance(node.left, ast.List) \
                and not any(isinstance(e, ast.Starred) for e in node.left.elts):
            times = self.integer(node.right)   # [0.0] * n
            return UNKNOWN if times is UNKNOWN else ("lit", ("*", ("c", len(node.left.elts)), times))
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            outer = self.sequence(node.value)   # a row: as long as the first row, roughly
            return UNKNOWN if outer is UNKNOWN else ("item", outer)
        return UNKNOWN

    def integer(self, node: ast.expr) -> tuple | None:
        if isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            return ("c", int(node.value))
        if isinstance(node, ast.Attribute):
            base = self.sequence(node.value) if isinstance(node.value, ast.Name) else UNKNOWN
            return UNKNOWN if base is UNKNOWN else ("attr", base, node.attr)
        if isinstance(node, ast.Name):
            return self.resolve(node.id, "int")
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = self.integer(node.left), self.integer(node.right)
            return UNKNOWN if UNKNOWN in (left, right) else (_OPERATORS[type(node.op)], left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self.integer(node.operand)
            return UNKNOWN if operand is UNKNOWN else ("neg", operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
                and node.func.id in ("len", "min", "max") and not self.shadowed(node.func.id):
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
