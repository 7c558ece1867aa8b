"""The kernel prologue: hoisted bounds and overflow checks, evaluated once at entry.

Interval arithmetic in ``__int128`` over the loops' ranges (outer before inner);
each precondition that fails clears ``mg_fast`` and records its number, and the
kernel then runs its copy of the loop that keeps every check inside.
"""
from __future__ import annotations

from ..analysis.bounds import COMPOUND, HoistFacts, expression_key
from ..ir import nodes as ir
from .spelling import array_name


class PrologueWriter:
    def __init__(self, renderer, facts: HoistFacts) -> None:
        self.renderer = renderer
        self.facts = facts
        self.loop_number = {loop.loop: k for k, loop in enumerate(facts.loops)}
        self.temporaries = 0
        self.descriptions: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.renderer.emit(depth, text)

    def precondition(self, description: str) -> int:
        self.descriptions.append(description)
        return len(self.descriptions) - 1

    def interval_of(self, loop: int) -> str:
        """The C stem of a loop's interval (``mg_L``k) or of a refined one (``mg_R``k: negative keys)."""
        return f"mg_R{-1 - loop}" if loop < 0 else f"mg_L{self.loop_number[loop]}"

    def empty_flag(self, loop: int | None) -> str:
        return "0" if loop is None else f"{self.interval_of(loop)}_empty"

    def refinement(self, refinement, depth: int) -> None:
        """A loop variable's (or an expression's) interval inside a branch where ``var op
        bound`` holds."""
        stem = self.interval_of(refinement.key)
        named = refinement.var.lstrip("=")
        number = self.precondition(f"line {refinement.bound.line}: bound of a condition on '{named}' within int64"
                                   if refinement.bound is not None else
                                   f"line {refinement.expression.line}: the value given to '{named}' within int64")
        if refinement.expression is None:
            parent = self.interval_of(refinement.parent)
            self.emit(depth, f"__int128 {stem}_lo = {parent}_lo, {stem}_hi = {parent}_hi; "
                             f"int {stem}_empty = {parent}_empty;")
            self.emit(depth, f"if (!{stem}_empty) {{")
        else:   # its range where the branch's test is met: the parts' ranges, or a narrowing before
            self.emit(depth, f"__int128 {stem}_lo = 0, {stem}_hi = -1; int {stem}_empty = {self.empty_flag(refinement.within)};")
            self.emit(depth, f"if (!{stem}_empty) {{")
            if refinement.parent is None:
                low, high = self.interval(refinement.expression, depth + 1, number, dict(refinement.scope))
            else:
                low, high = (f"{self.interval_of(refinement.parent)}_{end}" for end in ("lo", "hi"))
            self.emit(depth + 1, f"{stem}_lo = {low}; {stem}_hi = {high};")
        if refinement.bound is None:   # a definition (``ni = i + di``): its value's range, nothing narrowed
            self.emit(depth + 1, f"{stem}_empty = {stem}_lo > {stem}_hi;")
            self.emit(depth, "}")
            return
        low, high = self.interval(refinement.bound, depth + 1, number, dict(refinement.scope))
        raise_low = {">": f"{low} + 1", ">=": low, "==": low}.get(refinement.op)
        lower_high = {"<": f"{high} - 1", "<=": high, "==": high}.get(refinement.op)
        if raise_low:
            self.emit(depth + 1, f"if ({raise_low} > {stem}_lo) {stem}_lo = {raise_low};")
        if lower_high:
            self.emit(depth + 1, f"if ({lower_high} < {stem}_hi) {stem}_hi = {lower_high};")
        if refinement.op == "!=":   # one value left out: an interval loses it only at an end
            self.emit(depth + 1, f"if ({low} == {high}) {{ if ({low} == {stem}_lo) {stem}_lo += 1; "
                                 f"if ({high} == {stem}_hi) {stem}_hi -= 1; }}")
        self.emit(depth + 1, f"{stem}_empty = {stem}_lo > {stem}_hi;")
        self.emit(depth, "}")

    def render(self, depth: int) -> list[str]:
        self.emit(depth, "/* hoisted checks: one evaluation before the loop */")
        refinements = list(self.facts.refinements)
        for k, loop in enumerate(self.facts.loops):
            while refinements and refinements[0].after <= k:
                self.refinement(refinements.pop(0), depth)
            number = self.precondition(f"line {self.line_of(loop.start)}: range of loop variable '{loop.var}' within int64")
            self.emit(depth, f"__int128 mg_L{k}_lo = 0, mg_L{k}_hi = -1; int mg_L{k}_empty = 1;")
            self.emit(depth, f"if (!{self.empty_flag(loop.parent)}) {{")
            scope = dict(loop.scope)
            start = self.interval(loop.start, depth + 1, number, scope)
            stop = self.interval(loop.stop, depth + 1, number, scope)
            upward = f"mg_L{k}_lo = {start[0]}; mg_L{k}_hi = {stop[1]} - 1;"
            downward = f"mg_L{k}_lo = {stop[0]} + 1; mg_L{k}_hi = {start[1]};"
            if loop.step:
                self.emit(depth + 1, upward if loop.step > 0 else downward)
                self.emit(depth + 1, f"mg_L{k}_empty = mg_L{k}_lo > mg_L{k}_hi;")
            else:   # a variable's step: its sign at entry (zero: range() raises in the loop)
                step = self.renderer.expr(loop.step_expr)
                self.emit(depth + 1, f"if ({step} > 0) {{ {upward} }} else {{ {downward} }}")
                self.emit(depth + 1, f"mg_L{k}_empty = {step} == 0 || mg_L{k}_lo > mg_L{k}_hi;")
            self.emit(depth, "}")
        for refinement in refinements:
            self.refinement(refinement, depth)
        boxes = self.renderer.layout.boxes
        for name in boxes:
            for d in range(self.renderer.typed.arrays[name].rank):
                self.emit(depth, f"int64_t {box_name(name, d)}_lo = INT64_MAX, {box_name(name, d)}_hi = -1;")
        for hoisted in self.facts.indices:
            number = self.precondition(hoisted.description)
            self.emit(depth, f"if (!{self.empty_flag(hoisted.loop)}) {{  /* {hoisted.description} */")
            low, high = self.interval(hoisted.index, depth + 1, number, dict(hoisted.scope))
            size = f"(__int128){self.renderer.dimension(hoisted.access, hoisted.dim)}"
            lowest = f"-{size}" if hoisted.wrap else "0"
            self.emit(depth + 1, f"if (!({low} >= {lowest} && {high} < {size})) MG_FAIL({number});")
            if hoisted.wrap:
                self.emit(depth + 1, f"if ({low} < 0) mg_negative = 1;")
            if hoisted.array in boxes:
                self.widen_box(hoisted, low, high, size, depth + 1)
            self.emit(depth, "}")
        self.same_shapes(depth)
        for expression, loop, scope in self.facts.ranges:
            number = self.precondition(f"line {expression.line}: integer arithmetic within int64")
            self.emit(depth, f"if (!{self.empty_flag(loop)}) {{")
            self.interval(expression, depth + 1, number, dict(scope))
            self.emit(depth, "}")
        for divisor, _ in self.facts.divisors:
            if isinstance(divisor, ir.Name):   # (a constant divisor is nonzero: nothing to test)
                number = self.precondition(f"line {divisor.line}: the divisor {ir.describe_name(divisor.id)} is not zero")
                self.emit(depth, f"if (!({self.renderer.expr(divisor)} != 0)) MG_FAIL({number});")
        return self.descriptions

    def same_shapes(self, depth: int) -> None:
        """Arrays a swap exchanges (``a, b = b, a``) have the same shape, or no hoisted check
        holds: each was proven for the array a name holds at entry, and the checking copy
        reads the dims the names hold at each subscript."""
        for node in ir.walk(self.renderer.typed.body):
            if not isinstance(node, ir.Rebind):
                continue
            first, *others = node.targets
            number = self.precondition(f"line {node.line}: the arrays swapped there have the same shape")
            for other in others:
                for d in range(self.renderer.typed.arrays[first].rank):
                    self.emit(depth, f"if ({array_name(first)}_n{d} != {array_name(other)}_n{d}) MG_FAIL({number});")

    def widen_box(self, hoisted, low: str, high: str, size: str, depth: int) -> None:
        """The box of the list's elements the loop can touch takes this subscript's interval
        (a negative one wraps: the whole dimension)."""
        box = box_name(hoisted.array, hoisted.dim)
        self.emit(depth, f"if ({low} < 0) {{ {box}_lo = 0; {box}_hi = (int64_t){size} - 1; }}")
        self.emit(depth, f"else {{ if ({low} < {box}_lo) {box}_lo = (int64_t){low}; "
                         f"if ({high} > {box}_hi) {box}_hi = (int64_t){high}; }}")

    @staticmethod
    def line_of(node: ir.Node) -> int:
        return node.line

    def fresh(self) -> str:
        self.temporaries += 1
        return f"mg_h{self.temporaries}"

    def interval(self, node: ir.Expr, depth: int, number: int, scope: dict) -> tuple[str, str]:
        """C expressions (lo, hi) bounding ``node``; intermediates checked against int64."""
        if isinstance(node, ir.Const):
            value = f"((__int128){int(node.value)}LL)" if node.value != -(2**63) else "((__int128)INT64_MIN)"
            return value, value
        if isinstance(node, ir.Name):
            if node.id in scope:  # a loop variable: the range of its loop (or of a branch's refinement)
                stem = self.interval_of(scope[node.id])
                return f"{stem}_lo", f"{stem}_hi"
            value = f"((__int128){self.renderer.expr(node)})"
            return value, value
        if isinstance(node, ir.Length):   # len(a[0]): the dims hold the first row's size
            value = f"((__int128){array_name(node.array)}_n{len(node.prefix)})"
            return value, value
        if isinstance(node, ir.Shape):
            value = f"((__int128){self.renderer.expr(node)})"
            return value, value
        if isinstance(node, COMPOUND) and expression_key(node) in scope:   # narrowed by a branch's test
            stem = self.interval_of(scope[expression_key(node)])
            return f"{stem}_lo", f"{stem}_hi"
        name = self.fresh()
        if isinstance(node, ir.IfExp):   # either branch's value (narrowed by the test): their intervals' hull
            scopes = self.facts.branch_scopes(node) or (scope, scope)
            (body_low, body_high), (else_low, else_high) = (self.interval(branch, depth, number, inner)
                                                            for branch, inner in zip((node.body, node.orelse), scopes))
            pair = (f"mg_min128({body_low}, {else_low})", f"mg_max128({body_high}, {else_high})")
        elif isinstance(node, ir.Call):   # min / max of hoistable ints (bounds.hoistable)
            pairs = [self.interval(argument, depth, number, scope) for argument in node.args]
            pick = "mg_min128" if self.renderer.typed.functions.get(node.function) == "min" else "mg_max128"
            low, high = pairs[0]
            for other_low, other_high in pairs[1:]:
                low, high = f"{pick}({low}, {other_low})", f"{pick}({high}, {other_high})"
            pair = (low, high)
        elif isinstance(node, ir.UnaryOp):
            low, high = self.interval(node.operand, depth, number, scope)
            pair = (f"-({high})", f"-({low})") if node.op == "-" else (low, high)
        else:
            left = self.interval(node.left, depth, number, scope)
            right = self.interval(node.right, depth, number, scope)
            if node.op == "+":
                pair = (f"{left[0]} + {right[0]}", f"{left[1]} + {right[1]}")
            elif node.op == "-":
                pair = (f"{left[0]} - {right[1]}", f"{left[1]} - {right[0]}")
            elif node.op == "*":
                products = [f"{a} * {b}" for a in left for b in right]
                pair = (f"mg_min4({', '.join(products)})", f"mg_max4({', '.join(products)})")
            elif node.op == "//":
                pair = (f"mg_fdiv128({left[0]}, {right[0]})", f"mg_fdiv128({left[1]}, {right[1]})")
            else:  # % by a positive constant
                pair = (f"mg_mod128_lo({left[0]}, {left[1]}, {right[0]})",
                        f"mg_mod128_hi({left[0]}, {left[1]}, {right[0]})")
        self.emit(depth, f"__int128 {name}_lo = {pair[0]}, {name}_hi = {pair[1]};")
        self.emit(depth, f"if (!mg_fits({name}_lo, {name}_hi)) MG_FAIL({number});")
        return f"{name}_lo", f"{name}_hi"


def box_name(array: str, dim: int) -> str:
    """The C variable stem of one dimension of a list's touched box (``_lo``, ``_hi``)."""
    return f"mg_B_{array_name(array)}_{dim}"
