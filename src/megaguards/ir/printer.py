"""The IR as text: Python-like, one statement a line, each with its source line.

    for i in range(0, len(a) - 1, 1):             # line 3
        b[i] = (a[i + 1] * 2.0) + 1.0             # line 4: py_float

Every operator's result inside another is parenthesized, so the text is unambiguous
without precedence rules.  Types, where type inference has set them, follow the statement as
a comment (the type of its value or test).  ``format_typed`` adds what type inference
decided about the loop's variables and arrays.  Pure: no analysis runs here.
"""
from __future__ import annotations

from . import nodes as ir

INDENT = "    "
COMMENT_COLUMN = 48


def format_expression(node: ir.Expr, top: bool = True) -> str:
    """``node`` as text; an operator's result is parenthesized unless it stands alone
    (``top``: a statement's value, a subscript, an argument)."""
    if isinstance(node, ir.Const):
        return repr(node.value)
    if isinstance(node, ir.Name):
        return node.id
    if isinstance(node, ir.Load):
        return f"{node.array}[{_list(node.indices)}]"
    if isinstance(node, ir.Length):
        prefix = "".join(f"[{format_expression(index)}]" for index in node.prefix)
        return f"len({node.array}{prefix})"
    if isinstance(node, ir.Shape):
        return f"{node.array}.shape[{node.dim}]"
    if isinstance(node, ir.Call):
        return f"{node.function}({_list(node.args)})"
    if isinstance(node, ir.BinOp):
        text = f"{format_expression(node.left, False)} {node.op} {format_expression(node.right, False)}"
    elif isinstance(node, ir.UnaryOp):
        text = f"{node.op}{' ' if node.op == 'not' else ''}{format_expression(node.operand, False)}"
    elif isinstance(node, ir.Compare):
        parts = [format_expression(node.left, False)]
        for op, right in zip(node.ops, node.comparators):
            parts += [op, format_expression(right, False)]
        text = " ".join(parts)
    elif isinstance(node, ir.BoolOp):
        text = f" {node.op} ".join(format_expression(value, False) for value in node.values)
    elif isinstance(node, ir.IfExp):
        text = (f"{format_expression(node.body, False)} if {format_expression(node.test, False)} "
                f"else {format_expression(node.orelse, False)}")
    else:
        return f"<{type(node).__name__}>"
    return text if top else f"({text})"


def _list(expressions) -> str:
    return ", ".join(map(format_expression, expressions))


def _type_name(node: ir.Expr | None) -> str:
    return "" if node is None or node.type is None else repr(node.type)


def _line(depth: int, text: str, node: ir.Node, typed: ir.Expr | None = None) -> str:
    notes = [f"line {node.line}"] if node.line else []
    if _type_name(typed):
        notes.append(_type_name(typed))
    code = INDENT * depth + text
    return f"{code.ljust(COMMENT_COLUMN - 1)} # {': '.join(notes)}" if notes else code


def format_statements(statements, depth: int = 0) -> list[str]:
    lines: list[str] = []
    for statement in statements:
        lines += _statement(statement, depth)
    return lines


def _statement(node: ir.Stmt, depth: int) -> list[str]:
    if isinstance(node, ir.For):
        header = f"for {node.var} in range({_list((node.start, node.stop, node.step))}):"
        return [_line(depth, header, node)] + _block(node.body, depth + 1)
    if isinstance(node, ir.While):
        return [_line(depth, f"while {format_expression(node.test)}:", node, node.test)] + _block(node.body, depth + 1)
    if isinstance(node, ir.If):
        lines = [_line(depth, f"if {format_expression(node.test)}:", node, node.test)] + _block(node.body, depth + 1)
        if node.orelse:
            lines += [INDENT * depth + "else:"] + _block(node.orelse, depth + 1)
        return lines
    if isinstance(node, ir.EmptyReduction):
        flags = ", ".join(flag for flag in ("raises",) if getattr(node, flag))
        text = f"{node.target} = {format_expression(node.value)}  # empty reduction" + (f" ({flags})" if flags else "")
        return [_line(depth, text, node, node.value)]
    if isinstance(node, ir.Assign):
        return [_line(depth, f"{node.target} = {format_expression(node.value)}", node, node.value)]
    if isinstance(node, ir.Store):
        return [_line(depth, f"{node.array}[{_list(node.indices)}] = {format_expression(node.value)}", node, node.value)]
    if isinstance(node, ir.RowSwap):
        first, second = format_expression(node.first), format_expression(node.second)
        return [_line(depth, f"{node.array}[{first}], {node.array}[{second}] = {node.array}[{second}], "
                             f"{node.array}[{first}]  # rows swapped", node)]
    if isinstance(node, ir.Rebind):
        return [_line(depth, f"{', '.join(node.targets)} = {', '.join(node.sources)}  # arrays swapped", node)]
    if isinstance(node, ir.AppendAt):
        return [_line(depth, f"{node.array}[{format_expression(node.value)}].append({node.values}[-1])", node,
                      node.value)]
    if isinstance(node, ir.AppendRow):
        return [_line(depth, f"{node.array}.append({node.row})  # a row the loop built", node)]
    if isinstance(node, ir.Append):
        return [_line(depth, f"{node.array}.append({format_expression(node.value)})", node, node.value)]
    if isinstance(node, (ir.Break, ir.Continue, ir.Pass, ir.Raise)):
        return [_line(depth, type(node).__name__.lower(), node)]
    return [_line(depth, f"<{type(node).__name__}>", node)]


def _block(statements, depth: int) -> list[str]:
    return format_statements(statements, depth) or [INDENT * depth + "pass"]


def format_loop(loop: ir.Loop) -> str:
    """A lowered loop: its live-ins, arrays, assigned scalars and called functions, then the nest."""
    arrays = ", ".join(f"{use.name}[{use.rank}]{' written' if use.written else ''}" for use in loop.arrays)
    header = [f"# arrays: {arrays or '-'}",
              f"# scalars read: {', '.join(loop.scalars_in) or '-'}",
              f"# scalars assigned: {', '.join(loop.assigned) or '-'}"]
    if loop.functions:
        header.append(f"# functions: {', '.join(loop.functions)}")
    return "\n".join(header + format_statements((loop.body,))) + "\n"


def format_typed(typed) -> str:
    """A typed loop (``analysis.typeinfer.TypedLoop``): every variable's C representation and
    the types assigned to it, the arrays' element types, then the typed nest."""
    header = []
    for name, scalar in sorted(typed.variables.items()):
        assigned = typed.assigned_types.get(name)
        origin = "live-in" if name in typed.live_ins else "local"
        kinds = f" assigned {' | '.join(sorted(map(repr, assigned)))}" if assigned else ""
        header.append(f"# {name}: {scalar!r} ({origin}){kinds}")
    for name, info in typed.arrays.items():
        header.append(f"# {name}: array of {info.element!r}, rank {info.rank}, {'list' if info.is_list else 'ndarray'}")
    return "\n".join(header + format_statements((typed.body,))) + "\n"
