"""Rendering of built-in and ``math`` calls (part of the renderer, split for size).

Each function keeps CPython's error behaviour: a domain or range error that
CPython would raise sets the kernel flag instead.
"""
from __future__ import annotations

from ..ir import nodes as ir
from ..ir.intrinsics import CLASS_TESTS, PARTS
from ..ir.types import Scalar
from .spelling import ERR

_MATH_GENERIC = {"exp", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"}
_MATH_CHECKED = {"sqrt": "mg_sqrt", "log10": "mg_log10", "log2": "mg_log2"}
_TO_INT = {"floor": "mg_f2i_floor", "ceil": "mg_f2i_ceil", "trunc": "mg_f2i_trunc"}


def render_call(renderer, node: ir.Call) -> str:
    if node.function in PARTS:
        return _part(renderer, node)
    if node.function in CLASS_TESTS:
        return _class_test(renderer, node)
    canonical = renderer.typed.functions[node.function]
    args = node.args
    result = node.type
    if canonical == "complex":  # real arguments only (typeinfer): no arithmetic, as in CPython
        if len(args) == 1 and args[0].type.is_complex:
            return renderer.expr(args[0])
        parts = [renderer.convert(a, Scalar.PY_FLOAT) for a in args] + ["0.0", "0.0"]
        return f"mg_cmake({parts[0]}, {parts[1]})"
    if canonical == "abs" and args[0].type.is_complex:
        renderer.checks += 1
        return f"mg_cabs({renderer.expr(args[0])}, {ERR})"
    as_double = [renderer.convert(a, Scalar.PY_FLOAT) for a in args] if canonical.startswith("math.") else None

    def checked(text: str) -> str:
        renderer.checks += 1
        return text

    if canonical == "abs":
        if result.is_int_or_float:
            return f"mg_num_abs({renderer.expr(args[0])})"
        if result.is_float:
            return f"fabs{'f' if result.ctype == 'float' else ''}({renderer.expr(args[0])})"
        text = checked(f"mg_abs_i64({renderer.cast(renderer.expr(args[0]), args[0].type, Scalar.PY_INT)}, {ERR})")
        return checked(f"mg_to_i32({text}, {ERR})") if result is Scalar.NP_INT32 else text
    if canonical in ("min", "max"):
        text = renderer.convert(args[0], result)   # ints and floats: each keeps its class
        for other in args[1:]:  # Python keeps the first extreme item: r = a; if (b op r) r = b
            text = f"mg_{canonical}_{result.ctype}({text}, {renderer.convert(other, result)})"
        return text
    if canonical == "bool":
        return renderer.truth(args[0])
    if canonical == "ord":   # a character is held as its code point
        return f"((int64_t){renderer.expr(args[0])})"
    if canonical == "float":
        return renderer.convert(args[0], Scalar.PY_FLOAT)
    if canonical in ("int", "round", "math.floor", "math.ceil", "math.trunc"):
        argument = args[0]
        # numpy.int64 has no __floor__/__ceil__: math.floor(x) is floor(float(x)), which
        # rounds beyond 2**53; Python ints (and narrower NumPy ints) stay exact.
        via_float = canonical in ("math.floor", "math.ceil") and argument.type is Scalar.NP_INT64
        if not argument.type.is_float and not argument.type.is_int_or_float and not via_float:
            return renderer.cast(renderer.expr(argument), argument.type, result)
        value = renderer.convert(argument, Scalar.PY_FLOAT)
        helper = {"int": "mg_f2i", "round": "mg_round_f64"}.get(canonical) or _TO_INT[canonical[5:]]
        return checked(f"{helper}({value}, {ERR})")
    if canonical == "pow":
        return renderer.binary(ir.BinOp("**", args[0], args[1], type=result))
    name = canonical[5:]
    if name in _MATH_GENERIC:
        return checked(f"mg_{name}({as_double[0]}, {ERR})")
    if name in _MATH_CHECKED:
        return checked(f"{_MATH_CHECKED[name]}({as_double[0]}, {ERR})")
    if name == "log":
        if len(args) == 1:
            return checked(f"mg_log({as_double[0]}, {ERR})")
        renderer.checks += 3
        return f"mg_div_f64(mg_log({as_double[0]}, {ERR}), mg_log({as_double[1]}, {ERR}), {ERR})"
    if name == "fabs":
        return f"fabs({as_double[0]})"
    if name in ("isnan", "isinf", "isfinite"):
        return f"({name}({as_double[0]}) != 0)"
    if name == "copysign":
        return f"copysign({as_double[0]}, {as_double[1]})"
    if name == "hypot":
        return f"mg_hypot({as_double[0]}, {as_double[1]})"
    if name in ("atan2", "fmod"):
        return checked(f"mg_{name}({as_double[0]}, {as_double[1]}, {ERR})")
    if name == "pow":
        return checked(f"mg_math_pow({as_double[0]}, {as_double[1]}, {ERR})")
    raise TypeError(f"no rendering for {canonical}")


def _class_test(renderer, node: ir.Call) -> str:
    """Whether a value is a float / its value as one (a compensated sum's step): an
    int-or-float carries its class in ``.f``; the other types have one class."""
    operand = node.args[0]
    if node.function == ".is_float":
        if operand.type.is_int_or_float:
            return f"(({renderer.expr(operand)}).f != 0.0)"
        return "1" if operand.type is Scalar.PY_FLOAT else "0"
    if operand.type.is_int_or_float:
        return f"({renderer.expr(operand)}).v"
    return renderer.convert(operand, Scalar.PY_FLOAT)


def _part(renderer, node: ir.Call) -> str:
    """``z.real`` / ``z.imag``; of a real number its value and a zero of the result's type."""
    operand = node.args[0]
    if operand.type.is_complex:
        return f"({renderer.expr(operand)}).{node.function[1:3]}"
    if node.function == ".real":
        return renderer.convert(operand, node.type)
    return "0.0" if node.type.is_float else "0"
