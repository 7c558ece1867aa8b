"""Which names a loop reads before writing them, and which names it assigns.

Pure functions over Python ``ast``.  A read is *upward exposed* when no
assignment earlier in the same iteration definitely binds the name: its value
must come from before the loop (or from an earlier iteration, whose value also
started before the loop).  Those names are the site's live-ins; every name the
loop may assign is a live-out.
"""
from __future__ import annotations

import ast

_SCOPE_NODES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _names_read(node: ast.AST, local: frozenset[str] = frozenset()) -> list[str]:
    """Name loads in an expression, in evaluation order (roughly; order only fixes
    the argument order of the site, not semantics). Names a lambda or comprehension
    binds are its own, not reads of the enclosing scope."""
    if isinstance(node, ast.Name):
        return [node.id] if isinstance(node.ctx, ast.Load) and node.id not in local else []
    if isinstance(node, ast.Lambda):
        arguments = node.args
        local = local | {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                         *filter(None, (arguments.vararg, arguments.kwarg)))}
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        local = local | {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    return [name for child in ast.iter_child_nodes(node) for name in _names_read(child, local)]


def assigned_names(node: ast.AST) -> list[str]:
    """Every name a statement (tree) may bind, in source order, without duplicates."""
    seen: dict[str, None] = {}
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            seen.setdefault(child.id, None)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            seen.setdefault(child.name, None)
        elif isinstance(child, ast.alias):
            seen.setdefault((child.asname or child.name).split(".")[0], None)
        elif isinstance(child, ast.ExceptHandler) and child.name:
            seen.setdefault(child.name, None)
    return list(seen)


class _Exposure:
    def __init__(self) -> None:
        self.exposed: dict[str, None] = {}

    def read(self, expression: ast.AST | None, defined: frozenset[str]) -> None:
        if expression is None:
            return
        for name in _names_read(expression):
            if name not in defined:
                self.exposed.setdefault(name, None)

    def block(self, statements: list[ast.stmt], defined: frozenset[str]) -> frozenset[str]:
        for statement in statements:
            defined = self.statement(statement, defined)
        return defined

    def statement(self, node: ast.stmt, defined: frozenset[str]) -> frozenset[str]:
        if isinstance(node, ast.Assign):
            self.read(node.value, defined)
            for target in node.targets:
                self._target_reads(target, defined)
            return defined | _bound_by_targets(node.targets)
        if isinstance(node, ast.AnnAssign):
            self.read(node.value, defined)
            self._target_reads(node.target, defined)
            return defined | (_bound_by_targets([node.target]) if node.value else frozenset())
        if isinstance(node, ast.AugAssign):
            self.read(node.value, defined)
            if isinstance(node.target, ast.Name):
                if node.target.id not in defined:
                    self.exposed.setdefault(node.target.id, None)
                return defined | {node.target.id}
            self.read(node.target, defined)
            return defined
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.read(node.iter, defined)
            inner = defined | _bound_by_targets([node.target])
            self.block(node.body, inner)
            self.block(node.orelse, defined)
            return defined
        if isinstance(node, ast.While):
            self.read(node.test, defined)
            self.block(node.body, defined)
            self.block(node.orelse, defined)
            return defined
        if isinstance(node, ast.If):
            self.read(node.test, defined)
            after_body = self.block(node.body, defined)
            after_else = self.block(node.orelse, defined)
            return after_body & after_else
        # Anything else: every name it reads counts as exposed; it binds nothing for sure.
        # (Loops containing such statements are rejected by lowering, so precision here
        # only matters for the argument list.)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.statement(child, defined)
            else:
                self.read(child, defined)
        return defined

    def _target_reads(self, target: ast.AST, defined: frozenset[str]) -> None:
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            self.read(target, defined)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target_reads(element, defined)
        elif isinstance(target, ast.Starred):
            self._target_reads(target.value, defined)


def _bound_by_targets(targets: list[ast.AST]) -> frozenset[str]:
    names = set()
    for target in targets:
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names |= _bound_by_targets(list(target.elts))
        elif isinstance(target, ast.Starred):
            names |= _bound_by_targets([target.value])
    return frozenset(names)


def upward_exposed_reads(loop: ast.For) -> list[str]:
    """Names the loop (its ``range`` arguments included) reads before binding them."""
    exposure = _Exposure()
    exposure.statement(loop, frozenset())
    return list(exposure.exposed)

