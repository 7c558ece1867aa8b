"""Loop distribution and interchange, where they let a loop's parts run in parallel.

A loop whose iterations depend on each other through one part of its body only (atax's
``for i``: ``tmp[i]`` summed over ``j``, then ``y[j] += A[i][j] * tmp[i]``, which carries
``y`` from one ``i`` to the next) is split into one loop per part, in order; a part that
is a nest whose outer loop carries the dependence and whose inner loop carries none has
its two loops exchanged (``for j: for i: y[j] += ...``: the ``j`` loop in parallel).  Only
where every dependence keeps its order: each element takes its operations in CPython's
order, so results are bit for bit CPython's, float sums included.

Pure: ``plan_distribution`` decides (islpy, through ``dependence.conflicts``: the decision
is kept on disk with the plans, runtime/plans.py), ``distribute`` rewrites the typed loop
(cheap); the stages after it (hoisting, the parallel plan, the renderer) see ordinary loops.

What a split keeps: a loop's range is evaluated once per new loop (its bounds read nothing
the loop changes); a scalar one part assigns is read by no other part (nor assigned by one,
except a ``for`` variable over a range the loop leaves alone, whose last value is then the
same); every scalar the loop assigns is written back, so a part's last assignment must
stay the last.  An exchange is guarded: where either range is empty the nest runs as
written (its variables' values after it differ otherwise).
"""
from __future__ import annotations

from .. import record as records
from ..record import record
from ..ir import nodes as ir
from ..ir.types import Scalar
from .dependence import DIFFERENT_ITERATIONS, conflicts
from .parallel import array_accesses, assigned_scalars, exposed_reads, level_statements

SPLIT_NAME = "mg_tmp_split"   # the one-trip loop holding the loops a site's own loop became
UNSPLIT = (ir.Append, ir.Rebind, ir.RowSwap, ir.Break, ir.Continue)
BACKWARD = "x0_0 > x1_0"           # the later part touches it in an earlier iteration
EXCHANGED = "((x0_0 < x1_0 and x0_1 > x1_1) or (x0_0 > x1_0 and x0_1 < x1_1))"
INNER_CARRIES = "(x0_1 < x1_1 or x0_1 > x1_1)"
QUERIES = 2000   # isl queries a loop's decision may make (about 0.3 ms each): a larger body stays as written


@record
class Split:
    loop: int          # nid of the loop split (the typed loop's)
    groups: tuple      # its loops, in order: each a tuple of parts (statement index, indices of that
    #                    inner loop's statements the part keeps, () for the whole statement)
    exchanged: tuple   # per loop: its one statement, a loop, exchanged with it


@record
class Distribution:
    splits: tuple = ()
    notes: tuple = ()

    def as_data(self) -> list:
        return [[[s.loop, [[[k, list(part)] for k, part in group] for group in s.groups], list(s.exchanged)]
                 for s in self.splits], list(self.notes)]

    @classmethod
    def from_data(cls, data: list) -> Distribution:
        splits, notes = data
        return cls(tuple(Split(loop, tuple(tuple((k, tuple(part)) for k, part in group) for group in groups),
                               tuple(exchanged)) for loop, groups, exchanged in splits), tuple(notes))


def may_distribute(typed) -> bool:
    """Is there a loop a split or an exchange could serve (without islpy: cheap)?"""
    if typed.appended or typed.row_lists or typed.keyed or typed.references:
        return False
    return any(_shaped(loop) for loop in ir.loops_in(typed.body) if isinstance(loop, ir.For))


def _shaped(loop: ir.For) -> bool:
    """A loop holding another and a store whose subscripts do not name its variable (the
    element touched by several of its iterations), with nothing a split cannot keep."""
    if not any(isinstance(s, ir.For) for s in loop.body) or ir.int_constant(loop.step) in (None, 0):
        return False
    stores = [node for node in ir.walk(loop) if isinstance(node, ir.Store)]
    return any(not any(isinstance(n, ir.Name) and n.id == loop.var for i in s.indices for n in ir.walk(i))
               for s in stores) and not any(isinstance(node, UNSPLIT) for node in ir.walk(loop) if node is not loop)


def plan_distribution(typed, facts, groups: dict) -> Distribution:
    """The loops to split or exchange (outermost first; nothing inside a split loop)."""
    invariant = {n for n in typed.live_ins if n not in typed.assigned_types}
    splits, notes = [], []

    def visit(statements, outer: tuple) -> None:
        for statement in statements:
            if isinstance(statement, ir.For):
                split = _Decision(statement, outer, invariant, facts, groups, [QUERIES]).decide() \
                    if _shaped(statement) and not _breaks(statement) else None
                if split is not None:
                    splits.append(split)
                    notes.extend(_notes(statement, split))
                    continue
                visit(statement.body, outer + (statement,))
            elif isinstance(statement, ir.If):
                visit(statement.body, outer)
                visit(statement.orelse, outer)
            elif isinstance(statement, ir.While):
                visit(statement.body, outer)
    visit((typed.body,), ())
    return Distribution(tuple(splits), tuple(notes))


def _breaks(loop: ir.For) -> bool:
    return any(isinstance(s, (ir.Break, ir.Continue)) for s in level_statements(loop.body))


def _reads_only(expressions, changed: set) -> bool:
    """Do ``expressions`` load no element and read no name of ``changed``?"""
    return not any(isinstance(n, ir.Load) or (isinstance(n, ir.Name) and n.id in changed)
                   for e in expressions for n in ir.walk(e))


class _TooLarge(Exception):
    """More dependence queries than a decision may make (QUERIES)."""


class _Decision:
    """Whether and how to split ``loop`` (its outer loops: ``outer``)."""

    def __init__(self, loop: ir.For, outer: tuple, invariant: set, facts, groups: dict, budget: list) -> None:
        self.loop, self.outer, self.invariant, self.facts, self.groups = loop, outer, invariant, facts, groups
        self.changed = assigned_scalars((loop,))
        self.budget = budget   # [isl queries left], shared with the inner loops' decisions
        self.carried: dict = {}   # run of parts -> whether the loop over them carries a dependence

    def decide(self) -> Split | None:
        try:
            return self._decide()
        except _TooLarge:
            return None

    def _decide(self) -> Split | None:
        loop = self.loop
        if loop.var in assigned_scalars(loop.body) or not _reads_only((loop.start, loop.stop), self.changed):
            return None
        if not self._carries(self.parts_all()):
            return None   # nothing carried: the parallel plan takes it as it is
        parts = []
        for k, statement in enumerate(loop.body):
            pieces = self._inner_pieces(statement)
            parts += [(k, piece) for piece in pieces] if len(pieces) > 1 else [(k, ())]
        found = self._merged(self._partition(parts))
        found = [self._fused(group) for group in found]
        exchanged = tuple(self._exchangeable(group) for group in found)
        if len(found) == 1 and not any(exchanged):
            return None
        carrying = [self._carries(group) and not swap for group, swap in zip(found, exchanged)]
        if all(carrying):
            return None
        return Split(loop.nid, tuple(tuple(group) for group in found), exchanged)

    def parts_all(self) -> list:
        return [(k, ()) for k in range(len(self.loop.body))]

    def statement(self, part) -> ir.Stmt:
        k, piece = part
        statement = self.loop.body[k]
        return records.replace(statement, body=tuple(statement.body[m] for m in piece)) if piece else statement

    def _carries(self, parts) -> bool:
        """Does the loop over these parts alone carry a dependence (asked once per run)?"""
        key = tuple(parts)
        if key not in self.carried:
            accesses = list(array_accesses([self.statement(part) for part in parts], (), self.groups))
            self.carried[key] = any(self._conflict(self.loop, self.outer, first, second, DIFFERENT_ITERATIONS)
                                    for first in accesses if first.write
                                    for second in accesses if second.group == first.group)
        return self.carried[key]

    def _conflict(self, loop, outer, first, second, order) -> bool:
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise _TooLarge
        return conflicts(loop, outer, first, second, self.invariant, self.facts, order)

    def _inner_pieces(self, statement) -> list:
        """An inner loop's statements in the finest groups it can be split into."""
        if not isinstance(statement, ir.For) or len(statement.body) < 2 or _breaks(statement) \
                or ir.int_constant(statement.step) in (None, 0) \
                or not _reads_only((statement.start, statement.stop), assigned_scalars(statement.body)):
            return [()]
        units = [(k, ()) for k in range(len(statement.body))]
        inner = _Decision(statement, self.outer + (self.loop,), self.invariant, self.facts, self.groups, self.budget)
        return [tuple(k for k, _ in group) for group in inner._partition(units)]

    def _partition(self, parts: list) -> list:
        """``parts`` in the finest runs that may become loops of their own, in order: two parts
        stay in one run where the later touches, in an earlier iteration, an element the
        earlier one touches (one writing), or where they share a scalar."""
        loop = self.loop
        statements = [self.statement(part) for part in parts]
        accesses = [list(array_accesses([s], (), self.groups)) for s in statements]
        assigned = [assigned_scalars([s]) for s in statements]
        exposed = [exposed_reads([s], frozenset({loop.var})) for s in statements]
        joined = list(range(len(parts)))   # joined[b]: the first part b's run must start at or before
        for b in range(len(parts)):
            for a in range(b):
                shared = (assigned[a] & exposed[b]) | (assigned[b] & exposed[a]) | {
                    name for name in assigned[a] & assigned[b]
                    if not self._same_last(name, parts[a], parts[b], statements[a], statements[b])}
                if shared or any(self._conflict(loop, self.outer, x, y, BACKWARD) for x in accesses[a]
                                 for y in accesses[b] if x.group == y.group and (x.write or y.write)):
                    joined[b] = min(joined[b], a)
        runs, start = [], 0
        for cut in range(1, len(parts)):
            if min(joined[cut:]) >= cut:   # no part from here on must join one before
                runs.append(parts[start:cut])
                start = cut
        return runs + [parts[start:]]

    def _same_last(self, name, one, two, first: ir.Stmt, second: ir.Stmt) -> bool:
        """A name both parts assign keeps its last value after the split: pieces of one inner
        loop, its variable; or each part a ``for`` over it whose range the loop leaves alone."""
        if one[0] == two[0] and isinstance(first, ir.For) and first.var == name:
            return name not in assigned_scalars(first.body) and name not in assigned_scalars(second.body)
        return all(isinstance(s, ir.For) and s.var == name and name not in assigned_scalars(s.body)
                   and _reads_only((s.start, s.stop), self.changed) and not _breaks(s) for s in (first, second))

    def _merged(self, runs: list) -> list:
        """Neighbouring runs joined where that costs no parallelism: the joined loop carries
        nothing, each of the two carried something already, or one only assigns scalars."""
        merged = [runs[0]]
        for run in runs[1:]:
            both = merged[-1] + run
            if not self._carries(both) or not self._works(merged[-1]) or not self._works(run) or (
                    self._carries(merged[-1]) and self._carries(run)):
                merged[-1] = both
            else:
                merged.append(run)
        return merged

    def _works(self, run: list) -> bool:
        """Does the run store into an array (else a loop of its own would gain nothing)?"""
        return any(isinstance(node, ir.Store) for part in run for node in ir.walk(self.statement(part)))

    def _fused(self, group: list) -> list:
        """Pieces of one inner loop side by side in one run: that loop again (whole if all)."""
        fused = []
        for k, piece in group:
            if fused and fused[-1][0] == k and piece and fused[-1][1]:
                fused[-1] = (k, fused[-1][1] + piece)
            else:
                fused.append((k, piece))
        return [(k, piece if piece and len(piece) < len(self.loop.body[k].body) else ()) for k, piece in fused]

    def _exchangeable(self, group: list) -> bool:
        """One loop inside, over a range this loop leaves alone, whose body holds no loop and
        assigns scalars at its own level only, each before reading it: exchanging the two keeps
        every dependence's order, and the inner loop, outside, carries none."""
        if len(group) != 1:
            return False
        inner = self.statement(group[0])
        if not isinstance(inner, ir.For) or ir.int_constant(inner.step) in (None, 0) or _breaks(inner) \
                or not _reads_only((inner.start, inner.stop), self.changed):
            return False
        if any(isinstance(n, (ir.For, ir.While)) for s in inner.body for n in ir.walk(s)):
            return False
        level = {s.target for s in inner.body if isinstance(s, ir.Assign)}
        if assigned_scalars(inner.body) != level or level & exposed_reads(inner.body, frozenset({inner.var, self.loop.var})):
            return False
        accesses = list(array_accesses([inner], (), self.groups))
        if any(not x.loops or x.loops[0] is not inner for x in accesses):
            return False   # (its bounds load nothing: every access is inside it)
        pairs = [(x, y) for x in accesses for y in accesses if x.group == y.group and (x.write or y.write)]
        return not any(self._conflict(self.loop, self.outer, x, y, EXCHANGED) or
                       self._conflict(self.loop, self.outer, x, y, INNER_CARRIES) for x, y in pairs)


def _notes(loop: ir.For, split: Split) -> list[str]:
    name = ir.describe_name
    notes = [] if len(split.groups) == 1 else [
        f"loop {name(loop.var)} at line {loop.line} runs as {len(split.groups)} loops, one after the other "
        "(distributed: no part needs what a later part does)"]
    for group, exchanged in zip(split.groups, split.exchanged):
        if exchanged:
            inner = loop.body[group[0][0]]
            notes.append(f"loops {name(loop.var)} and {name(inner.var)} at lines {loop.line} and {inner.line} "
                         f"exchanged ({name(inner.var)} outside): every element's steps keep their order")
    return notes


def distribute(typed, distribution: Distribution):
    """The typed loop with ``distribution``'s loops split and exchanged, its nodes numbered
    again (the positions every later fact is keyed by)."""
    splits = {split.loop: split for split in distribution.splits}

    def statements(body) -> tuple:
        out = []
        for statement in body:
            split = splits.get(statement.nid) if isinstance(statement, ir.For) else None
            out += _split_loops(statement, split) if split else [_within(statement)]
        return tuple(out)

    def _within(statement):
        if isinstance(statement, ir.If):
            return records.replace(statement, body=statements(statement.body), orelse=statements(statement.orelse))
        if isinstance(statement, (ir.For, ir.While)):
            return records.replace(statement, body=statements(statement.body))
        return statement

    root = typed.body
    variables, assigned = typed.variables, typed.assigned_types
    if root.nid in splits:
        zero, one = (ir.Const(value, type=Scalar.PY_INT, line=root.line) for value in (0, 1))
        root = ir.For(SPLIT_NAME, zero, one, one, tuple(_split_loops(root, splits[root.nid])), line=root.line,
                      col=root.col)
        variables = {**variables, SPLIT_NAME: Scalar.PY_INT}
        assigned = {**assigned, SPLIT_NAME: frozenset({Scalar.PY_INT})}
    else:
        root = _within(root)
    return records.replace(typed, body=_numbered(root), variables=variables, assigned_types=assigned)


def _split_loops(loop: ir.For, split: Split) -> list:
    loops = []
    for group, exchanged in zip(split.groups, split.exchanged):
        parts = tuple(records.replace(loop.body[k], body=tuple(loop.body[k].body[m] for m in piece))
                      if piece else loop.body[k] for k, piece in group)
        written = records.replace(loop, body=parts)
        if not exchanged:
            loops.append(written)
            continue
        inner = parts[0]
        swapped = records.replace(inner, body=(records.replace(loop, body=inner.body),))
        both = ir.BoolOp("and", (_runs(loop), _runs(inner)), type=Scalar.PY_BOOL, line=loop.line)
        loops.append(ir.If(both, (swapped,), (written,), line=loop.line, col=loop.col, exchange_guard=True))
    return loops


def _runs(loop: ir.For) -> ir.Expr:
    """``start < stop`` (``>`` for a negative step): the range is not empty."""
    op = "<" if ir.int_constant(loop.step) > 0 else ">"
    return ir.Compare(loop.start, (op,), (loop.stop,), type=Scalar.PY_BOOL, line=loop.line)


def _numbered(node):
    """``node``'s tree, each node given its preorder position as nid (as typing numbers it)."""
    counter = iter(range(1 << 62))

    def rebuild(node):
        position = next(counter)
        changes = {key: rebuild_value(value) for key, value in node.__dict__.items()
                   if key not in ("line", "col", "nid", "type")}
        return records.replace(node, nid=position, **changes)

    def rebuild_value(value):
        if isinstance(value, tuple):
            return tuple(rebuild_value(v) for v in value)
        return rebuild(value) if isinstance(value, ir.Node) else value
    return rebuild(node)
