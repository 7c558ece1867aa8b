"""Which loops run in parallel (MegaGuards §3.4.1, Leung's outermost-first rule).

A loop is parallel when no array element is touched by two of its iterations
with one of them writing (``dependence.carries_dependence``) and every scalar it
assigns is either *private* (written before read in each iteration) or a
*reduction* (``s += e``, ``s *= e``, ``s -= e``, bitwise ``&= |= ^=``,
``s = max(s, e)``, ``s = min(s, e)``, ``if e > s: s = e``).  The outermost
parallel loop of each nest is chosen; loops inside it stay sequential in each
thread.  Every rejection carries a reason.
"""
from __future__ import annotations


from ..record import record
from ..ir import nodes as ir
from .bounds import HoistFacts
from .dependence import Access, carries_dependence
from .typeinfer import TypedLoop

COMBINE = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "^": "^"}


@record
class Reduction:
    var: str
    kind: str  # "+", "*", "&", "|", "^", "max", "min"
    conditional: bool = False  # "if e > s: s = e": s is assigned only when e beats it
    fold: str = ""  # float + or *, exact: the one form of its steps ("s+e" "s-e" "e+s" "s*e" "e*s"),
    #                 each iteration's operands kept and folded into s in iteration order


@record
class ParallelLoop:
    loop: int                   # nid of the ir.For
    private: tuple[str, ...]    # scalars written before read in every iteration
    reductions: tuple[Reduction, ...]
    weight: int                 # static cost estimate of one iteration (for the work threshold)
    private_arrays: tuple = ()  # (name, nid of its writing loop): a 1-D list each iteration writes whole
    #                             over that loop's range before reading it (doitgen's ``sum``): a copy
    #                             per thread, the one that ran the last iteration copying it back
    appended: tuple = ()        # lists the body appends to: each thread collects its contiguous share's
    #                             values, joined in thread order, which is the iteration order


@record
class ParallelPlan:
    loops: dict                 # nid of ir.For -> ParallelLoop
    reasons: tuple[str, ...]    # why loops are not parallel: always worth saying
    notes: tuple[str, ...] = ()   # what a parallel run does (a float reduction folded in order or
    #                               reassociated): said only of a loop that ran in parallel

    @property
    def depth(self) -> int:
        return 1 if self.loops else 0


def assigned_scalars(statements) -> set[str]:
    """The scalars ``statements`` assign: assignments' targets and ``for`` variables."""
    return {n.target for s in statements for n in ir.walk(s) if isinstance(n, ir.Assign)} | \
        {n.var for s in statements for n in ir.walk(s) if isinstance(n, ir.For)}


def exposed_reads(statements, defined: frozenset = frozenset()) -> set[str]:
    """Scalars read before being assigned in the same iteration of a loop body."""
    exposed: set[str] = set()

    def reads(node):
        for child in ir.walk(node):
            if isinstance(child, ir.Name) and child.id not in defined_now[0]:
                exposed.add(child.id)

    defined_now = [set(defined)]

    def block(body):
        for statement in body:
            step(statement)

    def step(node):
        if isinstance(node, ir.Assign):
            reads(node.value)
            defined_now[0].add(node.target)
        elif isinstance(node, ir.Store):
            for index in node.indices:
                reads(index)
            reads(node.value)
        elif isinstance(node, ir.Append):
            reads(node.value)
        elif isinstance(node, ir.If):
            reads(node.test)
            before = set(defined_now[0])
            block(node.body)
            after_body = defined_now[0]
            defined_now[0] = set(before)
            block(node.orelse)
            defined_now[0] = after_body & defined_now[0]
        elif isinstance(node, (ir.For, ir.While)):
            before = set(defined_now[0])
            if isinstance(node, ir.For):
                for bound in (node.start, node.stop, node.step):
                    reads(bound)
                defined_now[0].add(node.var)
            else:
                reads(node.test)
            block(node.body)
            defined_now[0] = before
    block(statements)
    return exposed


def _reduction_kind(var: str, statement: ir.Stmt, functions: dict) -> str | None:
    """The combine kind if ``statement`` is a reduction step on ``var``, else None.
    ``functions``: call path -> canonical name (an inlined function's ``max`` is called as
    ``f.__globals__.max``)."""
    def mentions(node) -> bool:
        return any(isinstance(n, ir.Name) and n.id == var for n in ir.walk(node))

    if isinstance(statement, ir.Assign) and statement.target == var:
        value = statement.value
        if isinstance(value, ir.BinOp) and value.op in COMBINE:
            if isinstance(value.left, ir.Name) and value.left.id == var and not mentions(value.right):
                return COMBINE[value.op]
            if (value.op in "+*&|^" and isinstance(value.right, ir.Name) and value.right.id == var
                    and not mentions(value.left)):
                return value.op
        function = functions.get(value.function) if isinstance(value, ir.Call) else None
        if (function in ("max", "min") and len(value.args) == 2
                and isinstance(value.args[0], ir.Name) and value.args[0].id == var and not mentions(value.args[1])):
            return function
    if (isinstance(statement, ir.If) and not statement.orelse and len(statement.body) == 1
            and isinstance(statement.test, ir.Compare) and len(statement.test.ops) == 1):
        test, (assign,) = statement.test, statement.body
        op, left, right = test.ops[0], test.left, test.comparators[0]
        if isinstance(assign, ir.Assign) and assign.target == var and not mentions(assign.value):
            if isinstance(right, ir.Name) and right.id == var and left == assign.value:
                kind = {">": "max", "<": "min"}.get(op)   # if e > s: s = e
                return kind and kind + "?"
            if isinstance(left, ir.Name) and left.id == var and right == assign.value:
                kind = {"<": "max", ">": "min"}.get(op)   # if s < e: s = e
                return kind and kind + "?"
    return None


def _reduction_steps(var: str, statements, functions: dict) -> set[str] | None:
    """Kinds of all statements that touch ``var``, if each is a reduction step."""
    kinds: set[str] = set()
    for statement in statements:
        kind = _reduction_kind(var, statement, functions)
        if kind is not None:
            kinds.add(kind)
            continue
        if isinstance(statement, (ir.If, ir.While, ir.For)):
            if any(isinstance(n, ir.Name) and n.id == var for n in _own_expressions(statement)):
                return None
            nested = [s for block in _blocks(statement) for s in block]
            inner = _reduction_steps(var, nested, functions)
            if inner is None:
                return None
            kinds |= inner
        elif any((isinstance(n, ir.Name) and n.id == var) or (isinstance(n, ir.Assign) and n.target == var)
                 for n in ir.walk(statement)):
            return None
    return kinds


def _one_trip(loop: ir.For) -> bool:
    """``range(0, 1, 1)`` and the like: one trip at most (the wrapper of a ``while`` site)."""
    bounds = (loop.start, loop.stop, loop.step)
    return all(isinstance(b, ir.Const) and type(b.value) is int for b in bounds) \
        and loop.step.value > 0 and loop.stop.value - loop.start.value <= loop.step.value


def _blocks(statement):
    if isinstance(statement, ir.If):
        return (statement.body, statement.orelse)
    return (statement.body,)


def _own_expressions(statement):
    roots = {ir.If: lambda s: (s.test,), ir.While: lambda s: (s.test,),
             ir.For: lambda s: (s.start, s.stop, s.step)}[type(statement)](statement)
    for root in roots:
        yield from ir.walk(root)


class _Planner:
    def __init__(self, typed: TypedLoop, facts: HoistFacts, groups: dict, reassociate: bool) -> None:
        self.typed = typed
        self.facts = facts
        self.groups = groups
        self.reassociate = reassociate
        self.invariant = {n for n in typed.live_ins if n not in typed.assigned_types}
        self.loops: dict[int, ParallelLoop] = {}
        self.reasons: list[str] = []
        self.notes: list[str] = []

    def visit(self, statements, outer: tuple) -> None:
        for statement in statements:
            if isinstance(statement, ir.For) and _one_trip(statement):
                self.visit(statement.body, outer + (statement,))   # a ``while`` site's wrapper: no loop to share
            elif isinstance(statement, ir.For):
                decision = self.decide(statement, outer)
                if isinstance(decision, ParallelLoop):
                    self.loops[statement.nid] = decision
                    continue
                self.reasons.append(f"loop '{statement.var}' at line {statement.line}: {decision}")
                self.visit(statement.body, outer + (statement,))
            elif isinstance(statement, ir.If):
                self.visit(statement.body, outer)
                if not statement.exchange_guard:
                    self.visit(statement.orelse, outer)
            elif isinstance(statement, ir.While):
                self.visit(statement.body, outer)

    def decide(self, loop: ir.For, outer: tuple) -> ParallelLoop | str:
        hoisted = [h for h in self.facts.loops if h.var == loop.var and h.loop == loop.nid]
        if not hoisted:
            return "its range is not computable before the loop"
        if not hoisted[0].step:
            return "its step is a variable (its threads' shares are not known when compiled)"
        if any(isinstance(s, ir.Break) for s in level_statements(loop.body)):
            return "'break' (or 'return') leaves it early"
        if ir.rebound_names(loop):
            return "it swaps arrays (a, b = b, a): each iteration works on what the one before left"
        if ir.swapped_tables(loop):
            return f"it swaps rows of {', '.join(repr(t) for t in sorted(ir.swapped_tables(loop)))}: in order"
        appended = tuple(sorted(ir.appends_in(loop)))   # each thread's share collected, joined in order
        shown = ", ".join(repr(name) for name in appended if not name.startswith("mg_"))   # (not the hidden lists)
        private_arrays = _private_arrays(loop, self.typed, self.groups)
        privatized = {self.groups.get(name, name) for name, _ in private_arrays}
        accesses = list(array_accesses(loop.body, (), self.groups))
        for first in accesses:
            if not first.write or first.group in privatized:
                continue
            for second in accesses:
                if second.group != first.group or (second.write and second.node.nid < first.node.nid):
                    continue
                if carries_dependence(loop, outer, first, second, self.invariant, self.facts):
                    kind = "output" if second.write else "flow/anti"
                    return (f"carries a {kind} dependence on {ir.describe_name(first.group)} (lines {first.node.line} "
                            f"and {second.node.line})")
        assigned = assigned_scalars(loop.body)
        if loop.var in assigned:
            return f"its variable {ir.describe_name(loop.var)} is assigned in the body"
        exposed = exposed_reads(loop.body, frozenset({loop.var}))
        private, reductions = [], []
        for name in sorted(assigned):
            if name not in exposed or ir.is_call_result(name):
                private.append(name)
                continue
            kinds = _reduction_steps(name, loop.body, self.typed.functions)
            if not kinds or len(kinds) != 1:
                return f"scalar {ir.describe_name(name)} carries a value from one iteration to the next"
            kind = next(iter(kinds))
            conditional = kind.endswith("?")  # the only assignments are the guarded ones
            kind = kind.rstrip("?")
            scalar = self.typed.variables[name]
            if scalar.is_float and kind in "&|^" or scalar.is_bool or scalar.is_complex or scalar.is_int_or_float:
                return f"scalar {ir.describe_name(name)} carries a value from one iteration to the next"
            fold = ""
            if scalar.is_float and kind in ("+", "*"):
                if appended and not self.reassociate:   # an ordered fold's rounds deal iterations out anew
                    return (f"it appends to {shown} and sums {ir.describe_name(name)} "
                            "(float) in iteration order")
                if self.reassociate:
                    self.notes.append(f"reduction on {ir.describe_name(name)} (float, reassociated)")
                else:
                    fold = ordered_fold(name, loop.body)
                    if fold not in FOLD_FORMS:
                        return f"reduction on {ir.describe_name(name)} (float): {fold}{ALLOW_REASSOCIATION}"
                    self.notes.append(f"reduction on {ir.describe_name(name)} (float, folded in iteration order)")
            reductions.append(Reduction(name, kind, conditional, fold))
        if appended:
            self.notes.append(f"appends to {shown} joined in iteration order")
        return ParallelLoop(loop.nid, tuple(private), tuple(reductions), BodyWeight.of(loop.body).static(),
                            private_arrays, appended)


def _private_arrays(loop: ir.For, typed: TypedLoop, groups: dict) -> tuple:
    """The temporary arrays of ``loop``'s iterations (ParallelLoop.private_arrays): a 1-D
    list, alone in its alias group, whose first top-level loop in the body (``for p in
    range(lo, hi)``, step 1, bounds a name, a constant or a length that the body does not
    assign) first touches X by ``X[p] = e`` (``e`` not reading X, at the loop body's own
    level, no ``continue`` before it, no ``break``) and touches X only at ``[p]``,
    and whose later top-level loops over the same range touch it only at their own variable:
    every element an iteration reads, it wrote first.  No ``continue`` at the loop's level,
    so that the last iteration writes the whole range, as the copy back assumes.  An array
    the body only writes is no temporary: it stays shared (a time loop's output keeps the
    loop sequential, its inner loops parallel or one GPU region)."""
    if any(isinstance(s, ir.Continue) for s in level_statements(loop.body)):
        return ()
    assigned = assigned_scalars((loop,))
    stored = dict.fromkeys(n.array for n in ir.walk(loop) if isinstance(n, ir.Store))
    loaded = {n.array for n in ir.walk(loop) if isinstance(n, ir.Load)}
    found = []
    for name in (name for name in stored if name in loaded):   # an array only written stays shared
        info = typed.arrays.get(name)
        group = groups.get(name, name)
        if info is None or info.rank != 1 or not info.is_list or \
                any(other != name and groups.get(other, other) == group for other in typed.arrays):
            continue
        writer = _written_first(name, loop.body, assigned)
        if writer is not None:
            found.append((name, writer.nid))
    return tuple(found)


def _written_first(name: str, body, assigned: set) -> ir.For | None:
    """The loop that writes ``name`` whole before any read, or None.  It may sit in loops
    of the body (doitgen's ``for q``: each of their iterations writes it whole first) that
    touch ``name`` alone at their level: step 1, bounds that the body does not assign, no
    ``break`` or ``continue`` (the copy back, where their ranges are not empty, then
    copies what the last of their iterations left)."""
    def touches(node) -> bool:
        return any(isinstance(n, (ir.Load, ir.Store)) and n.array == name for n in ir.walk(node))

    touching = [statement for statement in body if touches(statement)]
    if len(touching) == 1 and _wrapper(touching[0], assigned) and not touches(touching[0].start) \
            and not touches(touching[0].stop) and not _only_at(name, touching[0].body, touching[0].var):
        return _written_first(name, touching[0].body, assigned)
    writer = None
    for statement in touching:
        if not (isinstance(statement, ir.For) and isinstance(statement.step, ir.Const) and statement.step.value == 1
                and not touches(statement.start) and not touches(statement.stop)
                and _only_at(name, statement.body, statement.var)):
            return None
        if writer is None:   # its first access: a store at the body's level that nothing before skips
            first = next(k for k, inner in enumerate(statement.body) if touches(inner))
            head = statement.body[first]
            simple = all(_invariant_bound(e, assigned) for e in (statement.start, statement.stop))
            if not (simple and isinstance(head, ir.Store) and head.array == name and not touches(head.value)
                    and not any(isinstance(s, ir.Break) for s in level_statements(statement.body))
                    and not any(isinstance(s, ir.Continue) for s in level_statements(statement.body[:first]))):
                return None
            writer = statement
        elif (statement.start, statement.stop) != (writer.start, writer.stop):
            return None
    return writer


def _wrapper(statement, assigned: set) -> bool:
    """A loop around a temporary's writer: step 1, bounds the body leaves alone, no exits."""
    return (isinstance(statement, ir.For) and ir.int_constant(statement.step) == 1
            and all(_invariant_bound(bound, assigned) for bound in (statement.start, statement.stop))
            and not any(isinstance(s, (ir.Break, ir.Continue)) for s in level_statements(statement.body)))


def _invariant_bound(bound: ir.Expr, assigned: set) -> bool:
    """A constant, a length, or a name the loop does not assign, perhaps negated: the copy
    back reads it again after the loop's iterations, with the value they saw."""
    if isinstance(bound, ir.UnaryOp) and bound.op == "-":
        bound = bound.operand
    return isinstance(bound, (ir.Const, ir.Length)) or (isinstance(bound, ir.Name) and bound.id not in assigned)


def _only_at(name: str, statements, var: str) -> bool:
    """Every access to ``name`` in ``statements`` is at ``[var]``, which they never assign."""
    for statement in statements:
        for node in ir.walk(statement):
            if isinstance(node, (ir.Load, ir.Store)) and node.array == name and \
                    not (len(node.indices) == 1 and isinstance(node.indices[0], ir.Name) and node.indices[0].id == var):
                return False
            if (isinstance(node, ir.Assign) and node.target == var) or (isinstance(node, ir.For) and node.var == var):
                return False
    return True


FOLD_FORMS = ("s+e", "s-e", "e+s", "s*e", "e*s")
# An ordered fold costs one dependent float operation per step after the parallel part
# (about 1 ns: the sequential loop's own chain), plus keeping the operand: a step needs some
# body weight (IR nodes) around it for threads to gain.  Measured on 16 cores
# (benchmarks/reductions.py --force): s += a[i] (5 nodes) folded in parallel ran 0.9x one
# core, s += a[i] * b[i] (8 nodes) 1.3x, with two math calls 7x.
FOLD_MIN_WEIGHT = 8
FOLD_CALL_WEIGHT = 32   # a call (math.exp, math.sqrt ...) weighs that many nodes more here
ALLOW_REASSOCIATION = " (MEGAGUARDS_REASSOCIATE=1 allows a reassociated parallel sum)"


def ordered_fold(var: str, body) -> str:
    """The one form of ``var``'s float reduction steps in ``body`` when they can be folded
    in iteration order with profit (one of FOLD_FORMS), else why it stays sequential."""
    forms, steps, calls = set(), 0.0, 0.0
    for statement, trips in _weighted_statements(body, 1):
        if isinstance(statement, ir.Assign) and statement.target == var:
            value = statement.value
            on_left = isinstance(value.left, ir.Name) and value.left.id == var
            forms.add(f"s{value.op}e" if on_left else f"e{value.op}s")
            steps += trips
        own = _own_expressions(statement) if isinstance(statement, (ir.If, ir.While, ir.For)) else ir.walk(statement)
        calls += trips * sum(isinstance(node, ir.Call) for node in own)
    if len(forms) != 1:
        return f"its steps mix {' and '.join(sorted(forms))}: kept sequential, in CPython's order"
    if BodyWeight.of(body).static() + FOLD_CALL_WEIGHT * calls < FOLD_MIN_WEIGHT * steps:
        return "too little work per step to fold it in order behind threads: kept sequential"
    return forms.pop()


def _weighted_statements(statements, trips: int):
    """Each statement with how often one run of ``statements`` runs it (inner loops
    counted as INNER_LOOP_TRIPS trips, as BodyWeight does)."""
    for statement in statements:
        yield statement, trips
        if isinstance(statement, ir.If):
            yield from _weighted_statements(statement.body, trips)
            yield from _weighted_statements(statement.orelse, trips)
        elif isinstance(statement, (ir.For, ir.While)):
            yield from _weighted_statements(statement.body, trips * INNER_LOOP_TRIPS)


def level_statements(statements):
    """Statements of a loop body, not looking into nested loops."""
    for statement in statements:
        yield statement
        if isinstance(statement, ir.If):
            yield from level_statements(statement.body)
            yield from level_statements(statement.orelse)


def array_accesses(statements, loops: tuple, groups: dict):
    """Every array access of ``statements`` (an ``Access`` each; ``loops``: the loops around
    them inside the candidate), the loads of inner loops' bounds included."""
    for statement in statements:
        if isinstance(statement, ir.For):
            for bound in (statement.start, statement.stop, statement.step):
                yield from _loads(bound, loops, groups)
            yield from array_accesses(statement.body, loops + (statement,), groups)
            continue
        if isinstance(statement, ir.Store):
            yield Access(statement, groups.get(statement.array, statement.array), True, loops)
        for value in statement.__dict__.values():
            for child in value if isinstance(value, tuple) else (value,):
                if isinstance(child, ir.Expr):
                    yield from _loads(child, loops, groups)
                elif isinstance(child, ir.Stmt):
                    yield from array_accesses((child,), loops, groups)


def _loads(expression, loops, groups):
    for node in ir.walk(expression):
        if isinstance(node, ir.Load):
            yield Access(node, groups.get(node.array, node.array), False, loops)


INNER_LOOP_TRIPS = 16   # what the static weight assumes an inner loop's trip count to be


@record
class BodyWeight:
    """The cost of one iteration of a loop body: one per IR node at its own level (an
    ``if``'s branches included) plus, per inner loop, that loop's body weight times its
    trips.  Folded two ways: ``static()`` takes INNER_LOOP_TRIPS trips (the plan's weight)
    and ``codegen.targets.openmp.runtime_weight`` the trips the prologue computed at the entry."""

    nodes: int
    loops: tuple    # (ir.For or ir.While, BodyWeight) per inner loop

    @classmethod
    def of(cls, statements) -> BodyWeight:
        nodes, loops = 0, []
        for statement in statements:
            if isinstance(statement, (ir.For, ir.While)):
                loops.append((statement, cls.of(statement.body)))
            elif isinstance(statement, ir.If):
                branches = (cls.of(statement.body), cls.of(statement.orelse))
                nodes += 1 + sum(branch.nodes for branch in branches)
                loops += [loop for branch in branches for loop in branch.loops]
            else:
                nodes += sum(1 for _ in ir.walk(statement))
        return cls(nodes, tuple(loops))

    def static(self) -> int:
        return self.nodes + sum(INNER_LOOP_TRIPS * inner.static() for _, inner in self.loops)


ISLPY_MISSING = "islpy is not installed: loops stay sequential"


def plan_parallel(typed: TypedLoop, facts: HoistFacts | None, groups: dict, reassociate: bool) -> ParallelPlan:
    """The loops to run in parallel; ``groups`` maps each array to its alias group."""
    if facts is None or facts.empty:
        return ParallelPlan({}, ("no subscripts proven in range before the loop",))
    try:
        import islpy  # noqa: F401
    except ImportError:
        return ParallelPlan({}, (ISLPY_MISSING,))
    planner = _Planner(typed, facts, groups, reassociate)
    planner.visit((typed.body,), ())
    return ParallelPlan(dict(planner.loops), tuple(planner.reasons), tuple(planner.notes))
