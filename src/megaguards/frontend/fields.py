"""Lists of objects with numeric fields (issue 29): ``for p in particles: p.x += p.vx * dt``,
``particles[i].x``, ``b1 = bodies[i]`` then ``b1.vx``, methods ``p.advance(dt)``, lists held
by an object (``self.bodies``), and ``a is not b`` of two objects of one list.

Each field the loop uses is an array of its own to the later stages, named
``particles.__items__.x`` (``ir.field_path``): at each entry the guard reads the field of
every object into a list (guards/fields.py ``FieldReader``), the kernel runs on that list as
on any other, and after a clean run the values the loop changed are set on the objects.  A
name standing for an object (``p``) holds its index in the list in the kernel, and the site
gives the name the object at that index after the run (``Loop.object_aliases``), as CPython's
loop leaves it.  A method called on it is inlined with ``self`` standing for the object
(``_Objects`` in the callee's names), and so is a plain function the object is passed to
(``kick(p, dt)``, ``kick(ps[i], dt)``: its parameter stands for the object); their fields are found in their
definitions beforehand (``with_method_fields``).

Only what reads and writes the fields as plain stored values qualifies (the guard checks
the class: no property, no ``__setattr__``, no ``__getattr__``); a name or list used any
other way (``q = p``, ``out.append(ps[i])``, a function passing its object on) keeps the
lowering's usual reasons, or the function's.
"""
from __future__ import annotations

import ast
from collections import Counter

from ..errors import Unsupported
from ..ir import nodes as ir
from .. import record as records
from ..record import record
from . import inline
from .lower_calls import _Objects
from .syntax import _where, dotted_path


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
            if _list_path(source) and isinstance(target, ast.Name) and stores[target.id] == 1:
                aliases[target.id] = (_list_path(source), node, source, None)
            for statement in node.body:   # ``p = ps[k]``: a comprehension's element (comprehension.py) or b1 = ...
                if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                    continue
                target, value = statement.targets[0], statement.value
                if (isinstance(target, ast.Name) and stores[target.id] == 1 and isinstance(value, ast.Subscript)
                        and _list_path(value.value) and not isinstance(value.slice, (ast.Tuple, ast.Slice))):
                    aliases[target.id] = (_list_path(value.value), node, value.value, statement)
                    if not getattr(statement, "element_bind", False):
                        checked.add(target.id)
    lists: dict[str, list] = {}   # name -> [rank or None, fields]
    refused: set[str] = set()
    methods: dict[str, set] = {}
    passed: dict[str, set] = {}
    compared: set[str] = set()

    def use(name: str, rank: int | None, field: str | None) -> None:
        """A use of list ``name``: its items' ``field`` at subscript depth ``rank`` (None: a length)."""
        known = lists.setdefault(name, [None, set()])
        if rank is not None:
            if rank == 0 or known[0] not in (None, rank):
                refused.add(name)
            known[0] = rank
        if field is not None:
            known[1].add(field)

    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and node.id in aliases and not isinstance(node.ctx, ast.Store):
            name = node.id
            source, scope, _, statement = aliases[name]
            field, method = _field(node, parents), _method(node, parents)
            other, function = _compared_with(node, parents), _passed_to(node, parents, aliases)
            if other is not None and other.id in aliases and aliases[other.id][0] == source \
                    and _inside(node, scope, parents, statement):
                compared.add(source)   # b1 is not b2, two objects of one list: their indices compared
            elif function is not None and _inside(node, scope, parents, statement):
                use(source, 1, None)
                passed.setdefault(source, set()).add(function)
            elif (field is None and method is None) or not _inside(node, scope, parents, statement):
                refused.add(aliases.pop(name)[0])
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
        name = _list_path(node)
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
                _passed_to(top, parents, aliases)
            if field is not None:
                use(name, rank, field)
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
                      passed={name: frozenset(calls) for name, calls in passed.items() if name in found})


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
                      refused, uses.compared & set(lists), {n: c for n, c in uses.passed.items() if n in lists})


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


def _passed_to(node: ast.expr, parents: dict, aliases: dict) -> tuple[str, int] | None:
    """(the function's path, the argument's position) of ``f(..., node, ...)``, ``node`` (an
    alias, ``ps[i]``) a positional argument of a call of a plain path (``kick``,
    ``physics.kick``; not a method of an object alias), else None."""
    call = parents.get(node)
    if not isinstance(call, ast.Call) or node not in call.args or call.func is node:
        return None
    path = dotted_path(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if path is None or path.split(".")[0] in aliases or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return path, call.args.index(node)


def _list_path(node: ast.expr) -> str | None:
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


class FieldLowering:
    """The lowering's part (mixed into frontend/lower.py's ``_Lowerer``): ``p.x`` and
    ``ps[i].x`` as elements of the field array ``ps.__items__.x``."""

    def object_alias(self, targets: list, value_node: ast.expr, node: ast.stmt) -> list | None:
        """``p = ps[i]``, bound by ``for p in ps`` over objects or written so: the kernel keeps
        the index in ``p``."""
        aliases = self.objects.aliases
        name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        checked = name in self.objects.checked
        if not ((getattr(node, "element_bind", False) or checked) and not self.callees and name in aliases
                and isinstance(value_node, ast.Subscript) and _list_path(value_node.value) == aliases[name]):
            return None
        array = aliases[name]
        index = self.expression(value_node.slice)
        if not checked:   # the loop's own element: its index, an affine one for the analyses
            self.object_rows[name] = _Objects(array, (index,))
            return [self.bind(name, index, node)]
        # ``b = bodies[i]``: indexed through ``b`` (``i`` may change after), and one field read
        # here, so that an index out of range fails where CPython raises (the run falls back).
        self.object_rows[name] = _Objects(array, (ir.Name(name, **_where(node)),))
        first = ir.field_path(array, min(self.objects.lists[array][1]))
        self.array_ranks.setdefault(first, set()).add(1)
        read = ir.Load(first, (ir.Name(name, **_where(node)),), **_where(node))
        return [self.bind(name, index, node), self.bind(self.temporary(), read, node)]

    def field_access(self, node: ast.expr, written: bool = False) -> tuple[str, tuple] | None:
        """(field array, indices) of ``p.x`` or ``ps[i][j].x`` over a list of objects, else None."""
        if not isinstance(node, ast.Attribute):
            return None
        objects = self.objects_named(node.value)   # p.x, self.x, p.pos.x (of the object p.pos holds)
        if objects is not None:
            array, indices, field = objects.array, objects.prefix, node.attr
        elif self.callees:
            return None
        else:
            fields, base = [node.attr], node.value
            while isinstance(base, ast.Attribute):   # ps[i].pos.x
                fields[:0], base = [base.attr], base.value
            field = ".".join(fields)
            subscripts: list[ast.expr] = []
            while isinstance(base, ast.Subscript):
                subscripts[:0] = [base.slice]
                base = base.value
            array = _list_path(base)
            if not subscripts or array not in self.objects.lists:
                return None
            indices = tuple(self.expression(index) for index in subscripts)
        path = ir.field_path(array, field)
        self.array_ranks.setdefault(path, set()).add(len(indices))
        if written:
            self.written_arrays.add(path)
        return path, indices

    def passed_object(self, node: ast.Subscript, setup: list) -> _Objects | None:
        """``f(ps[i])`` over a list of objects: the object at ``i`` for the parameter, its index
        as at the call (whatever the callee writes), and one field read there, so that an
        index out of range fails where CPython raises (the run falls back)."""
        array = _list_path(node.value)
        found = self.objects.lists.get(array) if array is not None and not self.callees else None
        if found is None or found[0] != 1 or not found[1] or isinstance(node.slice, (ast.Slice, ast.Tuple)):
            return None
        where = _where(node)
        index = self.as_at_call(self.expression(node.slice), setup, where)
        first = ir.field_path(array, min(found[1]))
        self.array_ranks.setdefault(first, set()).add(1)
        setup.append(ir.Assign(self.temporary(), ir.Load(first, (index,), **where), **where))
        return _Objects(array, (index,))

    def objects_named(self, node: ast.expr) -> _Objects | None:
        """The list's object a name stands for (an alias, or a method's ``self`` bound to one),
        or the object a field of it holds (``p.pos``: of the field's objects, ``ps.__items__.pos``)."""
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            holder = self.objects_named(node.value)
            return None if holder is None else _Objects(ir.field_path(holder.array, node.attr), holder.prefix)
        if not isinstance(node, ast.Name):
            return None
        found = self.callees[-1].names.get(node.id) if self.callees else self.object_rows.get(node.id)
        return found if isinstance(found, _Objects) else None

    def object_method(self, node: ast.Call) -> tuple | None:
        """(path, (function, receiver)) of ``p.update(dt)`` on a list's object: the method its
        class holds, inlined with ``self`` standing for the object; None for other calls."""
        function = node.func
        objects = self.objects_named(function.value) if isinstance(function, ast.Attribute) else None
        if objects is None:
            if (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and not self.callees
                    and function.value.id in self.objects.refused):
                raise Unsupported(self.objects.refused[function.value.id], node.lineno, node.col_offset)
            return None
        path = ir.field_path(objects.array, function.attr)
        found = self.resolve(path) if self.resolve is not None else None
        if found is None:
            raise Unsupported(f"method '{function.attr}' of the items of '{objects.array}' is not a plain Python "
                              "function of their class", node.lineno, node.col_offset)
        return path, (found[0], objects)

    def object_comparison(self, node: ast.Compare) -> ir.Compare | None:
        """``b1 is not b2`` (or ``!=``, ``is``, ``==``) of two objects of one list: their indices
        compared (the guard checks that the list holds each object once and that the class
        compares by identity)."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
            return None
        left, right = self.objects_named(node.left), self.objects_named(node.comparators[0])
        if left is None or right is None or left.array != right.array or len(left.prefix) != 1 \
                or ir.field_of(left.array) is not None:   # the objects of a field (p.pos is q.pos): not by index
            return None
        operator = "==" if isinstance(node.ops[0], (ast.Is, ast.Eq)) else "!="
        return ir.Compare(left.prefix[0], (operator,), (right.prefix[0],), **_where(node))

    def objects_length(self, path: str | None) -> str | None:
        """``len(ps)`` of a list used through its items' fields: a length of one field array."""
        found = self.objects.lists.get(path) if path is not None and not self.callees else None
        return path if found is None else ir.field_path(path, min(found[1]))


def check_shared_fields(arrays, scalars, assigned) -> None:
    """A field the loop sets (``ps[i].x``) must be reachable by no other path the loop uses
    (``qs[j].x``, ``self.x``): one object may be behind both, and the kernel's copies of the
    two would differ where CPython's object has one value.  Between fields of fields
    (``p.pos.x`` set, ``p.vel.x`` read) the guard checks the objects apart instead."""
    names = [use.name for use in arrays] + list(scalars) + list(assigned)

    def field_of_field(name: str) -> bool:   # p.pos.x: the guard checks its objects apart (disjoint_fields)
        found = ir.field_of(name)
        return found is not None and ir.field_of(found[0]) is not None
    for use in arrays:
        field = ir.field_of(use.name) if use.written else None
        if field is None:
            continue
        other = next((name for name in names if name != use.name and name.endswith("." + field[1])
                      and not (field_of_field(use.name) and field_of_field(name))), None)
        if other is not None:
            raise Unsupported(f"field '{field[1]}' of the items of '{field[0]}' is set and {ir.describe_name(other)} "
                              "is used too (one object may be behind both)")
