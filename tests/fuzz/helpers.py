"""User-defined helper functions in generated programs (megaguards inlines their calls).

Some programs define one to three helpers at module level (and sometimes a closure or
a lambda inside ``kernel``) and call them inside the loops:

* value helpers: one expression, a local first, or several returns under ``if``/``elif``/
  ``else``; defaults, keyword-only parameters; they read module globals and may call
  the helpers defined before them;
* search helpers over an array parameter: a ``return`` inside a ``for`` (or ``while``,
  or two nested loops), or a running total; called with a 1-D array or a row ``A[i]``;
* pair helpers returning tuples, unpacked by the caller (``t1, t2 = h(x, y)``) or
  indexed (``h(x, y)[1]``);
* writers: statements that write an array passed to them (an element, a whole row,
  one array into another, the same array twice);
* unsupported ones that must stay in CPython: recursion, a ``global`` statement, ``print``.

Calls appear as values in expressions, as arguments of other calls, in conditional
expressions and ``and``/``or`` (evaluated only when Python would), in conditions, and as
statements; arguments are positional or keywords (sometimes out of order), defaults
left out, number literals, rows.

Everything about helpers is drawn from a random stream of its own
(``Random("helpers <seed>")``): while the generator makes a choice for a helper, its
``rng`` *is* that stream.  A program without helpers is therefore exactly the program
its seed gave before helpers existed, and ``--avoid helpers`` gives that program for
every seed.  The class of a call's value is found by running the helper on sample
arguments of the argument classes (as the generator types operators).
"""
from __future__ import annotations

import contextlib
import math
import random
import sys
import warnings
from dataclasses import dataclass

import numpy

from .classes import CTYPE, Scope, is_int

P_HELPERS = 0.4                  # of programs
# Module globals the helpers read; p and i are also names of kernel's locals (a helper's
# p is the global, a closure's p the kernel's); LAST is written, never read.
GLOBAL_LINES = ["SCALE = 3", "OFFSET = 0.25", "p = 7", "i = 2", "LAST = 0"]
GLOBAL_TYPES = {"SCALE": int, "OFFSET": float, "p": int, "i": int}
KERNEL_SAMPLES = {"n": 3, "m": 3, "k": 3, "q": 3, "s": 0.5, "facc": 0.5, "p": 3, "i": 3}  # what closures read


@dataclass
class Parameter:
    name: str
    kind: str                    # int | float | depth | array | index | element
    default: str | None = None
    keyword_only: bool = False


@dataclass
class Helper:
    name: str
    role: str                    # value | search | pair | writer | unsupported
    parameters: list
    lines: list                  # its definition
    place: str = "module"        # module | kernel (a closure or lambda defined in kernel)
    function: object = None      # the definition run here (for result classes)

    @property
    def scalar(self) -> bool:
        return any(p.kind in ("int", "float") for p in self.parameters)

    @property
    def arrays(self) -> bool:
        return any(p.kind == "array" for p in self.parameters)


def signature(parameters: list) -> str:
    parts, star = [], False
    for p in parameters:
        if p.keyword_only and not star:
            parts.append("*")
            star = True
        parts.append(p.name if p.default is None else f"{p.name}={p.default}")
    return ", ".join(parts)


ASSIGNED_CELLS = {"facc": "OFFSET", "p": "SCALE", "i": "SCALE", "k": "SCALE"}  # of kernel's, by loops


def without_assigned_cells(lines: list) -> list:
    """A closure or lambda reading module globals of the same classes instead of the
    kernel's variables that its loops assign (``--avoid cells``)."""
    import ast

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Name(ASSIGNED_CELLS.get(node.id, node.id), node.ctx), node)
    tree = Rename().visit(ast.parse("\n".join(lines)))
    return ast.unparse(ast.fix_missing_locations(tree)).splitlines()


def sample_argument(kind):
    """A value of an argument's class: a class, or (container, element class) for arrays."""
    if isinstance(kind, tuple):
        container, element = kind
        value = element(3) if element not in (bool, numpy.bool_) else element(True)
        return [value] * 4 if container == "list" else numpy.full(4, value, dtype=element)
    if kind in (bool, numpy.bool_):
        return kind(True)
    return kind(3) if kind in (int, numpy.int64, numpy.int32) else kind(0.5)


class HelperGeneration:
    """Methods of ``generator.Generator`` for helpers (a mixin: they use its ``expr``,
    ``condition``, ``index``, ``coerce`` and ``rng``)."""

    helpers: list = []
    visible: list = []
    call_depth = 0

    def init_helpers(self) -> None:
        self.hr = random.Random(f"helpers {self.seed}")
        self.helpers, self.visible, self.module_lines, self.kernel_lines = [], [], [], []
        self.call_depth = 0
        if "helpers" in self.avoid or self.hr.random() >= P_HELPERS:
            return
        self.namespace = {"math": math, "sys": sys, "numpy": numpy}
        exec("\n".join(GLOBAL_LINES), self.namespace)
        self.module_lines += GLOBAL_LINES + ["", ""]
        with self.helper_stream() as r:
            self.p_call = r.choice([0.02, 0.04, 0.08])
            self.p_helper_statement = r.choice([0.1, 0.2, 0.3])
            self.p_helper_condition = r.choice([0.0, 0.04, 0.1])
            roles = [r.choice(["value", "value", "search", "pair", "writer"]) for _ in range(r.choice([1, 2, 2, 3]))]
            if r.random() < 0.15:
                roles.insert(r.randrange(len(roles) + 1), "unsupported")
            for number, role in enumerate(roles, 1):
                self.add_helper(getattr(self, f"define_{role}")(f"h{number}"))
            if r.random() < 0.25:
                self.add_helper(self.define_closure("inner1"))
            if r.random() < 0.25:
                self.add_helper(self.define_lambda("lam1", in_kernel=r.random() < 0.6))

    @contextlib.contextmanager
    def helper_stream(self):
        previous, self.rng = self.rng, self.hr
        try:
            yield self.rng
        finally:
            self.rng = previous

    @contextlib.contextmanager
    def helper_body(self):
        """While a helper's body is made: no arrays of the kernel's, no deeper calls."""
        arrays, self.arrays = self.arrays, []
        try:
            yield
        finally:
            self.arrays = arrays

    def add_helper(self, helper: Helper) -> None:
        if helper.place == "kernel" and "cells" in self.avoid:  # BUGS.md #8's trigger, taken out
            helper.lines = without_assigned_cells(helper.lines)
        namespace = self.namespace if helper.place == "module" else {**self.namespace, **KERNEL_SAMPLES}
        exec("\n".join(helper.lines), namespace)
        helper.function = namespace[helper.name]
        self.helpers.append(helper)
        self.visible.append(helper)
        (self.module_lines if helper.place == "module" else self.kernel_lines).extend(
            helper.lines + (["", ""] if helper.place == "module" else []))

    # -- definitions ------------------------------------------------------------------
    def scalar_parameters(self, count: int, names=("x", "y", "z")) -> list:
        r = self.rng
        parameters = [Parameter(names[i], r.choice(["int", "float", "float"])) for i in range(count)]
        if count > 1 and r.random() < 0.5:  # a default, maybe keyword-only
            last = parameters[-1]
            last.default = r.choice(["2", "SCALE * 2"]) if last.kind == "int" else r.choice(["0.5", "OFFSET", "-1.5"])
            last.keyword_only = r.random() < 0.4
        return parameters

    def helper_scope(self, parameters: list, kernel: bool = False):

        ints = [(p.name, None) for p in parameters if p.kind == "int"]
        scalars = {p.name: float for p in parameters if p.kind == "float"}
        for name in self.rng.sample(sorted(GLOBAL_TYPES), self.rng.choice([0, 1, 1, 2])):  # parameters first
            scalars[name] = GLOBAL_TYPES[name]
        if kernel:  # a closure reads the kernel's variables (cells; i: the first loop's variable)
            scalars.update({"s": float, "q": int, "n": int, "p": int})
            if self.rng.random() < 0.5:
                scalars["facc"] = float
            ints.append(("k", None))
        return Scope(loops=ints or [("SCALE", None)], scalars=scalars)

    def returned(self, kind: str, scope, depth: int = 2) -> str:
        value, t = self.expr(kind, scope, depth)
        if self.rng.random() < 0.9:  # several returns: one class (else maybe not type-stable)
            value, t = self.coerce(value, t, int if kind == "int" else float)
        return value

    def define_value(self, name: str) -> Helper:
        r = self.rng
        parameters = self.scalar_parameters(r.choice([1, 1, 2, 2, 3]))
        kind = r.choice(["int", "float", "float"])
        scope = self.helper_scope(parameters)
        lines = [f"def {name}({signature(parameters)}):"]
        form = r.choice(["single", "single", "local", "rebind", "branches", "branches"])
        with self.helper_body():
            if form == "local":  # a local, sometimes named like one of kernel's
                local = r.choice(["u", "acc", "t1", "j"])
                value, t = self.expr(kind, scope, 2)
                lines.append(f"    {local} = {value}")
                scope.scalars[local] = t
            if form == "rebind":  # a parameter assigned (the caller's variable must not change)
                target = r.choice(parameters)
                value, t = self.expr(target.kind, scope, 1)
                value = self.coerce(value, t, int if target.kind == "int" else float)[0]
                lines.append(f"    {target.name} {r.choice(['=', '+=', '*='])} {value}")
            if form in ("single", "local", "rebind"):
                lines.append(f"    return {self.expr(kind, scope, r.choice([1, 2, 3]))[0]}")
            else:
                lines += [f"    if {self.condition(scope, 1)}:", f"        return {self.returned(kind, scope)}"]
                if r.random() < 0.3:
                    lines += [f"    elif {self.condition(scope, 1)}:", f"        return {self.returned(kind, scope)}"]
                if r.random() < 0.4:
                    lines += ["    else:", f"        return {self.returned(kind, scope)}"]
                else:
                    lines.append(f"    return {self.returned(kind, scope)}")
        return Helper(name, "value", parameters, lines)

    def define_search(self, name: str) -> Helper:
        r = self.rng
        parameters = [Parameter("v", "array"), Parameter("x", r.choice(["int", "float"]))]
        start = r.random() < 0.3
        if start:
            parameters.append(Parameter("start", "int", default="0", keyword_only=r.random() < 0.5))
        op = r.choice([">", ">=", "<", "==", "!="])
        found, missing = r.choice([("j", "-1"), ("j", "len(v)"), ("float(v[j])", "-1.0"), ("j * 2 + 1", "0"),
                                   ("float(v[j]) * x", "float(x)")])
        header = "range(start, len(v))" if start else r.choice(["range(len(v))", "range(len(v) - 1, -1, -1)"])
        form = r.choice(["for", "for", "while", "nested", "total"])
        if form == "for":
            body = [f"    for j in {header}:", f"        if v[j] {op} x:", f"            return {found}",
                    f"    return {missing}"]
        elif form == "while":
            body = [f"    j = {'start' if start else '0'}", "    while j < len(v):", f"        if v[j] {op} x:",
                    f"            return {found}", "        j += 1", f"    return {missing}"]
        elif form == "nested":
            body = [f"    for j in {header}:", "        for w in range(j):", f"            if v[w] {op} v[j] + x:",
                    f"                return {found}", f"    return {missing}"]
        else:
            limit = r.choice(["50.0", "x", "1e300"])
            body = ["    total = 0.0", f"    for j in {header}:", "        total += float(v[j]) * x",
                    f"        if total > {limit}:", "            return total", "    return total"]
        return Helper(name, "search", parameters, [f"def {name}({signature(parameters)}):"] + body)

    def define_pair(self, name: str) -> Helper:
        r = self.rng
        kind = r.choice(["int", "float"])
        parameters = [Parameter("x", kind), Parameter("y", kind)]
        lines = [f"def {name}({signature(parameters)}):"]
        if r.random() < 0.5:
            op = r.choice(["<", ">", "<="])
            lines += [f"    if x {op} y:", "        return x, y", "    return y, x"]
        else:
            scope = self.helper_scope(parameters)
            with self.helper_body():
                first, second = self.returned(kind, scope), self.returned(r.choice(["int", "float"]), scope)
            lines.append(f"    return {first}, {second}")
        return Helper(name, "pair", parameters, lines)

    def define_writer(self, name: str) -> Helper:
        r = self.rng
        form = r.choice(["element", "element", "row", "copy"])
        if form == "element":
            parameters = [Parameter("v", "array"), Parameter("j", "index"), Parameter("x", "element")]
            store = r.choice(["v[j] = v[j] + x", "v[j] += x", "v[j] = x", "v[j] = v[j] * 2 - x"])
            body = [f"    {store}"] + (["    return v[j]"] if r.random() < 0.3 else [])
        elif form == "row":
            parameters = [Parameter("row", "array"), Parameter("x", "element"), Parameter("scale", "int", default="1")]
            body = ["    for j in range(len(row)):", "        row[j] = row[j] * scale + x"]
        else:
            parameters = [Parameter("src", "array"), Parameter("dst", "array"), Parameter("x", "element")]
            body = ["    for j in range(min(len(src), len(dst))):",
                    f"        dst[j] = src[{r.choice(['j', 'len(src) - 1 - j'])}] + x"]
        return Helper(name, "writer", parameters, [f"def {name}({signature(parameters)}):"] + body)

    def define_unsupported(self, name: str) -> Helper:
        r = self.rng
        x = Parameter("x", r.choice(["int", "float"]))
        form = r.choice(["recursion", "global", "print"])
        if form == "recursion":
            parameters = [x, Parameter("d", "depth", default="2")]
            body = ["    if d <= 0:", "        return x", f"    return {name}(x, d - 1)"]
        elif form == "global":
            parameters, body = [x], ["    global LAST", "    LAST = x", "    return x"]
        else:
            parameters, body = [x], ['    print(end="")', "    return x"]
        return Helper(name, "unsupported", parameters, [f"def {name}({signature(parameters)}):"] + body)

    def define_closure(self, name: str) -> Helper:
        r = self.rng
        parameters = self.scalar_parameters(r.choice([1, 2]))
        scope = self.helper_scope(parameters, kernel=True)
        with self.helper_body():
            value, _ = self.expr(r.choice(["int", "float"]), scope, 2)
        lines = [f"def {name}({signature(parameters)}):", f"    return {value}"]
        return Helper(name, "value", parameters, lines, place="kernel")

    def define_lambda(self, name: str, in_kernel: bool) -> Helper:
        r = self.rng
        parameters = self.scalar_parameters(r.choice([1, 2]), names=("v", "w"))
        for p in parameters:
            p.keyword_only = False
        scope = self.helper_scope(parameters, kernel=in_kernel)
        with self.helper_body():
            value, _ = self.expr(r.choice(["int", "float"]), scope, 2)
        line = f"{name} = lambda {signature(parameters)}: {value}"
        return Helper(name, "value", parameters, [line], place="kernel" if in_kernel else "module")

    # -- calls ----------------------------------------------------------------------------
    def result_class(self, helper: Helper, classes: dict):
        """The class of ``helper(**samples of classes)`` (a tuple of classes for a tuple),
        or None when the sample call fails."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                value = helper.function(**{name: sample_argument(kind) for name, kind in classes.items()})
            except Exception:
                return None
        if isinstance(value, tuple):
            return tuple(type(v) for v in value)
        return type(value)

    def argument(self, parameter: Parameter, scope, first: list, array: list, writes: bool):
        """(text, class) of one argument; ``first``: [text, class] of the expression the
        call wraps (used once); ``array``: [(spec, dimension)] of the array argument."""

        r = self.rng
        if parameter.kind == "depth":
            return str(r.choice([0, 1, 2, 3])), int
        if parameter.kind in ("int", "float"):
            target = int if parameter.kind == "int" else float
            if first:
                text, t = first.pop(0), first.pop(0)
            elif r.random() < 0.15:
                text, t = (self.int_constant(), int) if target is int else (self.float_constant(), float)
            else:
                text, t = self.expr(parameter.kind, scope, 1)
            return self.coerce(text, t, target) if r.random() < 0.85 else (text, t)
        if parameter.kind == "array":  # a 1-D array or a row A[i]; for a writer, not bool
            candidates = [a for a in self.arrays if not writes or a.element_type not in (bool, numpy.bool_)]
            if array and r.random() < 0.5:  # the same array again, or one with its element class
                same = [a for a in candidates if a.element_type is array[0][0].element_type]
                spec = r.choice(same or [array[0][0]])
            else:
                spec = r.choice(candidates)
            if spec.rank == 2:
                text, dimension = f"{spec.name}[{self.index(spec, 0, scope)}]", 1
            else:
                text, dimension = spec.name, 0
            array.append((spec, dimension))
            return text, (spec.container, spec.element_type)
        if parameter.kind == "index":
            spec, dimension = array[0] if array else (None, 0)
            return (self.index(spec, dimension, scope), int) if spec else ("0", int)
        spec = array[-1][0] if array else None  # "element": the class of the array written
        element = spec.element_type if spec else float
        kind = "int" if is_int(element) else "float"
        text, t = self.expr(kind, scope, 1)
        return self.coerce(text, t, int if kind == "int" else float)

    def helper_call(self, helper: Helper, scope, first=None):
        """(call text, class of its value) for a call of ``helper``."""
        r = self.rng
        positional, keywords, classes = [], [], {}
        pending = list(first) if first else []
        array: list = []
        by_keyword = False
        for p in helper.parameters:
            if p.default is not None and not (pending and p.kind in ("int", "float")) and r.random() < 0.4:
                by_keyword = True  # left out: a later positional parameter goes by keyword
                continue
            text, t = self.argument(p, scope, pending if p.kind in ("int", "float") else [], array,
                                    helper.role == "writer")
            classes[p.name] = t
            if p.keyword_only or by_keyword or (p.default is not None and r.random() < 0.3) or (positional and r.random() < 0.08):
                keywords.append(f"{p.name}={text}")
                by_keyword = True
            else:
                positional.append(text)
        if len(keywords) > 1 and r.random() < 0.3:
            r.shuffle(keywords)
        call = f"{helper.name}({', '.join(positional + keywords)})"
        return call, (self.result_class(helper, classes) if helper.role != "writer" else None)

    def value_helpers(self) -> list:
        """Helpers a call may wrap an expression in (closures and lambdas twice as often)."""
        return [h for h in self.visible for _ in range(2 if h.place == "kernel" else 1)
                if h.role in ("value", "search", "pair", "unsupported") and h.scalar and (self.arrays or not h.arrays)]

    def maybe_call(self, text: str, t, kind: str, scope):
        """``expr``'s value, sometimes wrapped in a call (an argument of a helper)."""
        if not self.helpers or self.call_depth >= 2 or self.hr.random() >= self.p_call:
            return text, t
        candidates = self.value_helpers()
        if not candidates:
            return text, t

        with self.helper_stream() as r:
            self.call_depth += 1
            try:
                helper = r.choice(candidates)
                call, result = self.helper_call(helper, scope, first=(text, t))
                if helper.role == "pair":
                    position = r.choice([0, 1, -1])
                    call, result = f"{call}[{position}]", (result[position] if isinstance(result, tuple) else None)
                target = int if kind == "int" else float
                if result is None or isinstance(result, tuple) or is_int(result) != (kind == "int"):
                    call, result = f"{target.__name__}({call})", target
                roll = r.random()
                if roll < 0.65:
                    return call, result
                other, other_class = self.expr(kind, scope, 1)
                other = self.coerce(other, other_class, target)[0]
                call = self.coerce(call, result, target)[0]
                if roll < 0.85:
                    test = self.condition(scope, 1)
                    return (f"({call} if {test} else {other})" if r.random() < 0.5
                            else f"({other} if {test} else {call})"), target
                return f"({other} {r.choice(['and', 'or'])} {call})", target
            finally:
                self.call_depth -= 1

    def maybe_call_in_condition(self, text: str, scope) -> str:
        if not self.helpers or self.call_depth >= 1 or self.hr.random() >= self.p_helper_condition:
            return text
        candidates = self.value_helpers()
        if not candidates:
            return text
        with self.helper_stream() as r:
            self.call_depth += 1
            try:
                call, result = self.helper_call(r.choice(candidates), scope)
                if isinstance(result, tuple):
                    call = f"{call}[0]"
                comparison = r.choice(["> 0", "<= 1.5", "!= 0", "< SCALE" if "SCALE" in scope.scalars else "> 2"])
                return f"(({text}) {r.choice(['and', 'or'])} {call} {comparison})"  # whole: a while's bound stays
            finally:
                self.call_depth -= 1

    def maybe_helper_statement(self, scope, depth: int, in_loop: bool) -> None:
        if not self.helpers or not in_loop or self.hr.random() >= self.p_helper_statement:
            return
        writable = [a for a in self.arrays if a.element_type not in (bool, numpy.bool_)]
        writers = [h for h in self.visible if h.role == "writer"] if writable else []
        pairs = [h for h in self.visible if h.role == "pair"]
        values = self.value_helpers()
        with self.helper_stream() as r:
            self.call_depth += 1
            try:
                choices = ["writer"] * 3 * bool(writers) + ["pair"] * 2 * bool(pairs) + ["value"] * bool(values)
                if not choices:
                    return
                choice = r.choice(choices)
                if choice == "writer":
                    self.emit(depth, self.helper_call(r.choice(writers), scope)[0])
                elif choice == "pair":
                    call, result = self.helper_call(r.choice(pairs), scope)
                    first, second = self.temp(), self.temp()
                    self.emit(depth, f"{first}, {second} = {call}")
                    if isinstance(result, tuple) and len(result) == 2:

                        for name, t in zip((first, second), result):
                            if t in CTYPE:
                                scope.scalars[name] = t
                        if r.random() < 0.5:
                            self.emit(depth, f"facc += float({first}) - float({second})")
                else:
                    call, _ = self.helper_call(r.choice(values), scope)
                    self.emit(depth, call)  # the value is discarded (still computed: it may raise)
            finally:
                self.call_depth -= 1
