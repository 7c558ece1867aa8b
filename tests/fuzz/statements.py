"""Statements of generated programs: stores, accumulations, reductions, tuple and chained
assignments, temporaries, ``if``/``elif``/``else``, ``break``/``continue``, bounded ``while``
and nested ``for`` loops.  Methods of ``generator.Generator`` (a mixin: they use its
random stream, ``expr`` and ``emit``)."""
from __future__ import annotations

from .classes import CTYPE, NUMPY_BOOL, PY_BOOL, PY_FLOAT, PY_INT, Scope, is_int, result_type


class StatementGeneration:
    def statements(self, scope: Scope, depth: int, loop_depth: int, count: int, in_loop: bool) -> None:
        for _ in range(count):
            self.statement(scope, depth, loop_depth, in_loop)
            self.maybe_helper_statement(scope, depth, in_loop)

    def statement(self, scope: Scope, depth: int, loop_depth: int, in_loop: bool) -> None:
        r = self.rng
        roll = r.random()
        if depth >= 6:  # deep enough: simple statements only
            roll = r.random() * 0.62
        if roll < 0.32:
            self.store(scope, depth)
        elif roll < 0.52:
            self.accumulate(scope, depth)
        elif roll < 0.62:
            self.temporary(scope, depth)
        elif roll < 0.74:
            self.conditional(scope, depth, loop_depth, in_loop)
        elif roll < 0.88 and loop_depth < self.MAX_DEPTH:
            self.for_loop(scope, depth, loop_depth)
        elif roll < 0.93 and loop_depth <= self.MAX_DEPTH:
            self.while_loop(scope, depth, loop_depth)
        elif roll < 0.96 and in_loop:
            self.jump(scope, depth)
        elif roll < 0.955:
            self.reduction(scope, depth)
        elif roll < 0.965:
            self.multiple(scope, depth)
        elif roll < 0.98 and scope.loops:
            # read the loop variable of an inner loop after it, or reassign a loop variable
            v = r.choice(scope.loops)[0]
            if r.random() < 0.5:
                self.emit(depth, f"acc = acc + {v}")
            else:
                self.emit(depth, f"{v} = {v} + 1")
        else:
            self.store(scope, depth)

    def store(self, scope: Scope, depth: int) -> None:
        r = self.rng
        array = r.choice(self.arrays)
        target = self.element(array, scope)
        element = array.element_type
        if element in (PY_BOOL, NUMPY_BOOL):
            condition = self.condition(scope, 1)
            self.emit(depth, f"{target} = {f'bool({condition})' if r.random() < 0.6 else condition}")
            return
        kind = "int" if is_int(element) else "float"
        if array.container == "ndarray" and r.random() < 0.15:
            kind = "float" if kind == "int" else "int"
        value, t = self.expr(kind, scope, r.choice([1, 2, 3]))
        if r.random() < 0.4:
            op = r.choice(["+", "+", "-", "*", "//", "%", "/"] if kind == "float" else ["+", "+", "-", "*", "//", "%", "|", "^"])
            if op in ("//", "%", "/"):
                value, t = self.divisor(kind, scope, 1)
            if array.container == "list":
                if result_type(op, element, t) is not element:
                    value, t = self.coerce(value, t, element)
                if result_type(op, element, t) is not element:
                    op = "+"
                if result_type(op, element, t) is not element and not self.chance(self.p_unstable):
                    return self.emit(depth, f"{target} = {self.coerce(value, t, element)[0]}")
            self.emit(depth, f"{target} {op}= {value}")
            return
        if array.container == "list" and t is not element and not self.chance(self.p_unstable):
            value, t = self.coerce(value, t, element)
        self.emit(depth, f"{target} = {value}")

    def accumulate(self, scope: Scope, depth: int) -> None:
        r = self.rng
        names = [n for n in scope.scalars if n in self.accumulators]
        name = r.choice(names)
        t = scope.scalars[name]
        kind = "int" if is_int(t) else "float"
        scope = scope.child()
        for accumulator in self.accumulators:
            if is_int(self.accumulators[accumulator]):
                scope.scalars.pop(accumulator, None)
        if name == "p":  # a product: overflows int64 when the loop is long enough
            value, vt = self.expr("int", scope, 1)
            if r.random() < 0.7:
                loops = [n for n, _ in scope.loops]
                value, vt = r.choice(["q", "(q + 1)", "3", "k"] + [f"({v} + 2)" for v in loops]), PY_INT
            op = "*"
        else:
            value, vt = self.expr(kind, scope, r.choice([1, 2, 3]))
            op = r.choice(["+", "+", "-", "*", "^"] if kind == "int" else ["+", "+", "-", "*"])
            if op == "^" and not is_int(vt):
                op = "+"
        result = result_type(op, t, vt)
        if result is None or CTYPE.get(result) != CTYPE[t] or (result is not t and r.random() < 0.7):
            if not self.chance(self.p_unstable):
                value, vt = self.coerce(value, vt, t)
                result = result_type(op, t, vt)
        if r.random() < 0.5:
            self.emit(depth, f"{name} {op}= {value}")
        else:
            self.emit(depth, f"{name} = {name} {op} {self.wrap(value)}")

    def reduction(self, scope: Scope, depth: int) -> None:
        """The reduction idioms a parallel loop may keep: s += e, s = max(s, e), if e > s: s = e."""
        r = self.rng
        name = r.choice([n for n in self.accumulators if n != "p"])
        t = self.accumulators[name]
        kind = "int" if is_int(t) else "float"
        arrays = [a for a in self.arrays if is_int(a.element_type) == (kind == "int")
                  and a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if arrays and r.random() < 0.8:
            array = r.choice(arrays)
            value, vt = self.element(array, scope), array.element_type
        else:
            value, vt = self.expr(kind, scope, 1)
        if CTYPE.get(vt) != CTYPE[t] or r.random() < 0.3:
            value, vt = self.coerce(value, vt, t)
        form = r.choice(["if_gt", "if_lt", "max", "min", "add", "mul", "bit"])
        if form in ("if_gt", "if_lt"):
            lines = [f"if {self.wrap(value)} {'>' if form == 'if_gt' else '<'}{r.choice(['', '='])} {name}:",
                     f"    {name} = {value}"]
        elif form in ("max", "min"):
            operands = [name, value] if r.random() < 0.7 else [value, name]
            lines = [f"{name} = {form}({', '.join(operands)})"]
        elif form == "bit" and kind == "int" and is_int(vt):
            lines = [f"{name} {r.choice(['|', '^', '&'])}= {value}"]
        elif form == "mul" and kind == "float":
            lines = [f"{name} *= {value}"]
        else:
            lines = [f"{name} {r.choice(['+', '+', '-'])}= {value}"]
        if "reduction" in self.avoid:  # the same random choices were made: only the statement goes
            lines = ["pass"]
        for line in lines:
            self.emit(depth, line)

    def multiple(self, scope: Scope, depth: int) -> None:
        r = self.rng
        if r.random() < 0.5:
            value, t = self.expr("int", scope, 1)
            self.emit(depth, f"acc, p = p, acc + {self.wrap(self.coerce(value, t, PY_INT)[0])}")
        else:
            first, second = self.temp(), self.temp()
            value, t = self.expr("float", scope, 2)
            self.emit(depth, f"{first} = {second} = {value}")
            scope.scalars[first] = scope.scalars[second] = t

    def temporary(self, scope: Scope, depth: int) -> None:
        r = self.rng
        name = self.temp()
        kind = r.choice(["int", "float"])
        value, t = self.expr(kind, scope, r.choice([1, 2, 3]))
        self.emit(depth, f"{name} = {value}")
        if t in CTYPE:
            scope.scalars[name] = t
            if depth <= 1 or r.random() < 0.3:
                self.returns.append(name)

    def conditional(self, scope: Scope, depth: int, loop_depth: int, in_loop: bool) -> None:
        r = self.rng
        self.emit(depth, f"if {self.condition(scope, 2)}:")
        late = None
        if r.random() < 0.25:  # bound in one branch only, read after the if
            late = f"c{self.temp_count + 1}"
            self.temp_count += 1
            target = r.choice([PY_INT, PY_FLOAT])
            value, t = self.expr("int" if target is PY_INT else "float", scope, 2)
            self.emit(depth + 1, f"{late} = {self.coerce(value, t, target)[0]}")
            if r.random() < 0.6:  # bound before the loops too (else: maybe UnboundLocalError)
                self.prelude.append(f"{late} = {r.choice(['0', '7', '-1']) if target is PY_INT else '0.5'}")
        self.statements(scope.child(), depth + 1, loop_depth, r.choice([1, 1, 2]), in_loop)
        if r.random() < 0.2:
            self.emit(depth, f"elif {self.condition(scope, 1)}:")
            self.statements(scope.child(), depth + 1, loop_depth, 1, in_loop)
        if r.random() < 0.4:
            self.emit(depth, "else:")
            self.statements(scope.child(), depth + 1, loop_depth, r.choice([1, 2]), in_loop)
        if late is not None:
            self.emit(depth, f"{'acc' if target is PY_INT else 'facc'} += {late}")

    def jump(self, scope: Scope, depth: int) -> None:
        self.emit(depth, f"if {self.condition(scope, 1)}:")
        jump = self.rng.choice(["break", "continue"])
        if "exits" not in self.avoid and self.exit_rng.random() < 0.2:   # leave the function from the loops
            jump = "return acc, facc, p" + (", out" if self.appends else "")
            if self.exit_rng.random() < 0.3:   # or raise (a kernel stops, CPython runs the loop again)
                jump = f'raise {self.exit_rng.choice(["ValueError", "ArithmeticError"])}("stopped at %r" % (p,))'
        self.emit(depth + 1, jump)

    def appended(self, scope: Scope, depth: int) -> None:
        """``out.append(e)`` (a float: every element one class), sometimes ``out += [e]``."""
        r = self.exit_rng
        if not self.appends or r.random() < 0.6:
            return
        self.rng, main = r, self.rng   # drawn from the feature's stream: the rest of the program stays
        try:
            value, t = self.expr("float", scope, 1)
        finally:
            self.rng = main
        if t is not PY_FLOAT:
            value = f"float({value})"
        if self.grown and self.grow_rng.random() < 0.7:   # read back as it grows: its last, or any element
            g = self.grow_rng
            names = sorted(name for name, _ in scope.loops)
            index = "-1" if g.random() < 0.5 or not names else f"{g.choice(names)} % len(out)"
            value = f"{value} * 0.5 + out[{index}]"
        self.emit(depth, f"out.append({value})" if r.random() < 0.8 else f"out += [{value}]")

    def fold(self, depth: int) -> None:
        """Sometimes one fold of a 1-D array into ``acc`` or ``facc`` (an expression site)."""
        r = self.fold_rng
        arrays = [a for a in self.arrays if a.rank == 1 and a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if "folds" in self.avoid or not arrays or r.random() < 0.6:
            return
        x = r.choice(arrays).name
        limit = r.choice(["s", "0", "k", "1.5"])
        self.emit(depth, r.choice([
            f"acc = acc + int(any(v > {limit} for v in {x}))",
            f"acc = acc + int(all({x}[t] <= {x}[t + 1] for t in range(len({x}) - 1)))",
            f"acc = acc + int(any({x}[t] == {limit} for t in range(len({x})) if t % 2 == 0))",
            f"facc = facc + float(max(({x}[t] * 0.5 for t in range(len({x}))), default=-1.5))",
            f"facc = facc + float(min({x}, default=2.5))",
            f"facc = facc + float(min({x}, key=lambda v: abs(v - {limit}), default=0.25))",
            f"facc = facc + float(sum(v * 0.5 for v in {x} if v < {limit}))",
        ]))

    def square_sums(self, depth: int) -> None:
        """Sometimes a sum of squares of one 1-D array into ``facc``: a ``mixed`` list's terms
        are ints and floats (an int phase, then Python 3.12+ compensates the floats only)."""
        r = self.scratch_rng
        arrays = [a for a in self.arrays if a.rank == 1 and a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if "scratch" in self.avoid or not arrays or r.random() < 0.7:
            return
        x = r.choice(arrays).name
        self.emit(depth, r.choice([f"facc = facc + float(sum(v * v for v in {x}))",
                                   f"facc = facc + float(sum(({x}[t] * {x}[t] for t in range(len({x}))), 1))"]))

    def work_list(self, scope: Scope) -> None:
        """Sometimes a last loop over a work list of the kernel's own, written and read there
        and never after (frontend/scratch.py: not boxed back), its values from one array."""
        r = self.scratch_rng
        arrays = [a for a in self.arrays if a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if "scratch" in self.avoid or not arrays or r.random() < 0.7:
            return
        a = r.choice(arrays)
        inner = scope.child()
        inner.loops.append(("i", a.dims[0]))
        saved, self.rng = self.rng, r   # expressions from this stream: the other programs stay as they were
        try:
            value = self.coerce(*self.expr("float", inner, 2), PY_FLOAT)[0]
        finally:
            self.rng = saved
        self.emit(1, f"for i in range(len({a.name})):")
        if r.random() < 0.5:
            self.lines.insert(len(self.lines) - 1, f"    work = [0.0] * (len({a.name}) + 1)")
            self.emit(2, f"work[i + 1] = work[i] * 0.5 + {value}")
            self.emit(2, "facc = facc + work[i + 1]")
        else:
            self.lines.insert(len(self.lines) - 1, f"    work = [[0.0] * 2 for _ in range(len({a.name}))]")
            self.emit(2, f"work[i][0] = {value}")
            self.emit(2, "work[i][1] = work[i][0] * work[i][0] - work[i - 1][1]")
            self.emit(2, "facc = facc + work[i][1]")

    def table_rows(self, scope: Scope) -> str | None:
        """Sometimes a loop building a table row by row (``row = []``, ``row.append(e)`` or
        ``row += [e]`` in an inner loop, ``table.append(row)``; or ``table.append([e for j in
        ...])``; frontend/built_rows.py), its
        values ints or floats (each keeps its class), the rows of uneven lengths, an inner
        ``break`` now and then; feature ``rows``, from its own stream.  The table's name, or None."""
        r = self.rows_rng
        arrays = [a for a in self.arrays if a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if "rows" in self.avoid or not arrays or r.random() < 0.8:
            return None
        a, c = r.choice(arrays), r.choice(arrays)
        inner = scope.child()
        inner.loops.append(("i", a.dims[0]))
        columns, dim = r.choice([(f"range(len({c.name}))", c.dims[0]), ("range(i % 4)", None), ("range(3)", None),
                                 (f"range(len({c.name}) - 1, -1, -1)", c.dims[0])])
        inner.loops.append(("j", dim))
        saved, self.rng = self.rng, r   # expressions from this stream: the other programs stay as they were
        try:
            values = [self.coerce(*self.expr(kind, inner, 2), PY_FLOAT if kind == "float" else PY_INT)[0]
                      for kind in (r.choice(["int", "float"]), r.choice(["int", "float"]))]
            test = self.condition(inner, 1)
        finally:
            self.rng = saved
        self.emit(1, "table = []")
        self.emit(1, f"for i in range(len({a.name})):")
        if r.random() < 0.35:   # a comprehension appended whole (its j its own)
            self.emit(2, f"table.append([{values[0]} for j in {columns}{f' if {test}' if r.random() < 0.5 else ''}])")
            return "table"
        self.emit(2, "row = []")
        self.emit(2, f"for j in {columns}:")
        if r.random() < 0.5:
            self.emit(3, f"if {test}:")
            self.emit(4, f"row.append({values[0]})")
            self.emit(3, "else:")
            self.emit(4, f"row += [{values[1]}]")
        else:
            self.emit(3, f"row.append({values[0]})")
            if r.random() < 0.3:
                self.emit(3, f"if {test}:")
                self.emit(4, "break")
        if r.random() < 0.3:
            self.emit(2, f"row.extend([{values[1]}, i])")
        self.emit(2, "table.append(row)")
        return "table"

    def split_parts(self, scope: Scope) -> tuple[str, ...]:
        """Sometimes a loop over the rows of a table whose parts depend on each other across its
        iterations through some of them only (atax's ``rowv[i]`` summed over ``j``, then
        ``cols[j] += A[i][j] * rowv[i]``; bicg's two arrays in one inner loop; a stencil over
        ``cols`` that keeps its order; a scalar folded from a part): analysis/distribution.py
        splits and exchanges it where that keeps every dependence's order; feature ``splits``,
        from its own stream.  The names to return (none: no such loop)."""
        r = self.splits_rng
        tables = [a for a in self.arrays if a.rank == 2 and a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if "splits" in self.avoid or not tables or r.random() >= 0.25:
            return ()
        a = r.choice(tables).name
        width = f"len({a}[0]) if len({a}) else 0"
        factor = lambda: r.choice(["0.5", "s", "(j % 4) * 0.25", "rowv[i]", "1.5"])  # noqa: E731
        parts = [f"rowv[i] = {r.choice(['0.0', 'i * 0.5', 's'])}",
                 f"for j in range({width}):\n    rowv[i] = rowv[i] + {a}[i][j] * {factor()}",
                 f"for j in range({width}):\n    cols[j] = cols[j] + {a}[i][j] * {factor()}",
                 f"for j in range({width}):\n    cols[j] += {a}[i][j]\n    rowv[i] += {a}[i][j] * {factor()}",
                 f"for j in range(({width}) - 1):\n    cols[j] = cols[j + 1] * 0.5 + {a}[i][j]",
                 "facc = facc + rowv[i]"]
        self.emit(1, f"cols = [0.0] * ({width})")
        self.emit(1, f"rowv = [0.0] * len({a})")
        self.emit(1, f"for i in range(len({a})):")
        for part in r.sample(parts, r.randint(2, 4)):
            for line in part.split("\n"):
                self.emit(2, line)
        return ("cols", "rowv")

    def keyed_groups(self, scope: Scope) -> str | None:
        """Sometimes a loop grouping values by key (``groups[k].append(v)``, ``.extend([v, i])``;
        frontend/appends.py) into a list of lists or a dict of lists keyed 0 .. K-1, the keys
        now and then negative (a list's wrap, a dict's KeyError) or past the table, the values
        ints or floats (each keeps its class), or the rows of a list of lists the loop walks;
        feature ``keyed``, from its own stream.  The table's name, or None."""
        r = self.keyed_rng
        arrays = [a for a in self.arrays if a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        if "keyed" in self.avoid or not arrays or r.random() < 0.8:
            return None
        a = r.choice(arrays)
        groups = r.choice([1, 2, 3, 4])
        table = r.choice(["list", "list", "dict"])
        inner = scope.child()
        inner.loops.append(("i", a.dims[0]))
        saved, self.rng = self.rng, r   # expressions from this stream: the other programs stay as they were
        try:
            values = [self.coerce(*self.expr(kind, inner, 2), PY_FLOAT if kind == "float" else PY_INT)[0]
                      for kind in (r.choice(["int", "float"]), r.choice(["int", "float"]))]
            picked = self.coerce(*self.expr("int", inner, 2), PY_INT)[0]
        finally:
            self.rng = saved
        key = r.choice([f"i % {groups}", f"({picked}) % {groups}", f"-1 - i % {groups}", f"i % {groups + 1}",
                        f"abs({picked}) % {groups}"])
        self.emit(1, "groups = " + (f"[[] for _ in range({groups})]" if table == "list"
                                    else f"{{g: [] for g in range({groups})}}"))
        rows = [b for b in self.arrays if b.container == "list" and b.rank == 2 and b.element != "bool"]
        if rows and r.random() < 0.3:   # the rows themselves join the groups (their identity kept)
            b = r.choice(rows)
            self.emit(1, f"for row in {b.name}:")
            self.emit(2, f"groups[int(row[0]) % {groups}].append(row)")
            return "groups"
        self.emit(1, f"for i in range(len({a.name})):")
        self.emit(2, f"groups[{key}].append({values[0]})")
        if r.random() < 0.35:
            self.emit(2, f"groups[i % {groups}].extend([{values[1]}, i])")
        return "groups"

    def loop_else(self, depth: int) -> None:
        """Sometimes a ``for ... else`` clause: it runs when no ``break`` left the loop."""
        if "exits" not in self.avoid and self.exit_rng.random() < 0.15:
            self.emit(depth, "else:")
            self.emit(depth + 1, f"acc = acc + {self.exit_rng.choice(['1', '7', 'k'])}")

    def swap(self, depth: int) -> None:
        """Sometimes, at a loop body's end, exchange two arrays of one kind (a double buffer:
        compiled where the loop subscripted them before, else CPython's path)."""
        r = self.swap_rng
        kinds: dict = {}
        for array in self.arrays:
            kinds.setdefault((array.container, array.element, array.dims), []).append(array.name)
        pairs = [names for names in kinds.values() if len(names) >= 2]
        if pairs and r.random() < 0.3:
            first, second = r.sample(r.choice(pairs), 2)
            self.emit(depth, f"{first}, {second} = {second}, {first}")

    def row_swap(self, var: str, depth: int) -> None:
        """Sometimes, at a loop body's end, exchange two rows of a list of lists (``A[i], A[p]
        = A[p], A[i]``: compiled as a RowSwap where the loop indexes it as a table, else
        CPython's path; an index out of range raises IndexError), from a stream of its own."""
        g = self.rowswap_rng
        tables = [a.name for a in self.arrays if a.container == "list" and a.rank == 2]
        if "rowswaps" in self.avoid or not tables or g.random() >= 0.25:
            return
        name = g.choice(tables)
        first = f"{var} % len({name})"
        second = g.choice(["0", "-1", f"({var} + 1) % len({name})", "k", f"-1 - {var} % len({name})"])
        self.emit(depth, f"{name}[{first}], {name}[{second}] = {name}[{second}], {name}[{first}]")

    def while_loop(self, scope: Scope, depth: int, loop_depth: int) -> None:
        r = self.rng
        counter = self.temp()
        bound = r.choice(["3", "2", "k", "4"])
        self.emit(depth, f"{counter} = 0")
        test = f"{counter} < {bound}"
        if r.random() < 0.5:
            test += f" and {self.condition(scope, 1)}"
        self.emit(depth, f"while {test}:")
        self.emit(depth + 1, f"{counter} += 1")
        inner = scope.child()
        inner.scalars[counter] = PY_INT
        self.statements(inner, depth + 1, loop_depth + 1, r.choice([1, 2]), True)

    def for_loop(self, scope: Scope, depth: int, loop_depth: int) -> None:
        r = self.rng
        header, dim = self.range_header(scope, depth)
        used = {name for name, _ in scope.loops}
        var = next(v for v in ("i", "j", "l", "u", "w") if v not in used)
        if r.random() < 0.03:  # a loop variable that rebinds a name in use (an outer loop's, or k)
            var = r.choice(sorted(used) + ["k"])
            dim = dim if var != "k" else None
        long_range = r.random() < 0.03
        if long_range and "longrange" in self.avoid:
            long_range = False
            r.random()  # the same random choices as with the feature, for everything that follows
        if long_range:  # more than 2**63 values (or nearly): only a break ends it
            start, stop, step, last = r.choice([
                ("-k - 3", "sys.maxsize", "1", f"{var} >= 6 - k"),
                ("k", "-sys.maxsize - 1", "-1", f"{var} <= k - 7"),
                ("-sys.maxsize", "sys.maxsize", "1", f"{var} >= -sys.maxsize + 5"),
                ("-q", "q", "1", f"{var} >= -q + 4"),
                ("sys.maxsize", "-sys.maxsize", "-3", f"{var} < sys.maxsize - 20"),
                ("0", "sys.maxsize", "1", f"{var} > 6")])
            header, dim = f"range({start}, {stop}, {step})", None
        self.emit(depth, f"for {var} in {header}:")
        if long_range:
            self.emit(depth + 1, f"if {last}:")
            self.emit(depth + 2, "break")
        inner = scope.child()
        inner.loops.append((var, dim))
        self.loop_vars.add(var)
        if loop_depth == 0:
            self.top_loop_vars.add(var)
        self.statements(inner, depth + 1, loop_depth + 1, r.choice([1, 2, 2, 3]), True)
        self.display_loop(inner, depth + 1, loop_depth + 1)
        self.appended(inner, depth + 1)
        self.swap(depth + 1)
        self.row_swap(var, depth + 1)
        self.loop_else(depth)
        if loop_depth > 0 and r.random() < 0.2:  # the variable after its (maybe zero-trip) loop
            self.emit(depth, f"acc = acc + {var}")

    def display_loop(self, scope: Scope, depth: int, loop_depth: int) -> None:
        """Sometimes a loop over a tuple or list display inside a loop (``for dv in (-1, 0, 2)``,
        floats, or rows for ``dv, dw``; feature ``displays``, drawn from its own stream), a
        ``break`` now and then, ``dv`` read after it."""
        r = self.display_rng
        if "displays" in self.avoid or r.random() >= 0.15:
            return
        form = r.choice(["ints", "ints", "floats", "rows"])
        count = r.randint(1, 4)
        inner = scope.child()
        if form == "rows":
            elements = ", ".join(f"({r.randint(-2, 2)}, {r.choice(['0.5', '-1.25', '2.0'])})" for _ in range(count))
            target, summed = "dv, dw", "acc = acc + dv"
            inner.scalars.update(dv=PY_INT, dw=PY_FLOAT)
        elif form == "floats":
            elements = ", ".join(r.choice(["0.5", "-1.5", "2.25", "-0.0", "1e-3"]) for _ in range(count))
            target, summed = "dv", "facc = facc + dv"
            inner.scalars["dv"] = PY_FLOAT
        else:
            elements = ", ".join(str(r.randint(-3, 3)) for _ in range(count))
            target, summed = "dv", "acc = acc + dv"
            inner.scalars["dv"] = PY_INT
        opened, closed = r.choice(["()", "[]"])
        self.emit(depth, f"for {target} in {opened}{elements}{',' if count == 1 and opened == '(' else ''}{closed}:")
        self.rng, main = r, self.rng   # the rest of the program keeps its random choices
        try:
            self.statements(inner, depth + 1, loop_depth, r.choice([1, 2]), True)
        finally:
            self.rng = main
        if r.random() < 0.3:
            self.emit(depth + 1, f"if {self.condition(inner, 1)}:")
            self.emit(depth + 2, "break")
        if r.random() < 0.4:
            self.emit(depth, summed)

    def tuple_loop(self, scope: Scope, depth: int) -> None:
        """Sometimes a loop over ``pairs`` with tuple targets (``for x, y in pairs``, with
        ``enumerate`` or ``zip`` beside a 1-D array), its body drawn from the feature's stream;
        sometimes ``x`` read after it (bound before the loops: ``pairs`` may be empty)."""
        r = self.tuple_rng
        if self.pairs is None or r.random() < 0.4:
            return
        first, second, dim = self.pairs
        inner = scope.child()
        inner.scalars.update(x=first, y=second)
        arrays = [a for a in self.arrays if a.rank == 1 and a.element_type not in (PY_BOOL, NUMPY_BOOL)]
        form = r.choice(["plain", "plain", "enumerate", "zip"])
        if form == "zip" and arrays:
            array = r.choice(arrays)
            inner.scalars["w"] = array.element_type
            self.emit(depth, f"for (x, y), w in zip(pairs, {array.name}):")
        elif form == "enumerate":
            inner.loops.append(("ti", dim))
            self.emit(depth, f"for ti, (x, y) in enumerate(pairs{r.choice(['', '', ', 1'])}):")
        else:
            self.emit(depth, "for x, y in pairs:")
        self.rng, main = r, self.rng   # the rest of the program keeps its random choices
        try:
            self.statements(inner, depth + 1, 1, r.choice([1, 2, 2, 3]), True)
        finally:
            self.rng = main
        if r.random() < 0.3:
            self.prelude.append("x = 0.5")
            self.emit(depth, "facc = facc + float(x)")

