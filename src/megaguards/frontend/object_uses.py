"""The prescan of a site's loop for lists of objects used through their numeric fields
(frontend/fields.py lowers them): which lists qualify and at which depth, the names that
stand for one of their objects (``for p in ps``, ``b = bodies[i]``: aliases; ``best = p``,
``best = None``: variables, anywhere in the loop), the methods called on those objects and
the functions they are passed to, whose fields are read from the definitions
(``with_method_fields``), and the lists collecting them (``out.append(p)``).  A list whose
objects are used any other way (``out[0] = p``, a function passing its object on) is not
one: the lowering then gives its usual reasons, or the function's.
"""
from __future__ import annotations

import ast
from collections import Counter

from ..errors import Unsupported
from ..ir import nodes as ir
from .. import record as records
from ..record import record
from . import inline
from .syntax import dotted_path


@record
class ObjectUses:
    """What the prescan found: list name -> (rank, fields used), alias name -> its list, and
    the aliases an assignment binds (``b = bodies[i]``: the index is checked there)."""

    lists: dict
    aliases: dict
    checked: frozenset = frozenset()
    methods: dict = records.field(default_factory=dict)   # list -> methods called on its aliases (p.update())
    refused: dict = records.field(default_factory=dict)   # alias -> why its methods keep the loop in CPython
    compared: frozenset = frozenset()   # lists whose objects are compared (``b1 is not b2``, ``b1 != b2``)
    passed: dict = records.field(default_factory=dict)   # list -> (function path, position) its aliases are passed to
    variables: dict = records.field(default_factory=dict)   # name -> list: ``best = p``, holding one of its objects
    collected: dict = records.field(default_factory=dict)   # list appended to -> the list whose objects it collects


NONE = ObjectUses({}, {})
METHOD_DEPTH = 3   # methods calling methods of the same object (self.helper()), at most this deep


def object_uses(loop: ast.For) -> ObjectUses:
    """The named lists whose items the site's loop uses only through their fields, and the
    element-loop targets (``for p in ps``, ``for i, p in enumerate(ps)``) that stand for them."""
    parents = {child: node for node in ast.walk(loop) for child in ast.iter_child_nodes(node)}
    stores = Counter(node.id for node in ast.walk(loop) if isinstance(node, ast.Name)
                     and not isinstance(node.ctx, ast.Load))
    stored = {dotted_path(node) for node in ast.walk(loop) if isinstance(node, ast.Attribute)
              and not isinstance(node.ctx, ast.Load)}

    def rebound(path: str) -> bool:
        """Does the loop rebind the list's path (its head, or an attribute on the way)?"""
        return bool(stores[path.split(".")[0]]) or any(path == s or path.startswith(s + ".") for s in stored if s)
    aliases = {}   # alias -> (list name, its loop, the list's name node, the statement binding it or None)
    checked = set()   # aliases bound by an assignment of the loop's body (``b = bodies[i]``)
    for node in ast.walk(loop):
        if isinstance(node, ast.For) and not node.orelse:
            source, target = node.iter, node.target
            if (isinstance(source, ast.Call) and dotted_path(source.func) == "enumerate" and len(source.args) == 1
                    and not source.keywords and isinstance(target, ast.Tuple) and len(target.elts) == 2):
                source, target = source.args[0], target.elts[1]
            if list_path(source) and isinstance(target, ast.Name) and stores[target.id] == 1:
                aliases[target.id] = (list_path(source), node, source, None)
            for statement in node.body:   # ``p = ps[k]``: a comprehension's element (comprehension.py) or b1 = ...
                if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                    continue
                target, value = statement.targets[0], statement.value
                if (isinstance(target, ast.Name) and stores[target.id] == 1 and isinstance(value, ast.Subscript)
                        and list_path(value.value) and not isinstance(value.slice, (ast.Tuple, ast.Slice))):
                    aliases[target.id] = (list_path(value.value), node, value.value, statement)
                    if not getattr(statement, "element_bind", False):
                        checked.add(target.id)
    variables = _object_variables(loop, aliases, parents)
    lists: dict[str, list] = {}   # name -> [rank or None, fields]
    refused: set[str] = set()
    methods: dict[str, set] = {}
    passed: dict[str, set] = {}
    compared: set[str] = set()
    collected: dict[str, set] = {}   # out.append(p): out -> the lists of the objects appended

    def use(name: str, rank: int | None, field: str | None) -> None:
        """A use of list ``name``: its items' ``field`` at subscript depth ``rank`` (None: a length)."""
        known = lists.setdefault(name, [None, set()])
        if rank is not None:
            if rank == 0 or known[0] not in (None, rank):
                refused.add(name)
            known[0] = rank
        if field is not None:
            known[1].add(field)

    def source_of(name: str) -> str | None:   # the list an object name stands for
        return aliases[name][0] if name in aliases else variables.get(name)

    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and source_of(node.id) and not isinstance(node.ctx, ast.Store):
            name = node.id
            if name in aliases:
                source, scope, _, statement = aliases[name]
                inside = _inside(node, scope, parents, statement)
            else:   # a variable holds its object (or None) anywhere in the loop
                source, inside = variables[name], isinstance(node.ctx, ast.Load)
            field, method = _field(node, parents), _method(node, parents)
            other, function = _compared_with(node, parents), _passed_to(node, parents, source_of)
            kept, collector = _kept_by(node, parents), _appended_to(node, parents)
            if inside and collector is not None and collector != source and source_of(collector) is None:
                collected.setdefault(collector, set()).add(source)   # out.append(p): its index, then p
                use(source, 1, None)
            elif inside and isinstance(other, ast.Name) and source_of(other.id) == source:
                compared.add(source)   # b1 is not b2, two objects of one list: their indices compared
            elif inside and (_is_none_test(node, parents) or (kept is not None and variables.get(kept) == source)):
                continue   # best is None; best = p
            elif function is not None and inside:
                use(source, 1, None)
                passed.setdefault(source, set()).add(function)
            elif (field is None and method is None) or not inside:
                refused.add(aliases.pop(name)[0] if name in aliases else variables.pop(name))
            elif method is not None:
                use(source, 1, None)
                methods.setdefault(source, set()).add(method)
            else:
                use(source, 1, field)
            continue
        parent = parents.get(node)
        if (not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(node.ctx, ast.Load)
                or (isinstance(parent, ast.Attribute) and parent.value is node)):
            continue   # a list is named by a whole path: ``ps``, ``self.bodies``
        name = list_path(node)
        if name is None or rebound(name):
            continue
        if any(node is header for _, _, header, _ in aliases.values()):
            use(name, 1, None)
        elif _in_length(node, parents):
            use(name, None, None)
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            top, rank = _subscripts(parent, parents)
            field = _field(top, parents)
            function = None if rank != 1 or field is not None or _in_length(top, parents) else \
                _passed_to(top, parents, source_of)
            if field is not None:
                use(name, rank, field)
            elif rank == 1 and variables.get(_kept_by(top, parents)) == name:   # best = ps[k]
                use(name, 1, None)
            elif function is not None:   # f(ps[i])
                use(name, 1, None)
                passed.setdefault(name, set()).add(function)
            elif not _in_length(top, parents):
                refused.add(name)
    found = {name: (rank, frozenset(fields)) for name, (rank, fields) in lists.items()
             if name not in refused and (fields or name in methods or name in passed) and not rebound(name)}
    kept = {alias: source for alias, (source, _, _, _) in aliases.items() if source in found}
    return ObjectUses(found, kept, frozenset(checked & set(kept)),
                      {name: frozenset(called) for name, called in methods.items() if name in found},
                      compared=frozenset(compared & set(found)),
                      passed={name: frozenset(calls) for name, calls in passed.items() if name in found},
                      variables={name: source for name, source in variables.items() if source in found},
                      collected={out: next(iter(lists)) for out, lists in collected.items()
                                 if len(lists) == 1 and next(iter(lists)) in found})


def _object_variables(loop: ast.For, aliases: dict, parents: dict) -> dict:
    """The names every assignment of which in the loop gives one object of one list, or None
    (``best = p``, ``best = ps[k]``, ``best = other``, ``best = None``): the kernel keeps
    the object's index in them (the list's length for None); the guard finds the index of
    the object they hold at entry, and the site gives them their object after the run."""
    sources: dict[str, set] = {}
    for node in ast.walk(loop):
        if not isinstance(node, ast.Name) or isinstance(node.ctx, ast.Load) or node.id in aliases:
            continue
        statement = parents.get(node)
        value = statement.value if isinstance(statement, ast.Assign) and statement.targets == [node] else None
        found = sources.setdefault(node.id, set())
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        if isinstance(value, ast.Name):
            found.add(value)   # resolved below: an alias where it names an object, or another variable
        elif isinstance(value, ast.Subscript) and list_path(value.value) \
                and not isinstance(value.slice, (ast.Tuple, ast.Slice)):
            found.add(list_path(value.value))
        else:
            found.add(None)   # a loop target, an augmented assignment, unpacking, another value, del
    variables: dict[str, str] = {}
    while True:   # best = other: known once other is
        grown = False
        for name, found in sources.items():
            lists = {_list_of(item, aliases, variables, parents) for item in found}
            if name not in variables and len(lists) == 1 and None not in lists:
                variables[name], grown = lists.pop(), True
        if not grown:
            return variables


def _list_of(item, aliases: dict, variables: dict, parents: dict) -> str | None:
    """The list whose object an assigned value is: a list path already, an alias where it
    names an object, a variable already known; else None."""
    if not isinstance(item, ast.Name):
        return item
    if item.id in aliases:
        source, scope, _, statement = aliases[item.id]
        return source if _inside(item, scope, parents, statement) else None
    return variables.get(item.id)


def _kept_by(node: ast.Name, parents: dict) -> str | None:
    """The name ``node`` is assigned to (``best = node``), else None."""
    statement = parents.get(node)
    if isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None


def _appended_to(node: ast.Name, parents: dict) -> str | None:
    """The list path ``out`` of ``out.append(node)``, else None."""
    call = parents.get(node)
    if isinstance(call, ast.Call) and call.args == [node] and not call.keywords \
            and isinstance(call.func, ast.Attribute) and call.func.attr == "append":
        return list_path(call.func.value)
    return None


def _is_none_test(node: ast.expr, parents: dict) -> bool:
    """Is ``node`` one side of ``node is None`` (or ``is not``)?"""
    parent = parents.get(node)
    return (isinstance(parent, ast.Compare) and len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.Is, ast.IsNot))
            and any(isinstance(side, ast.Constant) and side.value is None for side in (parent.left, *parent.comparators)))


def with_method_fields(uses: ObjectUses, resolve) -> ObjectUses:
    """The fields the methods called on the lists' objects use (``p.update(dt)`` reading and
    setting ``self.x``), found in the methods' definitions (``resolve`` gives the function the
    objects' class holds); a list whose method cannot be read so is dropped, with its aliases
    (the lowering then says why)."""
    if not uses.methods and not uses.passed:
        return uses
    lists, reasons = dict(uses.lists), {}
    for name in set(uses.methods) | set(uses.passed):
        fields = set(lists[name][1])
        try:
            for method in uses.methods.get(name, ()):
                fields |= _method_fields(name, method, resolve, 1)
            for path, position in uses.passed.get(name, ()):
                fields |= _passed_fields(name, path, position, resolve)
            if not fields or lists[name][0] != 1:
                raise Unsupported(f"the functions the items of '{name}' are passed to use none of their fields")
        except Unsupported as problem:
            del lists[name]
            if uses.lists[name][1] or name in uses.methods:   # only passed on (rows, say): no object list
                reasons[name] = problem.reason
            continue
        lists[name] = (1, frozenset(fields))
    aliases = {alias: source for alias, source in uses.aliases.items() if source in lists}
    refused = {alias: reasons[source] for alias, source in uses.aliases.items() if source in reasons}
    return ObjectUses(lists, aliases, uses.checked & set(aliases), {n: m for n, m in uses.methods.items() if n in lists},
                      refused, uses.compared & set(lists), {n: c for n, c in uses.passed.items() if n in lists},
                      {name: source for name, source in uses.variables.items() if source in lists},
                      {out: source for out, source in uses.collected.items() if source in lists})


def _method_fields(array: str, method: str, resolve, depth: int) -> set:
    """The fields ``method`` of the objects of ``array`` reads or sets through its first
    parameter, and those of the methods it calls on it; Unsupported if it uses that
    parameter otherwise (passes it on, rebinds it)."""
    found = resolve(ir.field_path(array, method)) if resolve is not None else None
    if found is None or depth > METHOD_DEPTH:
        raise Unsupported(f"method '{method}' of the items of '{array}' is not a plain Python function their "
                          "class holds (or one of them hides it), or calls methods more than 3 deep")
    definition = inline.check_callable(found[0], method)
    if not isinstance(definition, ast.FunctionDef) or not definition.args.args:
        raise Unsupported(f"method '{method}' takes no object")
    # A method of a field's objects (p.pos.norm()): what it uses are fields of that field.
    return _parameter_fields(array, definition, 0, f"method '{method}'", resolve, depth, method.rpartition(".")[0])


def _passed_fields(array: str, path: str, position: int, resolve) -> set:
    """The fields the function at ``path`` reads or sets through its parameter number
    ``position``, which an object of ``array`` is passed to (``kick(p, dt)``)."""
    found = resolve(path) if resolve is not None else None
    if found is None or found[1] is not None:
        raise Unsupported(f"'{path}', which the items of '{array}' are passed to, is not a plain Python function")
    definition = inline.check_callable(found[0], path)
    parameters = definition.args.posonlyargs + definition.args.args
    if not isinstance(definition, ast.FunctionDef) or position >= len(parameters):
        raise Unsupported(f"'{path}' takes the items of '{array}' in no plain parameter")
    return _parameter_fields(array, definition, position, f"function '{path}'", resolve, 1)


def _parameter_fields(array: str, definition: ast.FunctionDef, position: int, what: str, resolve,
                      depth: int, within: str = "") -> set:
    """The fields ``definition`` reads or sets through its parameter number ``position``, and
    those of the methods it calls on it; Unsupported if it uses that parameter otherwise
    (passes it on, rebinds it)."""
    parameter = (definition.args.posonlyargs + definition.args.args)[position]
    own = parameter.arg
    parents = {child: node for node in ast.walk(definition) for child in ast.iter_child_nodes(node)}
    fields: set = set()
    for node in ast.walk(definition):
        if not (isinstance(node, ast.Name) and node.id == own) or node is parameter:
            continue
        field, called = _field(node, parents), _method(node, parents)
        if not isinstance(node.ctx, ast.Load) or (field is None and called is None):
            raise Unsupported(f"{what} uses '{own}' other than through its fields")
        prefix = within + "." if within else ""
        if field is not None:
            fields.add(prefix + field)
        else:
            fields |= _method_fields(array, prefix + called, resolve, depth + 1)
    return fields


def _attributes(node: ast.expr, parents: dict) -> tuple[list, bool] | None:
    """The attributes taken on ``node`` one after the other (``node.pos.x``: ["pos", "x"])
    and whether the last is called (``node.pos.norm()``); None where one on the way is not
    read or the last is deleted."""
    parent = parents.get(node)
    if not isinstance(parent, ast.Attribute) or parent.value is not node:
        return None
    chain = [parent.attr]
    while True:
        above = parents.get(parent)
        if isinstance(above, ast.Call) and above.func is parent:
            return chain, True
        if not (isinstance(above, ast.Attribute) and above.value is parent):
            return None if isinstance(parent.ctx, ast.Del) else (chain, False)
        if not isinstance(parent.ctx, ast.Load):
            return None
        chain.append(above.attr)
        parent = above


def _field(node: ast.expr, parents: dict) -> str | None:
    """The attribute read or assigned on ``node`` (``node.x``), or a field of fields
    (``node.pos.x``: "pos.x"), with no call on it (``p.update()`` and ``p.pos.norm()`` do not
    qualify), else None."""
    found = _attributes(node, parents)
    return ".".join(found[0]) if found is not None and not found[1] else None


def _compared_with(node: ast.Name, parents: dict) -> ast.Name | None:
    """The other name of ``a is b``, ``a is not b``, ``a == b`` or ``a != b`` that ``node`` is
    one side of, else None."""
    parent = parents.get(node)
    if not (isinstance(parent, ast.Compare) and len(parent.ops) == 1
            and isinstance(parent.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))):
        return None
    other = parent.comparators[0] if parent.left is node else parent.left
    return other if isinstance(other, ast.Name) else None


def _passed_to(node: ast.expr, parents: dict, source_of) -> tuple[str, int] | None:
    """(the function's path, the parameter's position) of ``f(..., node, ...)``, ``node`` (an
    object name, ``ps[i]``) a positional argument of a call of a plain path (``kick``,
    ``physics.kick``), or of a method of an object (``p.heavier(best)``: the method of the
    items of ``p``'s list, ``node`` after ``self``); else None.  ``source_of``: the list an
    object name stands for, or None."""
    call = parents.get(node)
    if not isinstance(call, ast.Call) or node not in call.args or call.func is node:
        return None
    path = dotted_path(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if path is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    head, _, method = path.partition(".")
    if source_of(head) is None:
        return path, call.args.index(node)
    return (ir.field_path(source_of(head), method), call.args.index(node) + 1) if "." not in method else None


def list_path(node: ast.expr) -> str | None:
    """The path naming a list (``ps``, ``self.bodies``), else None."""
    return dotted_path(node) if isinstance(node, (ast.Name, ast.Attribute)) else None


def _method(node: ast.expr, parents: dict) -> str | None:
    """The method called on ``node`` (``node.update(dt)``), or on the object one of its
    fields holds (``node.pos.norm()``: "pos.norm"), else None."""
    found = _attributes(node, parents)
    return ".".join(found[0]) if found is not None and found[1] else None


def _subscripts(node: ast.Subscript, parents: dict) -> tuple[ast.expr, int]:
    """The outermost of a chain of subscripts ``ps[i][j]`` starting at ``node``, and its depth."""
    rank = 1
    while isinstance(parents.get(node), ast.Subscript) and parents[node].value is node:
        node, rank = parents[node], rank + 1
    if isinstance(node.slice, ast.Tuple) or isinstance(node.slice, ast.Slice):
        return node, 0   # ps[i, j] or a slice: not a field access
    return node, rank


def _in_length(node: ast.expr, parents: dict) -> bool:
    parent = parents.get(node)
    return isinstance(parent, ast.Call) and dotted_path(parent.func) == "len" and parent.args == [node]


def _inside(node: ast.AST, loop: ast.For, parents: dict, statement: ast.stmt | None) -> bool:
    """Is ``node`` in ``loop``'s body, after ``statement`` (one of the body's) if given: where
    the alias names an object?"""
    while node is not None:
        parent = parents.get(node)
        if parent is loop:
            if node not in loop.body:
                return False
            return statement is None or loop.body.index(node) > loop.body.index(statement)
        node = parent
    return False
