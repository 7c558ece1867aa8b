"""Source rewrite: every ``for ... in range(...)`` loop becomes a *loop site*.

::

    try:
        __megaguards_in__ = (n, A, s)          # the loop's upward-exposed reads
    except NameError:                          # something unbound: let Python raise it
        __megaguards_in__ = None
    __megaguards_out__ = __megaguards_site__(7, __megaguards_in__)
    if __megaguards_out__ is None:
        del __megaguards_in__, __megaguards_out__
        for i in range(n): ...                 # the original loop (inner loops are sites too)
    else:
        del __megaguards_in__
        if __megaguards_out__[0] is not __megaguards_unset__: i = __megaguards_out__[0]
        ...                                    # one line per name the loop may assign
        del __megaguards_out__

Locations are copied from the loop, so tracebacks point at the user's lines.
Loops in class bodies are left alone (their name resolution differs).
"""
from __future__ import annotations

import ast
import copy
import os
import time
from typing import Callable

from ..log_setup import LAZY
from . import desugar, scratch, static_lowering, work
from .scope import assigned_names, upward_exposed_reads
from .syntax import dotted_path
from .comprehension import skip_test
from .inline import Returns
from .siteinfo import (IN_NAME, OUT_NAME, PROBING_NAME, RETURN_VALUE, RETURNED, SITE_FUNCTION, TIMED_FUNCTION,
                       UNSET_NAME, SiteInfo)

__all__ = ["IN_NAME", "OUT_NAME", "SITE_FUNCTION", "UNSET_NAME", "SiteInfo", "rewrite_module", "LoopRewriter"]


def is_range_loop(node: ast.AST) -> bool:
    return (isinstance(node, ast.For) and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range")


def is_site_loop(node: ast.AST) -> bool:
    """A range loop, or one the lowering rewrites into one (``for x in xs``, enumerate, zip,
    reversed(range(...))); whether ``xs`` is a list or array is the guard's business."""
    return is_range_loop(node) or desugar.is_element_loop(node)


# Constructs no compiled loop contains, whatever the types (see frontend/lower.py).
_NEVER_COMPILED = (ast.Try, ast.With, ast.AsyncWith, ast.Delete, ast.Global, ast.Nonlocal,
                   ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
                   ast.JoinedStr, ast.Dict, ast.Set, ast.DictComp, ast.SetComp, ast.Match,
                   ast.Yield, ast.YieldFrom, ast.Await, ast.Slice)


def never_compiles(loop: ast.For) -> bool:
    """Whether the loop holds a construct that keeps any loop in CPython (a string
    constant, ``try``, ``x in d`` ...).  Element loops (``for ch in text``) with one
    are not made sites: they would only pay the site's entry cost, every time."""
    exempt = {id(side) for node in ast.walk(loop) if isinstance(node, ast.Compare)   # constants a kernel holds
              for side in (node.left, *node.comparators) if _compared_text(node, side)}
    exempt |= _object_nones(loop)   # best = None, best is None (object_uses.py)
    exempt |= {id(node.args[0]) for node in ast.walk(loop) if isinstance(node, ast.Call)   # float("inf")
               and isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1}
    unlowered = raised(loop)   # raise ValueError(f"..."): CPython's to evaluate, when it runs the loop again
    for node in ast.walk(loop):
        if id(node) in unlowered:
            continue
        if isinstance(node, _NEVER_COMPILED):
            return True
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) \
                and not _compared_text(node, node.comparators[-1]):
            return True   # ``x in d``; ``c in "aeiou"`` compares characters
        if isinstance(node, ast.Constant) and type(node.value) not in (int, float, bool, complex) \
                and id(node) not in exempt:
            return True
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops) \
                and not all(isinstance(side, ast.Name) or id(side) in exempt for side in (node.left, *node.comparators)):
            return True   # ``x is 1``; ``a is not b`` of two names may be two objects of one list (fields.py)
    return False


def raised(loop: ast.AST) -> set:
    """The ids of the nodes of the exceptions a ``raise`` makes and of ``assert``'s messages
    (never lowered: a kernel that gets there stops, and CPython runs the loop again)."""
    parts = [part for statement in ast.walk(loop) for part in
             ((statement.exc, statement.cause) if isinstance(statement, ast.Raise) else
              (statement.msg,) if isinstance(statement, ast.Assert) else ()) if part is not None]
    return {id(node) for part in parts for node in ast.walk(part)}


def _object_nones(loop: ast.For) -> set:
    """The ids of the None constants a name holding a list's object may use (object_uses.py's
    variables: ``best = None``, ``best is None``, ``best is not None``)."""
    found = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            sides = [node.value]
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.left, ast.Name):
            sides = node.comparators
        else:
            continue
        found.update(id(side) for side in sides if isinstance(side, ast.Constant) and side.value is None)
    return found


def _compared_text(compare: ast.Compare, side: ast.expr) -> bool:
    """A str constant a kernel compares characters with: one character, or the right side
    of ``in`` (``c in "aeiou"``)."""
    if not (isinstance(side, ast.Constant) and type(side.value) is str):
        return False
    if len(compare.ops) == 1 and isinstance(compare.ops[0], (ast.In, ast.NotIn)):
        return side is compare.comparators[0] and side.value != ""
    return len(side.value) == 1


# CPython compiles at most 20 nested blocks (for, while, try, with) in one function; a site
# adds a ``try`` beside its loop, so loops nested this deep stay as written.
SITE_BLOCKS_LIMIT = 17


class LoopRewriter(ast.NodeTransformer):
    def __init__(self, filename: str, register: Callable[[SiteInfo], int], every_loop: bool = False) -> None:
        self.filename = filename
        self.register = register
        self.every_loop = every_loop  # element loops that never compile are sites too (jit strict)
        self.scopes: list[str] = []
        self.count = 0
        self.blocks = 0   # blocks around the node visited, in its function (SITE_BLOCKS_LIMIT)
        self.functions: dict = {}   # the module's functions that loop, as written (frontend/work.py)
        self.bindings: tuple | None = None   # (module's names, standard imports): static_lowering.py
        self.scratch: list[dict] = []   # per enclosing function: its loops' scratch lists (frontend/scratch.py)

    def _visit_function(self, node):
        self.scopes.append(node.name)
        self.scratch.append(scratch.scratch_lists(node))   # read before its loops become sites
        saved, self.blocks = self.blocks, 0
        try:
            return self.generic_visit(node)
        finally:
            self.scopes.pop()
            self.scratch.pop()
            self.blocks = saved

    def _visit_block(self, node):
        self.blocks += 1
        try:
            return self.generic_visit(node)
        finally:
            self.blocks -= 1

    visit_AsyncFor = visit_With = visit_AsyncWith = visit_Try = _visit_block
    visit_TryStar = _visit_block

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_ClassDef(self, node: ast.ClassDef):
        self.scopes.append(node.name)
        try:
            node.body = [self.visit(s) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                         ast.ClassDef)) else s
                         for s in node.body]
            return node
        finally:
            self.scopes.pop()

    def visit_expression(self, node: ast.expr):
        """Comprehensions, list(map(...)), sum(...), functools.reduce(...): expression sites."""
        from . import comprehension

        site = comprehension.rewrite(node, self.filename, ".".join(self.scopes) or None, self.register,
                                     self.visit)
        if site is None:
            return self.generic_visit(node)
        self.count += 1
        return site

    visit_ListComp = visit_expression
    visit_Call = visit_expression

    def visit_For(self, node: ast.For):
        if not is_site_loop(node) or (not is_range_loop(node) and not self.every_loop and never_compiles(node)) \
                or self.blocks >= SITE_BLOCKS_LIMIT:
            return self._visit_block(node)
        # Its own ``else`` or a ``return``: compiled inside a one-trip loop, where both are an inner loop's.
        loop = once_loop(node) if node.orelse or returns(node) else node
        return self.site(node, loop, tuple(dict.fromkeys([*upward_exposed_reads(loop),
                                                           *desugar.introduced_names(node)])))

    def visit_While(self, node: ast.While):
        """A ``while`` loop that counts to a bound, or that holds loops (a sieve's ``while p * p
        <= n`` around its crossing-out ``for``; a time loop): one site, so that its inner loops
        are not entered (marshalled) once per trip.  Other ``while`` loops (``while b: a, b =
        b, a % b``) stay as written: their trips cannot be told, and compiling them at their
        first entry would cost the back end's import for a loop worth microseconds."""
        if never_compiles(node) or self.blocks >= SITE_BLOCKS_LIMIT:
            return self._visit_block(node)
        loop = once_loop(node)
        live_ins = tuple(upward_exposed_reads(loop))   # with ``range``, which the guard checks
        holds_loops = any(isinstance(inner, (ast.For, ast.While)) for part in node.body for inner in ast.walk(part))
        if not holds_loops and not work.told(work.formula(node, live_ins, self.functions)):
            return self._visit_block(node)
        return self.site(node, loop, live_ins)

    def site(self, node: ast.For | ast.While, loop: ast.For, live_ins: tuple) -> list[ast.stmt]:
        """The site statements in place of ``node``; ``loop`` is what the lowering compiles
        (``node`` itself, or a ``while`` wrapped in a one-trip ``for``)."""
        live_outs = self.live_outs(node)
        if returns(node):   # the returns set a flag and a value, and break out (inline.py's way)
            loop = copy.deepcopy(loop)
            inner = loop.body[0]
            exits = Returns(RETURN_VALUE, RETURNED, False)
            loop.body = [_located(ast.Assign(targets=[ast.Name(id=RETURNED, ctx=ast.Store())],
                                             value=ast.Constant(False)), inner), exits.loop_with_flag(inner)]
            live_outs += (RETURNED, RETURN_VALUE)
        info = SiteInfo(
            filename=self.filename,
            line=node.lineno,
            function=".".join(self.scopes) or None,
            loop=copy.deepcopy(loop),
            live_ins=live_ins,
            live_outs=live_outs,
            work=work.formula(node, live_ins, self.functions),
            scratch=tuple(sorted(self.scratch[-1].get(id(node), ()))) if self.scratch else (),
        )
        # Work not told (perhaps compiled at its first entry): refused already?  (Not under
        # jit(strict=True): its error must come from the lowering with the function's real globals.)
        if not work.told(info.work) and self.bindings is not None and not self.every_loop:
            info = SiteInfo(**{name: getattr(info, name) for name in SiteInfo._fields if name != "rejected"},
                            rejected=static_lowering.refusal(copy.deepcopy(loop), *self.bindings))
        site_id = self.register(info)
        self.count += 1
        fallback = self._visit_block(copy.deepcopy(node))
        return [_located(statement, node) for statement in _site_statements(site_id, info, fallback)]

    @staticmethod
    def live_outs(loop: ast.For | ast.While) -> tuple[str, ...]:
        """Every name the loop may assign is written back: even one the function never
        reads again is visible to frame inspection (tracebacks with locals, generators,
        debuggers), so dropping it would be observable."""
        names = assigned_names(ast.Module(body=[loop], type_ignores=[]))
        paths = [dotted_path(node) for node in ast.walk(loop) if isinstance(node, ast.Attribute)
                 and isinstance(node.ctx, ast.Store)]   # self.total += x: written back once (lower.py)
        return tuple(names) + tuple(dict.fromkeys(p for p in paths if p and p.split(".")[0] not in names))


ONCE_NAME = "mg_tmp_while"   # the one-trip loop around a site (lowered like a desugared temporary)


def once_loop(node: ast.While | ast.For) -> ast.For:
    """``for mg_tmp_while in range(1): <the loop>``: every stage after the rewrite compiles
    a ``for`` site whose own loop has no ``else`` and no ``return``; a ``while``, a ``for
    ... else`` or a loop that returns is the one trip's inner loop (no report names it)."""
    loop = ast.For(target=ast.Name(id=ONCE_NAME, ctx=ast.Store()),
                   iter=ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=[ast.Constant(1)], keywords=[]),
                   body=[node], orelse=[], type_comment=None)
    return ast.fix_missing_locations(ast.copy_location(loop, node))


def returns(loop: ast.For | ast.While) -> bool:
    """Does the loop hold a ``return`` of its function (a loop holding a ``def`` or a lambda
    never compiles: such loops are left to CPython as written)?"""
    nodes = list(ast.walk(loop))
    return any(isinstance(n, ast.Return) for n in nodes) \
        and not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) for n in nodes)


def _returning(returned: int, value: int) -> ast.stmt:
    """``if out[returned] is True: return out[value]`` (None where a bare ``return`` ran),
    the temporaries deleted first as everywhere (the value kept in the one the return reads)."""
    load = lambda name: ast.Name(id=name, ctx=ast.Load())  # noqa: E731
    item = lambda index: ast.Subscript(value=load(OUT_NAME), slice=ast.Constant(index), ctx=ast.Load())  # noqa: E731
    value_or_none = ast.IfExp(test=ast.Compare(left=load(IN_NAME), ops=[ast.Is()], comparators=[load(UNSET_NAME)]),
                              body=ast.Constant(None), orelse=load(IN_NAME))
    return ast.If(test=ast.Compare(left=item(returned), ops=[ast.Is()], comparators=[ast.Constant(True)]),
                  body=[ast.Assign(targets=[ast.Name(id=IN_NAME, ctx=ast.Store())], value=item(value)),
                        ast.Delete(targets=[deleted_name(OUT_NAME)]), ast.Return(value=value_or_none)],
                  orelse=[])


def _site_statements(site_id: int, info: SiteInfo, fallback: ast.For) -> list[ast.stmt]:
    load = lambda name: ast.Name(id=name, ctx=ast.Load())  # noqa: E731
    store = lambda name: ast.Name(id=name, ctx=ast.Store())  # noqa: E731
    values = ast.Tuple(elts=[load(name) for name in info.live_ins], ctx=ast.Load())
    gather = ast.Try(
        body=[ast.Assign(targets=[store(IN_NAME)], value=values)],
        handlers=[ast.ExceptHandler(type=load("NameError"), name=None,
                                    body=[ast.Assign(targets=[store(IN_NAME)],
                                                     value=ast.Constant(None))])],
        orelse=[], finalbody=[],
    ) if info.live_ins else ast.Assign(targets=[store(IN_NAME)], value=ast.Tuple(elts=[], ctx=ast.Load()))
    call = ast.Assign(targets=[store(OUT_NAME)], value=ast.Call(
        func=load(SITE_FUNCTION), args=[ast.Constant(site_id), load(IN_NAME)], keywords=[]))
    write_back: list[ast.stmt] = []
    for index, name in enumerate(info.live_outs):
        if name == RETURNED:   # RETURN_VALUE follows it
            write_back.append(_returning(index, index + 1))
            break
        value = ast.Subscript(value=load(OUT_NAME), slice=ast.Constant(index), ctx=ast.Load())
        write_back.append(ast.If(
            test=ast.Compare(left=value, ops=[ast.IsNot()], comparators=[load(UNSET_NAME)]),
            body=[ast.Assign(targets=[_target(name)], value=copy.deepcopy(value))], orelse=[]))
    # The two temporaries are deleted before the user's code goes on, so that
    # locals() and dir() show what they show under CPython.
    forget = ast.Delete(targets=[deleted_name(IN_NAME), deleted_name(OUT_NAME)])
    forget_in = ast.Delete(targets=[deleted_name(IN_NAME)])
    # CPython's run of the loop, timed while megaguards compares it with the compiled one
    # (runtime/probe.py); otherwise one test of a built-in (an empty set).
    probed = ast.BoolOp(op=ast.And(), values=[load(PROBING_NAME), ast.Compare(
        left=ast.Constant(site_id), ops=[ast.In()], comparators=[load(PROBING_NAME)])])
    timed = ast.If(test=probed, body=[ast.Expr(ast.Call(
        func=load(TIMED_FUNCTION), args=[ast.Constant(site_id)], keywords=[]))], orelse=[])
    dispatch = ast.If(
        test=ast.Compare(left=load(OUT_NAME), ops=[ast.Is()], comparators=[ast.Constant(None)]),
        body=[forget, fallback, timed], orelse=[forget_in, *write_back, ast.Delete(targets=[deleted_name(OUT_NAME)])])
    # An entry the site skips (backing off) costs one draw, before anything is gathered.  An
    # innermost loop (entered most often: ~30 ns an entry saved) is written twice, the skip
    # running its own copy; a loop holding loops is not (the copies would double per level).
    if not any(isinstance(node, (ast.For, ast.While)) and node is not fallback for node in ast.walk(fallback)):
        return [ast.If(test=skip_test(site_id), body=[copy.deepcopy(fallback)], orelse=[gather, call, dispatch])]
    skipped = ast.Assign(targets=[store(IN_NAME), store(OUT_NAME)], value=ast.Constant(None))
    return [ast.If(test=skip_test(site_id), body=[skipped], orelse=[gather, call]), dispatch]


def _target(path: str) -> ast.expr:
    """``name`` or ``obj.attribute`` (an attribute the loop assigns) as an assignment target."""
    head, *attributes = path.split(".")
    node: ast.expr = ast.Name(id=head, ctx=ast.Load() if attributes else ast.Store())
    for index, attribute in enumerate(attributes):
        node = ast.Attribute(value=node, attr=attribute,
                             ctx=ast.Store() if index == len(attributes) - 1 else ast.Load())
    return node


def deleted_name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Del())


def _located(new: ast.stmt, old: ast.stmt) -> ast.stmt:
    for child in ast.walk(new):
        if isinstance(child, (ast.stmt, ast.expr, ast.excepthandler)) and getattr(child, "lineno", None) is None:
            ast.copy_location(child, old)
    return new


def rewrite_module(tree: ast.Module, filename: str, register: Callable[[SiteInfo], int],
                   every_loop: bool = False) -> tuple[ast.Module, int]:
    """Rewrite every range loop of a parsed module; returns the tree and the number of sites.
    ``every_loop``: element loops holding a construct that never compiles become sites too
    (``jit(strict=True)`` reports them), not only those that may compile."""
    started = time.perf_counter()
    rewriter = LoopRewriter(filename, register, every_loop)
    rewriter.functions = work.module_functions(tree)   # read before their loops become sites
    rewriter.bindings = (static_lowering.module_bindings(tree), static_lowering.standard_imports(tree))
    tree = rewriter.visit(tree)
    ast.fix_missing_locations(tree)
    LAZY.debug("rewrite %s: %d loop site(s) in %.1f ms", os.path.basename(filename),
                                          rewriter.count, 1e3 * (time.perf_counter() - started))
    return tree, rewriter.count
