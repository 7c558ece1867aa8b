"""Random expressions of the fuzz programs (a mixin of ``generator.Generator``): leaves
(constants, scalars, array elements), operators typed as Python and NumPy type them, calls
and conditions, with ``int(...)``/``float(...)`` inserted where a type would change."""
from __future__ import annotations



from .classes import (NP_I32, NP_I64, NUMPY_BOOL, PY_BOOL, PY_FLOAT, PY_INT, Scope, call_type,
                      is_float, is_int, result_type)


class ExpressionGeneration:
    def int_constant(self) -> str:
        r = self.rng
        if self.big_ints and r.random() < 0.25:
            return r.choice(["2147483647", "4294967296", "1000000007", "3037000499", "9223372036854775807",
                             "-9223372036854775807", "1099511627776", "-(2 ** 62)"])
        return str(r.choice([0, 1, 1, 2, 2, 3, 3, 5, 7, 10, -1, -2, -3, 100]))

    def float_constant(self) -> str:
        r = self.rng
        if self.special_floats and r.random() < 0.2:
            return r.choice(["1e308", "-0.0", "5e-324", "1e-300", "math.inf", "math.nan", "-math.inf",
                             "1e16", "0.1"])
        return r.choice(["0.5", "1.5", "2.0", "-0.25", "3.0", "0.1", "1.0", "-1.5", "0.0", "10.0", "1e-3"])

    def leaf(self, kind: str, scope: Scope) -> tuple[str, type]:
        r = self.rng
        options = []
        arrays = [a for a in self.arrays
                  if all(any(ld == dim for _, ld in scope.loops) for dim in a.dims) or r.random() < 0.3]
        want_int = kind == "int"
        for a in arrays:
            if (is_int(a.element_type) == want_int) or r.random() < 0.2:
                options.append(("array", a))
        for name, _ in scope.loops:
            if want_int or r.random() < 0.3:
                options.append(("var", name, PY_INT))
        for name, t in scope.scalars.items():
            if is_int(t) == want_int or r.random() < 0.15:
                options.append(("var", name, t))
        options.append(("const",))
        options.append(("const",))
        if want_int and r.random() < 0.08:
            kind = r.choice(["int", "float"])
            (a, ta), (b, tb) = self.leaf(kind, scope), self.leaf(kind, scope)
            op = r.choice(["<", "<=", ">", "==", "!="])
            t = result_type(op, ta, tb)
            if t is not None:
                return f"({a} {op} {b})", t
        if r.random() < 0.03:
            (a, ta), (b, tb) = self.leaf(kind, scope), self.leaf(kind, scope)
            if ta is tb:
                return f"({a} {r.choice(['and', 'or'])} {b})", ta
        pick = r.choice(options)
        if pick[0] == "array":
            a = pick[1]
            return self.element(a, scope), a.element_type
        if pick[0] == "var":
            return pick[1], pick[2]
        if want_int:
            return self.int_constant(), PY_INT
        return self.float_constant(), PY_FLOAT

    def expr(self, kind: str, scope: Scope, depth: int = 3) -> tuple[str, type]:
        """An expression of kind "int" or "float" (the class may be Python's or NumPy's),
        sometimes passed to a helper function (helpers.py)."""
        text, t = self.plain_expr(kind, scope, depth)
        return self.maybe_call(text, t, kind, scope)

    def plain_expr(self, kind: str, scope: Scope, depth: int = 3) -> tuple[str, type]:
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.leaf(kind, scope)
        roll = r.random()
        if roll < 0.5:
            return self.binary(kind, scope, depth)
        if roll < 0.58:
            text, t = self.expr(kind, scope, depth - 1)
            result = {PY_BOOL: PY_INT, NUMPY_BOOL: None}.get(t, t)
            if result is None:
                return text, t
            if t in (PY_INT, NP_I64, NP_I32) and r.random() < 0.2:
                return f"~{self.wrap(text)}", t
            return f"-{self.wrap(text)}", result
        if roll < 0.66:
            text, t = self.expr(kind, scope, depth - 1)
            result = call_type("abs", t)
            return (f"abs({text})", result) if result is not None else (text, t)
        if roll < 0.76:
            function = r.choice(["min", "max"])
            (a, ta), (b, tb) = self.same_type_pair(kind, scope, depth - 1)
            if r.random() < 0.3:
                c, tc = self.coerce(*self.expr(kind, scope, depth - 1), ta)
                if tc is ta:
                    return f"{function}({a}, {b}, {c})", ta
            return f"{function}({a}, {b})", ta
        if roll < 0.84:
            test = self.condition(scope, depth - 1)
            (a, ta), (b, tb) = self.same_type_pair(kind, scope, depth - 1)
            return f"({a} if {test} else {b})", ta
        return self.call(kind, scope, depth)

    def wrap(self, text: str) -> str:
        simple = text.replace("_", "").replace(".", "").isalnum() or (text.endswith("]") and "(" not in text and " " not in text)
        return text if simple else f"({text})"

    def coerce(self, text: str, t: type, target: type) -> tuple[str, type]:
        """Convert an expression to the class ``target`` where a Python conversion exists."""
        if t is target:
            return text, t
        if target is PY_INT:
            return f"int({text})", PY_INT
        if target is PY_FLOAT:
            return f"float({text})", PY_FLOAT
        return text, t

    def same_type_pair(self, kind, scope, depth):
        a, ta = self.expr(kind, scope, depth)
        b, tb = self.expr(kind, scope, depth)
        if ta is not tb:
            target = PY_INT if kind == "int" else PY_FLOAT
            if self.chance(self.p_unstable):
                return (a, ta), (b, tb)
            a, ta = self.coerce(a, ta, target)
            b, tb = self.coerce(b, tb, target)
        return (a, ta), (b, tb)

    def binary(self, kind: str, scope: Scope, depth: int) -> tuple[str, type]:
        r = self.rng
        if kind == "int":
            op = r.choice(["+", "+", "-", "-", "*", "*", "//", "%", "&", "|", "^", "**", "<<", ">>"])
            if op in ("**", "<<", ">>") and r.random() < 0.6:
                op = "*"
        else:
            op = r.choice(["+", "+", "-", "*", "*", "/", "/", "//", "%", "**"])
            if op == "**" and r.random() < 0.5:
                op = "+"
        left_kind = kind if kind == "int" or r.random() < 0.75 else "int"
        a, ta = self.expr(left_kind, scope, depth - 1)
        if op == "**":
            b, tb = (r.choice(["2", "2", "3", "0", "-1"]), PY_INT) if kind == "int" else (
                r.choice(["2", "0.5", "2.0", "-1", "3"]), PY_INT)
            if kind == "float" and "." in b:
                tb = PY_FLOAT
            if kind == "float" and not is_float(ta):
                a, ta = f"float({a})", PY_FLOAT
        elif op in ("<<", ">>"):
            b, tb = self.expr("int", scope, depth - 1)
            b = f"({b}) % 8" if r.random() < 0.9 else b
            tb = result_type("%", tb, PY_INT) or tb
        elif op in ("//", "%", "/"):
            b, tb = self.divisor(kind, scope, depth - 1)
        else:
            right_kind = kind if kind == "int" or r.random() < 0.7 else "int"
            b, tb = self.expr(right_kind, scope, depth - 1)
        if op in ("&", "|", "^", "<<", ">>") and not (is_int(ta) and is_int(tb)):
            op = "+"
        if kind == "int" and op == "/":
            op = "//"
        result = result_type(op, ta, tb)
        if result is None or (kind == "int" and not is_int(result) and op != "**"):
            op = "+"
            result = result_type(op, ta, tb)
        if result is None:
            return a, ta
        if result is NUMPY_BOOL or result is PY_BOOL:
            result = PY_INT if result is PY_BOOL else result
        return f"{self.wrap(a)} {op} {self.wrap(b)}", result

    def divisor(self, kind: str, scope: Scope, depth: int) -> tuple[str, type]:
        r = self.rng
        if r.random() < self.p_unsafe_div:
            return self.expr(kind if r.random() < 0.5 else "int", scope, depth)
        roll = r.random()
        if roll < 0.45:
            if kind == "int":
                return r.choice(["2", "3", "7", "-3", "10", "-1"]), PY_INT
            text = r.choice(["2.0", "3.0", "0.5", "-4.0", "7", "3"])
            return text, PY_FLOAT if "." in text else PY_INT
        e, t = self.expr(kind, scope, depth)
        if is_int(t):
            if t in (PY_BOOL, NUMPY_BOOL):
                return "2", PY_INT
            text = f"(abs({e}) % 5 + 1)" if r.random() < 0.5 else f"({e} * {e} + 1)"
            return text, result_type("+", t, PY_INT) or t
        return f"({e} * {e} + 1.0)", result_type("+", t, PY_FLOAT) or t

    def call(self, kind: str, scope: Scope, depth: int) -> tuple[str, type]:
        r = self.rng
        if kind == "int":
            a, ta = self.expr("float", scope, depth - 1)
            function = r.choice(["int", "int", "round"] + (["math.floor", "math.ceil"] if self.use_math else []))
            t = call_type(function, ta)
            return (f"{function}({a})", t) if t is not None and is_int(t) else (f"int({a})", call_type("int", ta) or PY_INT)
        a, ta = self.expr(r.choice(["int", "float"]), scope, depth - 1)
        functions = ["float"]
        if self.use_math:
            functions += ["math.sqrt", "math.sin", "math.fabs", "math.exp", "math.atan2", "math.copysign"]
        function = r.choice(functions)
        if function == "math.sqrt" and r.random() < 0.9:
            a = f"abs({a})"
        if function == "math.exp":
            a = f"{self.wrap(a)} % 50" if r.random() < 0.8 else a
            ta = result_type("%", ta, PY_INT) or ta
        if function in ("math.atan2", "math.copysign"):
            b, tb = self.expr("float", scope, depth - 1)
            t = call_type(function, ta, tb)
            return (f"{function}({a}, {b})", t) if t else (f"float({a})", PY_FLOAT)
        t = call_type(function, ta)
        return (f"{function}({a})", t) if t else (f"float({a})", PY_FLOAT)

    def condition(self, scope: Scope, depth: int) -> str:
        return self.maybe_call_in_condition(self.plain_condition(scope, depth), scope)

    def plain_condition(self, scope: Scope, depth: int) -> str:
        r = self.rng
        roll = r.random()
        if roll < 0.75 or depth <= 0:
            kind = r.choice(["int", "int", "float"])
            a, _ = self.expr(kind, scope, min(depth, 1))
            b, _ = self.expr(r.choice([kind, "int", "float"]), scope, min(depth, 1))
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
            if r.random() < 0.1:
                c, _ = self.expr(kind, scope, 0)
                return f"{self.wrap(a)} {op} {self.wrap(b)} {r.choice(['<', '<=', '!='])} {self.wrap(c)}"
            return f"{self.wrap(a)} {op} {self.wrap(b)}"
        if roll < 0.9:
            return f"{self.condition(scope, depth - 1)} {r.choice(['and', 'or'])} {self.condition(scope, depth - 1)}"
        if roll < 0.95:
            return f"not ({self.condition(scope, depth - 1)})"
        v = r.choice([name for name, _ in scope.loops] or ["k"])
        return r.choice([f"{v} % 2 == 0", f"{v} > k", f"{v} == 0"])

    # -- the whole program ---------------------------------------------------------------------
