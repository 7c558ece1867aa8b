"""Inlining calls to user-defined Python functions (MegaGuards §3.3.1: one clone per
call site and type signature).

A call ``f(a, b)`` inside a loop is replaced, in the lowering, by ``f``'s body with
its names renamed: parameters alias the caller's argument paths (or become fresh
temporaries holding the argument values), locals become ``mg_tmp_<k>_<len><f>_<name>``
temporaries, and the names ``f`` reads from elsewhere become *routes* from the
caller's live-in: ``f.__globals__.N``, ``f.__closure__.k``, ``f.__defaults__.alpha``
(read at every entry by the guard, ``guards/signature.py``).  The body's ``return``
statements become assignments to a result temporary (``structure_returns``), so the
type inference sees every return site and the generated code has no calls at all.

Pure functions of the ``ast`` plus the function object (for its source and names).
"""
from __future__ import annotations

import ast
import functools
import re
import types
from collections import Counter

from ..errors import Unsupported
from .scope import assigned_names
from .syntax import dotted_path

MAX_DEPTH = 8             # nesting of inlined calls (f calls g calls h ...)
MAX_STATEMENTS = 2000     # of one inlined body after return structuring


@functools.lru_cache(maxsize=256)
def definition(code: types.CodeType) -> ast.FunctionDef | ast.Lambda:
    """The ``def`` (or ``lambda``) of a code object, parsed from its source file, with
    the file's line numbers.  ``Unsupported`` when the source is not available."""
    import textwrap   # here, with linecache: a process that inlines nothing skips about 2 ms

    lines, first = source_lines(code)
    if code.co_name != "<lambda>":
        try:
            return _parsed(code, lines, first)
        except Unsupported:   # cut short by its indentation (a string or brackets): inspect's block
            return _parsed(code, *source_lines(code, exact=True))
    source = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a lambda inside a larger expression: parse its line's lambda
        tree = ast.parse("(\n" + source + "\n)")
        first -= 1
    ast.increment_lineno(tree, first - 1)
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
            return node
    raise Unsupported(f"the definition of function '{code.co_name}' was not found in its source")


def _parsed(code: types.CodeType, lines: list[str], first: int) -> ast.FunctionDef:
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        raise Unsupported(f"the source of function '{code.co_name}' could not be parsed") from None
    ast.increment_lineno(tree, first - 1)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == code.co_name:
            return node
    raise Unsupported(f"the definition of function '{code.co_name}' was not found in its source")


# Code flags (inspect.CO_*, stable since Python 3.5; importing inspect costs about 3 ms).
_GENERATOR_OR_COROUTINE = 0x20 | 0x80 | 0x100 | 0x200   # generator, coroutine, iterable coroutine, async generator
_STAR_PARAMETERS = 0x04 | 0x08                          # *args, **kwargs

# What inspect.findsource accepts as the first line of a code object's definition.
_DEFINITION_LINE = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


def source_lines(code: types.CodeType, exact: bool = False) -> tuple[list[str], int]:
    """The lines of a code object's definition and its first line number.  Read through
    linecache directly: inspect.getsourcelines first maps the file back to its module by
    scanning sys.modules, about 0.1 s in a process that imported NumPy.  A ``def`` is
    delimited by indentation unless ``exact``: inspect's tokenizer first compiles its
    regular expressions, about 10 ms per process (a block cut short inside a string or
    brackets does not parse, and ``definition`` then asks again with ``exact``)."""
    import linecache

    linecache.checkcache(code.co_filename)   # as inspect does: a file edited since is read again
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if lines and 0 < first <= len(lines) and _DEFINITION_LINE.match(lines[first - 1]):
        if not exact and code.co_name != "<lambda>":
            return _indented_block(lines[first - 1:]), first
        import inspect

        try:
            return inspect.getblock(lines[first - 1:]), first
        except (IndentationError, SyntaxError, IndexError):
            pass
    import inspect

    try:  # sources only a module's loader knows (zip imports, ...)
        return inspect.getsourcelines(code)
    except (OSError, TypeError):
        raise Unsupported(f"the source of function '{code.co_name}' is not available") from None


def check_callable(function: object, name: str) -> ast.FunctionDef | ast.Lambda:
    """The definition of a function that may be inlined; ``Unsupported`` with the reason if not."""
    if not isinstance(function, types.FunctionType):
        raise Unsupported(f"'{name}' is not a plain Python function")
    code = function.__code__
    if code.co_flags & _GENERATOR_OR_COROUTINE:
        raise Unsupported(f"'{name}' is a generator or coroutine function")
    if code.co_flags & _STAR_PARAMETERS:
        raise Unsupported(f"'{name}' takes *args or **kwargs")
    node = definition(code)
    if isinstance(node, ast.FunctionDef) and node.decorator_list:
        raise Unsupported(f"'{name}' is decorated")
    return node


def parameters(node: ast.FunctionDef | ast.Lambda) -> tuple[list[str], list[str], int]:
    """(positional parameter names, keyword-only names, number of positional-only ones)."""
    arguments = node.args
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    return positional, [a.arg for a in arguments.kwonlyargs], len(arguments.posonlyargs)


def bind_arguments(node, name: str, positional_args: list, keyword_args: dict) -> dict:
    """Parameter name -> the caller's argument (any object), or None where its default
    applies.  Calls Python would reject with TypeError are ``Unsupported`` (the
    interpreter then raises the TypeError itself)."""
    positional, keyword_only, positional_only = parameters(node)
    if len(positional_args) > len(positional):
        raise Unsupported(f"'{name}' called with too many arguments")
    bound = dict(zip(positional, positional_args))
    for keyword, value in keyword_args.items():
        if keyword in bound or keyword not in positional[positional_only:] + keyword_only:
            raise Unsupported(f"'{name}' called with an unexpected or repeated keyword '{keyword}'")
        bound[keyword] = value
    arguments = node.args
    with_default = positional[len(positional) - len(arguments.defaults):] if arguments.defaults else []
    with_default += [a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    for parameter in positional + keyword_only:
        if parameter not in bound:
            if parameter not in with_default:
                raise Unsupported(f"'{name}' called without its argument '{parameter}'")
            bound[parameter] = None
    return bound


def _indented_block(lines: list[str]) -> list[str]:
    """A ``def`` (after its decorators) up to the first code line indented no deeper than
    it once its body has begun; trailing blank lines and comments outside it left out."""
    def indentation(line: str) -> int:
        return len(line) - len(line.lstrip())

    level = indentation(lines[0])
    end, body_begun = len(lines), False
    for number, line in enumerate(lines[1:], 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if indentation(line) > level:
            body_begun = True
        elif body_begun:
            end = number
            break
    while end > 1 and (not lines[end - 1].strip() or
                       (lines[end - 1].lstrip().startswith("#") and indentation(lines[end - 1]) <= level)):
        end -= 1
    return lines[:end]


@functools.lru_cache(maxsize=1024)   # per parsed definition: each call site asks again
def body_statements(node: ast.FunctionDef | ast.Lambda) -> list[ast.stmt]:
    if isinstance(node, ast.Lambda):
        return [ast.Return(value=node.body, lineno=node.lineno, col_offset=node.col_offset)]
    for statement in ast.walk(node):
        if isinstance(statement, (ast.Global, ast.Nonlocal)):
            keyword = "global" if isinstance(statement, ast.Global) else "nonlocal"
            raise Unsupported(f"function '{node.name}' declares '{keyword}' "
                              "names (writes outside its frame)", statement.lineno, statement.col_offset)
    return node.body


@functools.lru_cache(maxsize=1024)   # per parsed definition: each call site asks again
def array_parameters(node: ast.FunctionDef | ast.Lambda) -> frozenset[str]:
    """Parameters the body uses as arrays (subscripted, ``len()``, ``.shape``, iterated): an
    argument ``A[i]`` for one of them is a row of ``A``, not an element."""
    positional, keyword_only, _ = parameters(node)
    used = set()
    for statement in body_statements(node):
        for child in ast.walk(statement):
            base = None
            if isinstance(child, ast.Subscript):
                base = child.value
            elif (isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "len"
                  and child.args):
                base = child.args[0]
            elif isinstance(child, ast.Attribute) and child.attr == "shape":
                base = child.value
            elif isinstance(child, (ast.For, ast.comprehension)):   # for v in P, sum(v * v for v in P)
                base = child.iter.args[0] if isinstance(child.iter, ast.Call) and isinstance(child.iter.func, ast.Name) \
                    and child.iter.func.id in ("enumerate", "reversed") and child.iter.args else child.iter
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                used.add(base.id)
    return frozenset(used & (set(positional) | set(keyword_only)))


@functools.lru_cache(maxsize=1024)   # per parsed definition: each call site asks again
def assigned_in(node: ast.FunctionDef | ast.Lambda) -> frozenset[str]:
    assigned = set()
    for statement in body_statements(node):
        assigned.update(assigned_names(statement))
    return frozenset(assigned)


@functools.lru_cache(maxsize=1024)   # per parsed definition
def array_locals(node: ast.FunctionDef | ast.Lambda) -> tuple[tuple, tuple]:
    """Locals that only name an array held at a path (``I, J, m = self.i, self.j, self.m``
    then ``m[I]``: scimark's random generator), as ((local, path), ...), and the body with
    their assignments taken out (the lowering reads ``m[I]`` as ``self.m[I]``).  A local
    qualifies where a statement of the function's own level assigns it, alone or in a tuple
    of as many values, an attribute path of a parameter or a global that the function never
    assigns; nothing else assigns it; only later statements use it, each by a subscript or
    ``len()``; and the function neither assigns an attribute on that path nor calls a method
    of the path's head (either might put another array there)."""
    body = body_statements(node)
    if isinstance(node, ast.Lambda):
        return (), tuple(body)
    local_names = assigned_in(node)
    parents = {child: parent for parent in ast.walk(node) for child in ast.iter_child_nodes(parent)}
    stores = Counter(child.id for child in ast.walk(node) if isinstance(child, ast.Name)
                     and not isinstance(child.ctx, ast.Load))
    changed = {dotted_path(child) for child in ast.walk(node) if isinstance(child, ast.Attribute)
               and not isinstance(child.ctx, ast.Load)} - {None}
    called = {dotted_path(child.func).split(".")[0] for child in ast.walk(node)
              if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and dotted_path(child.func)}

    def array_path(target: ast.expr, value: ast.expr) -> str | None:
        """The path ``value`` names where ``target`` may stand for it, else None."""
        path = dotted_path(value)
        if not (isinstance(target, ast.Name) and stores[target.id] == 1 and path and "." in path):
            return None
        head = path.split(".")[0]
        overlaps = any(c == path or c.startswith(path + ".") or path.startswith(c + ".") for c in changed)
        return None if head in local_names or head in called or overlaps else path
    found, statements = [], []
    for index, statement in enumerate(body):
        pairs = _pairs(statement)
        aliases = [(target.id, array_path(target, value)) for target, value in pairs or ()
                   if array_path(target, value) and _used_as_array_after(target.id, body[index + 1:], statement, parents)]
        if not aliases:
            statements.append(statement)
            continue
        found += aliases
        rest = [(t, v) for t, v in pairs if not (isinstance(t, ast.Name) and t.id in dict(aliases))]
        if rest:
            targets = rest[0][0] if len(rest) == 1 else \
                ast.copy_location(ast.Tuple(elts=[t for t, _ in rest], ctx=ast.Store()), statement.targets[0])
            values = rest[0][1] if len(rest) == 1 else \
                ast.copy_location(ast.Tuple(elts=[v for _, v in rest], ctx=ast.Load()), statement.value)
            statements.append(ast.copy_location(ast.Assign(targets=[targets], value=values), statement))
    return tuple(found), tuple(statements)


def _pairs(statement: ast.stmt) -> list | None:
    """(target, value) of ``a = x`` or ``a, b = x, y`` (as many values as names), else None."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name):
        return [(target, value)]
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts) and not any(isinstance(e, ast.Starred) for e in value.elts):
        return list(zip(target.elts, value.elts))
    return None


def _used_as_array_after(name: str, later: list, statement: ast.stmt, parents: dict) -> bool:
    """Is ``name`` used only in ``later`` (not in ``statement`` itself), each time subscripted
    or in ``len()``?"""
    if any(isinstance(c, ast.Name) and c.id == name and isinstance(c.ctx, ast.Load) for c in ast.walk(statement)):
        return False
    uses = [c for s in later for c in ast.walk(s) if isinstance(c, ast.Name) and c.id == name]
    for use in uses:
        parent = parents.get(use)
        subscripted = isinstance(parent, ast.Subscript) and parent.value is use
        measured = isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" \
            and parent.args == [use]
        if not (subscripted or measured):
            return False
    return bool(uses)


# return structuring -------------------------------------------------------------

def _has_return(statements: list[ast.stmt]) -> bool:
    for statement in statements:
        for child in ast.walk(statement):
            if isinstance(child, ast.Return):
                return True
    return False


def _name(identifier: str, store: bool, at: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(id=identifier, ctx=ast.Store() if store else ast.Load()), at)


def _assign(target: str, value: ast.expr, at: ast.AST) -> ast.Assign:
    return ast.copy_location(ast.Assign(targets=[_name(target, True, at)], value=value), at)


class Returns:
    """Rewrites ``return`` so that the body ends where the function would return:
    returns in straight-line code and under ``if`` take the rest of the body into
    the other branch; returns inside loops set a *done* flag and break out."""

    def __init__(self, result: str | None, done: str, value_used: bool) -> None:
        self.result, self.done, self.value_used = result, done, value_used
        self.uses_done = False

    def returned(self, node: ast.Return) -> list[ast.stmt]:
        if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
            return [none_returned(node)] if self.value_used else []
        if self.result is None:  # the value is discarded but still evaluated (it may raise)
            return [ast.copy_location(ast.Expr(value=node.value), node)]
        return [_assign(self.result, node.value, node)]

    def tail(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for index, statement in enumerate(statements):
            rest = statements[index + 1:]
            if isinstance(statement, ast.Return):
                return out + self.returned(statement)
            if isinstance(statement, ast.Raise):   # the function ends here too (the kernel stops)
                return out + [statement]
            if isinstance(statement, ast.If) and _has_return([statement]):
                branch = ast.If(test=statement.test, body=self.tail(statement.body + rest) or [ast.Pass()],
                                orelse=self.tail(statement.orelse + rest))
                return out + [ast.copy_location(branch, statement)]
            if isinstance(statement, (ast.For, ast.While)) and _has_return(statement.body):
                self.uses_done = True
                loop = self.loop_with_flag(statement)
                after = ast.If(test=_name(self.done, False, statement), body=[ast.Pass()], orelse=self.tail(rest))
                return out + [_assign(self.done, ast.Constant(False), statement), loop,
                              ast.copy_location(after, statement)]
            out.append(statement)
        if self.value_used:   # the function ends here without 'return': its value is None
            out.append(none_returned(statements[-1] if statements else None))
        return out

    def loop_with_flag(self, loop: ast.For | ast.While) -> ast.stmt:
        copy = ast.For if isinstance(loop, ast.For) else ast.While
        fields = {k: getattr(loop, k) for k in loop._fields if k != "body"}
        return ast.copy_location(copy(**fields, body=self.in_loop(loop.body)), loop)

    def in_loop(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            if isinstance(statement, ast.Return):
                value = self.returned(statement)
                out += value + [_assign(self.done, ast.Constant(True), statement),
                                ast.copy_location(ast.Break(), statement)]
                return out
            if isinstance(statement, ast.If) and _has_return([statement]):
                branch = ast.If(test=statement.test, body=self.in_loop(statement.body) or [ast.Pass()],
                                orelse=self.in_loop(statement.orelse))
                out.append(ast.copy_location(branch, statement))
            elif isinstance(statement, (ast.For, ast.While)) and _has_return(statement.body):
                out.append(self.loop_with_flag(statement))
                stop = ast.If(test=_name(self.done, False, statement),
                              body=[ast.copy_location(ast.Break(), statement)],
                              orelse=[])
                out.append(ast.copy_location(stop, statement))
            else:
                out.append(statement)
        return out


def none_returned(where: ast.AST | None) -> ast.Raise:
    """Where an inlined function whose value is used returns None: the kernel stops there
    with a flag, and CPython runs the loop and gives the None itself (no kernel value is
    None; frontend/lower.py makes it ir.Raise(returned_none=True))."""
    marker = ast.Raise(exc=None, cause=None)
    marker.returns_none = True
    return ast.copy_location(marker, where) if where is not None else ast.fix_missing_locations(marker)


def structure_returns(statements: list[ast.stmt], result: str | None, done: str, value_used: bool,
                      function: str) -> list[ast.stmt]:
    """The body with every ``return`` turned into an assignment to ``result`` (None: the
    value is discarded), so that control reaches the end exactly where the function
    would have returned."""
    rewritten = Returns(result, done, value_used).tail(list(statements))
    size = sum(1 for statement in rewritten for _ in ast.walk(statement))
    if size > 50 * MAX_STATEMENTS:
        raise Unsupported(f"function '{function}' is too large to inline")
    return rewritten
