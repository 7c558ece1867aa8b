"""Cross-iteration dependences of array accesses, with islpy (MegaGuards §3.4.1).

For a candidate loop L and two accesses to the same array (one a write), the
loop carries a dependence when two *different* iterations of L (same values of
the loops around L) can touch the same element.  That is an integer set built
from the iteration domains (the ``range`` bounds) and the subscripts; it is
empty exactly when L is free of dependences for that pair, for every value of
the parameters (loop-invariant scalars and array sizes).

Subscripts are those the kernel prologue proved in range (``analysis.bounds``):
a wrapped subscript (``a[i - 1]``) touches element ``e`` if ``e >= 0`` and
``e + n`` otherwise.  Anything not affine is assumed to touch every element.
"""
from __future__ import annotations

import re

from ..record import record
from ..ir import nodes as ir
from .bounds import HoistFacts


# ``conflicts``'s order for two different iterations of the candidate loop.
DIFFERENT_ITERATIONS = "(x0_0 < x1_0 or x0_0 > x1_0)"


@record
class Access:
    node: ir.Load | ir.Store
    group: str                # the array, or its alias group
    write: bool
    loops: tuple[ir.For, ...]  # enclosing loops inside the candidate (outermost first)


def _identifier(name: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", name)


class _Affine:
    """Renders IR integer expressions as isl affine text, or None if not affine."""

    def __init__(self, variables: dict[str, str], invariant: set[str], params: set[str]) -> None:
        self.variables = variables      # loop variable -> isl name for this copy
        self.invariant = invariant
        self.params = params            # collected parameter names

    constant = staticmethod(ir.int_constant)

    def text(self, node: ir.Expr) -> str | None:
        value = self.constant(node)
        if value is not None:
            return str(value)
        if isinstance(node, ir.Name):
            if node.id in self.variables:
                return self.variables[node.id]
            if node.id in self.invariant:
                name = "p_" + _identifier(node.id)
                self.params.add(name)
                return name
            return None
        if isinstance(node, (ir.Length, ir.Shape)):
            if isinstance(node, ir.Length) and node.prefix:
                return None
            dim = node.dim if isinstance(node, ir.Shape) else 0
            name = f"n_{_identifier(node.array)}_{dim}"
            self.params.add(name)
            return name
        if isinstance(node, ir.UnaryOp) and node.op in ("-", "+"):
            inner = self.text(node.operand)
            return None if inner is None else (f"-({inner})" if node.op == "-" else inner)
        if isinstance(node, ir.BinOp):
            if node.op in ("+", "-"):
                left, right = self.text(node.left), self.text(node.right)
                return None if left is None or right is None else f"({left}) {node.op} ({right})"
            if node.op == "*":
                for factor, other in ((node.left, node.right), (node.right, node.left)):
                    value = self.constant(factor)
                    if value is not None:
                        inner = self.text(other)
                        return None if inner is None else f"{value} * ({inner})"
                return None
            if node.op in ("//", "%"):
                divisor = self.constant(node.right)
                inner = self.text(node.left)
                if divisor is None or divisor <= 0 or inner is None:
                    return None
                return f"floor(({inner})/{divisor})" if node.op == "//" else f"(({inner}) mod {divisor})"
        return None


def _domain(loop: ir.For, affine: _Affine) -> list[str]:
    """Constraints on one loop variable from its range(); unknown bounds add none."""
    var = affine.variables[loop.var]
    step = affine.constant(loop.step)
    start, stop = affine.text(loop.start), affine.text(loop.stop)
    constraints = []
    if step is None or step == 0:
        return constraints
    if start is not None:
        constraints.append(f"{var} >= {start}" if step > 0 else f"{var} <= {start}")
        if abs(step) > 1:
            constraints.append(f"({var} - ({start})) mod {abs(step)} = 0")
    if stop is not None:
        constraints.append(f"{var} < {stop}" if step > 0 else f"{var} > {stop}")
    return constraints


def _element(access: Access, dim: int, affine: _Affine, facts: HoistFacts, target: str) -> str | None:
    """Constraint text saying element ``target`` is what ``access`` touches in ``dim``."""
    hoisted = facts.index(access.node, dim) if facts is not None else None
    if hoisted is None:
        return None
    index = affine.text(hoisted.index)
    if index is None:
        return None
    if not hoisted.wrap:
        return f"{target} = {index}"
    size = f"n_{_identifier(access.node.array)}_{dim}"
    affine.params.add(size)
    return f"(({index} >= 0 and {target} = {index}) or ({index} < 0 and {target} = {index} + {size}))"


def _row_major(index: ir.Expr, invariant: set[str]) -> tuple | None:
    """``size * high + low`` (``NJ * i + j``, ``NJ * i + j - 1``, in any order of terms and
    factors), ``size`` a name the loop does not assign: (size, high, low); None for other
    subscripts."""
    terms, pending = [], [index]
    while pending:
        node = pending.pop()
        if isinstance(node, ir.BinOp) and node.op == "+":
            pending += [node.left, node.right]
        elif isinstance(node, ir.BinOp) and node.op == "-":   # N * i + j - 1: the low part is j - 1
            pending += [node.left, ir.UnaryOp("-", node.right)]
        else:
            terms.append(node)
    for k, term in enumerate(terms):
        if not (isinstance(term, ir.BinOp) and term.op == "*"):
            continue
        for size, high in ((term.left, term.right), (term.right, term.left)):
            if isinstance(size, ir.Name) and size.id in invariant:
                rest = terms[:k] + terms[k + 1:]
                low = rest[0] if rest else ir.Const(0)
                for other in rest[1:]:
                    low = ir.BinOp("+", low, other)
                return size, high, low
    return None


def _isl_set(params: set[str], names: list[str], constraints: list[str]):
    import islpy  # imported here: without it, loops simply stay sequential (see plan_parallel)

    for name in params:
        if name.startswith("n_"):
            constraints = constraints + [f"{name} >= 0"]
    text = f"[{', '.join(sorted(params))}] -> {{ [{', '.join(names)}] : {' and '.join(constraints) or 'true'} }}"
    return islpy.Set(text)


def carries_dependence(candidate: ir.For, outer: tuple[ir.For, ...], first: Access, second: Access,
                       invariant: set[str], facts: HoistFacts) -> bool:
    """Can two different iterations of ``candidate`` touch one element through these accesses?
    A flattened subscript ``NJ * i + j`` counts as the two subscripts ``[i][j]`` where every
    iteration of both accesses keeps ``0 <= j < NJ`` (proven here, for every value of NJ);
    ``(N * i + j) * N + k`` as ``[i][j][k]`` likewise."""
    return conflicts(candidate, outer, first, second, invariant, facts, DIFFERENT_ITERATIONS)


def conflicts(candidate: ir.For, outer: tuple[ir.For, ...], first: Access, second: Access,
              invariant: set[str], facts: HoistFacts, order: str) -> bool:
    """Can ``first`` and ``second`` touch one element in iterations related by ``order``?
    The loops around ``candidate`` (``outer``) are at one iteration for both; ``order`` is
    an isl constraint on ``x<copy>_<depth>``: the variable of ``candidate`` (depth 0) or of
    the loop ``depth`` levels inside it, in the first access's iteration (copy 0) or the
    second's (copy 1)."""
    params: set[str] = set()
    shared = {loop.var: f"o{k}" for k, loop in enumerate(outer)}
    copies = []
    for copy, access in enumerate((first, second)):
        variables = dict(shared)
        for depth, loop in enumerate((candidate, *access.loops)):
            variables[loop.var] = f"x{copy}_{depth}"
        copies.append(_Affine(variables, invariant, params))
    constraints = []
    outer_affine = _Affine(shared, invariant, params)
    for loop in outer:
        constraints += _domain(loop, _Affine(dict(outer_affine.variables), invariant, params))
    for affine, access in zip(copies, (first, second)):
        for loop in (candidate, *access.loops):
            constraints += _domain(loop, affine)
    domains = list(constraints)   # the iterations of both copies, any two
    constraints.append(order)
    # The outer loops' variables too: where the candidate (or a loop inside it) rebinds an
    # outer loop's name, that outer variable is in no copy, yet its loop's domain names it.
    variables = sorted(set(shared.values()) | {v for c in copies for v in c.variables.values()})
    elements = []
    for dim in range(len(first.node.indices)):
        target = f"e{dim}"
        one = _element(first, dim, copies[0], facts, target)
        two = _element(second, dim, copies[1], facts, target)
        if one is None or two is None:
            split = [_split(access, dim, affine, facts, target) for access, affine in zip((first, second), copies)]
            if None in split or split[0][2] != split[1][2] or not _isl_set(params, variables, list(domains) + [
                    f"({split[0][1]} or {split[1][1]})"]).is_empty():
                continue  # unknown subscript (or two row sizes, NJ * i + j and NK * i + j): any element
            constraints += split[0][0] + split[1][0]
            elements += split[0][3]
            continue
        constraints += [one, two]
        elements.append(target)
    return not _isl_set(params, variables + elements, constraints).is_empty()


def _split(access: Access, dim: int, affine: _Affine, facts: HoistFacts, target: str) -> tuple | None:
    """A flattened subscript as its digits: ``NJ * i + j`` is (i, j) where ``0 <= j < NJ``,
    ``(N * i + j) * N + k`` is (i, j, k) where j and k are below N.  (Constraints that the
    element names are those digits, the condition under which a digit leaves its range, the
    sizes, the element names), or None if it is not such a subscript.  Two accesses split
    alike touch one element only where their sizes are the same names."""
    hoisted = facts.index(access.node, dim) if facts is not None else None
    if hoisted is None:
        return None
    digits, sizes, conditions = [], [], []
    index = hoisted.index
    while (parts := _row_major(index, affine.invariant)) is not None:
        size, index, low = parts
        size_text, low_text = affine.text(size), affine.text(low)
        if size_text is None or low_text is None:
            return None
        digits.insert(0, low_text)
        sizes.insert(0, size_text)
        conditions.append(f"({low_text}) < 0 or ({low_text}) >= {size_text}")
    high = affine.text(index)
    if not conditions or high is None:
        return None
    if hoisted.wrap:   # may be negative, then Python's wrap: not where every digit is (high >= 0 too)
        conditions.append(f"({high}) < 0")
    digits.insert(0, high)
    names = [f"{target}d{k}" for k in range(len(digits))]
    return [f"{name} = {digit}" for name, digit in zip(names, digits)], " or ".join(conditions), tuple(sizes), names
