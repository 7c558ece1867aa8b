"""Scratch lists: lists a loop writes that nothing can read once it ends (issue 28: srad's
five 2048x2048 work lists, boxed back at every call for a frame about to return).

A compiled loop boxes back every list it wrote, element by element: for a list of millions
of floats that is most of the entry's time, and for a function's own work lists it buys
nothing when the function returns right after the loop.  ``scratch_lists`` finds, for each
loop that is a statement of a function's own body followed only by a ``return`` of names
or constants (or by nothing), the names whose lists nothing outside that loop can reach:

* each is a plain local, every binding of it (all outside the loop) a fresh list built from
  constants: ``[0.0] * n``, ``[[0.0] * m for _ in range(n)]``, ``[i * 2 for i in range(n)]``,
  or unpacked from such a display or generator (``a, b = ([0.0] * n for _ in range(2))``),
  so that no row of it is another object's;
* outside the loop it appears nowhere but in those bindings, and inside it only
  subscripted, in ``len()``, or as the argument of a function called by name (an inlined
  function's array: the lowering has no way to store an array anywhere), never rebound,
  swapped, returned, iterated or handed to a method;
* no function or class nested in the function names it, and the function never reads its
  own frame (``locals()``, ``vars()``, ``eval``, ``exec``, ``dir()``, ``sys._getframe``).

Such a list dies with the frame a moment after the loop: its written elements are not
boxed back (runtime: the plan's ``NOT_BOXED_BACK`` bit).  Everything else is written back as
before, whatever the function does next.
"""
from __future__ import annotations

import ast

FRAME_READERS = frozenset({"locals", "vars", "eval", "exec", "dir", "breakpoint", "globals"})
FRAME_ATTRIBUTES = frozenset({"_getframe", "currentframe", "stack", "f_locals", "f_back", "tb_frame"})


def scratch_lists(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int, frozenset[str]]:
    """``id(loop) -> names`` for each loop of ``function``'s body that ends it (see above)."""
    body = function.body
    loops = [k for k, statement in enumerate(body) if isinstance(statement, (ast.For, ast.While))
             and _ends_function(body[k + 1:])]
    if not loops or _reads_frame(function):
        return {}
    candidates = _fresh_locals(function)
    if not candidates:
        return {}
    found = {}
    for k in loops:
        loop = body[k]
        inside = {id(node) for node in ast.walk(loop)}
        parents = {id(child): node for node in ast.walk(loop) for child in ast.iter_child_nodes(node)}
        names = frozenset(name for name in candidates
                          if _only_inside(function, inside, name) and _used_as_array(loop, parents, name))
        if names:
            found[id(loop)] = names
    return found


def _ends_function(rest: list) -> bool:
    """Nothing after the loop, or one ``return`` of names and constants (no call can see the frame)."""
    if not rest:
        return True
    if len(rest) != 1 or not isinstance(rest[0], ast.Return):
        return False
    value = rest[0].value
    parts = value.elts if isinstance(value, ast.Tuple) else [value]
    return all(part is None or isinstance(part, (ast.Name, ast.Constant)) for part in parts)


def _reads_frame(function: ast.AST) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in FRAME_READERS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in FRAME_ATTRIBUTES:
            return True
    return False


def _fresh_locals(function: ast.AST) -> set[str]:
    """Names every binding of which is a fresh list of constants, and that nothing nested,
    no parameter and no ``global``/``nonlocal`` shares."""
    arguments = function.args
    excluded = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    excluded |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    fresh: set[str] = set()
    fresh_targets: set[int] = set()   # the Name nodes those bindings store to
    nested = []
    for node in _own_nodes(function, nested):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            excluded.update(node.names)
        elif isinstance(node, ast.Assign):
            bound = _fresh_binding(node)
            fresh.update(bound)
            fresh_targets.update(id(name) for name in ast.walk(node.targets[0])
                                 if bound and isinstance(name, ast.Name))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in fresh_targets:
            excluded.add(node.id)   # another binding: for-targets, augmented, with-as, del ...
        elif isinstance(node, (ast.alias, ast.arg)):
            excluded.add((node.asname or node.name).split(".")[0] if isinstance(node, ast.alias) else node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            excluded.add(node.name)
        elif isinstance(node, ast.NamedExpr):
            excluded.add(node.target.id)
    for scope in nested:   # a closure or class body naming it could keep it alive or see it
        excluded.update(name.id for name in ast.walk(scope) if isinstance(name, ast.Name))
        excluded.update(a.arg for a in ast.walk(scope) if isinstance(a, ast.arg))
    return fresh - excluded


def _own_nodes(function: ast.AST, nested: list):
    """The function's nodes, not descending into nested functions, lambdas and classes
    (collected into ``nested``)."""
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            nested.append(node)
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def _fresh_binding(node: ast.Assign) -> set[str]:
    """The names ``node`` binds to fresh lists (none where any of its targets is not one)."""
    if len(node.targets) != 1:
        return set()   # a = b = [...]: one object, two names
    target, value = node.targets[0], node.value
    if isinstance(target, ast.Name):
        return {target.id} if _fresh(value) else set()
    if not isinstance(target, (ast.Tuple, ast.List)) or not all(isinstance(t, ast.Name) for t in target.elts):
        return set()
    names = [t.id for t in target.elts]
    if len(set(names)) != len(names):
        return set()
    if isinstance(value, (ast.Tuple, ast.List)):
        return set(names) if len(value.elts) == len(names) and all(map(_fresh, value.elts)) else set()
    if isinstance(value, (ast.GeneratorExp, ast.ListComp)) and _fresh(value.elt) and _plain_generators(value):
        return set(names)   # each element made anew
    return set()


def _fresh(node: ast.expr) -> bool:
    """A new list whose every element is a constant or another such list (built here)."""
    if isinstance(node, ast.List):
        return all(_constant(e, ()) or _fresh(e) for e in node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for listed, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(listed, ast.List) and _fresh(listed) and not _mentions_list(count):
                return True
        return False
    if isinstance(node, ast.ListComp) and _plain_generators(node):
        targets = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        return _fresh(node.elt) or _constant(node.elt, targets)
    return False


def _plain_generators(node: ast.ListComp | ast.GeneratorExp) -> bool:
    return all(not g.is_async and isinstance(g.target, ast.Name) for g in node.generators)


def _constant(node: ast.expr, names) -> bool:
    """A number made of constants and the comprehension's own targets (never a shared object)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex, bool))
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand, names)
    if isinstance(node, ast.BinOp):
        return _constant(node.left, names) and _constant(node.right, names)
    return False


def _mentions_list(node: ast.expr) -> bool:
    return any(isinstance(n, (ast.List, ast.ListComp)) for n in ast.walk(node))


def _only_inside(function: ast.AST, inside: set, name: str) -> bool:
    """``name`` is used outside the loop (the ids ``inside``) only where it is bound (fresh),
    never bound inside it."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name:
            if id(node) in inside:
                if not isinstance(node.ctx, ast.Load):
                    return False
            elif isinstance(node.ctx, ast.Load):
                return False
    return True


def _used_as_array(loop: ast.AST, parents: dict, name: str) -> bool:
    """Inside the loop (``parents``: id of a node -> its parent), ``name`` only subscripted,
    measured by ``len`` or passed to a call."""
    used = False
    for node in ast.walk(loop):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        used = True
        parent = parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node:
            continue
        if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name):
            continue   # a function the loop inlines (a method could keep it: out.append(tmp))
        if isinstance(parent, ast.keyword) and parent.value is node and isinstance(parents.get(id(parent)), ast.Call) \
                and isinstance(parents[id(parent)].func, ast.Name):
            continue
        return False
    return used
