"""Lists of objects with numeric fields (issue 29): ``for p in particles: p.x += p.vx * dt``,
``particles[i].x``, ``b1 = bodies[i]`` then ``b1.vx``, methods ``p.advance(dt)``, lists held
by an object (``self.bodies``), ``a is not b`` of two objects of one list, and names holding
one of the objects (``best = p``, ``best is None``).

Each field the loop uses is an array of its own to the later stages, named
``particles.__items__.x`` (``ir.field_path``): at each entry the guard reads the field of
every object into a list (guards/fields.py ``FieldReader``), the kernel runs on that list as
on any other, and after a clean run the values the loop changed are set on the objects.  A
name standing for an object (``p``, ``best``) holds its index in the list in the kernel (the
list's length for None), and the site gives the name the object at that index after the run
(``Loop.object_aliases``), as CPython's loop leaves it.  A method called on it is inlined
with ``self`` standing for the object (``_Objects`` in the callee's names), and so is a plain
function the object is passed to (``kick(p, dt)``, ``kick(ps[i], dt)``: its parameter stands
for the object).  Which lists and names qualify, and the fields their methods and functions
use, the prescan finds beforehand (frontend/object_uses.py).

Only what reads and writes the fields as plain stored values qualifies (the guard checks
the class: no property, no ``__setattr__``, no ``__getattr__``).
"""
from __future__ import annotations

import ast

from ..errors import Unsupported
from ..ir import nodes as ir
from .lower_calls import _Objects
from .object_uses import list_path
from .syntax import _where


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
                and isinstance(value_node, ast.Subscript) and list_path(value_node.value) == aliases[name]):
            return None
        array = aliases[name]
        index = self.expression(value_node.slice)
        if not checked:   # the loop's own element: its index, an affine one for the analyses
            self.object_rows[name] = _Objects(array, (index,))
            return [self.bind(name, index, node)]
        # ``b = bodies[i]``: indexed through ``b`` (``i`` may change after)
        self.object_rows[name] = _Objects(array, (ir.Name(name, **_where(node)),))
        return self.object_index(name, array, index, node)

    def object_index(self, name: str, array: str, index: ir.Expr, node: ast.stmt) -> list:
        """``name = array[index]`` kept as the object's index: one field read here, so that an
        index out of range fails where CPython raises (the run falls back), and the index made
        non-negative, since objects are compared by index (``ps[-1] is ps[n - 1]``)."""
        where = _where(node)
        first = self.first_field(array)
        raw = ir.Name(self.temporary(), **where)
        wrapped = ir.IfExp(ir.Compare(raw, ("<",), (ir.Const(0, **where),), **where),
                           ir.BinOp("+", raw, ir.Length(first, (), **where), **where), raw, **where)
        return [self.bind(raw.id, index, node), self.bind(self.temporary(), ir.Load(first, (raw,), **where), node),
                self.bind(name, wrapped, node)]

    def first_field(self, array: str) -> str:
        """The field array standing for a list of objects where one is read for its index."""
        first = ir.field_path(array, min(self.objects.lists[array][1]))
        self.array_ranks.setdefault(first, set()).add(1)
        return first

    def object_variable(self, targets: list, value_node: ast.expr, node: ast.stmt) -> list | None:
        """``best = p``, ``best = ps[k]``, ``best = None`` of a name holding an object of a list
        (ObjectUses.variables): the kernel keeps the object's index, the list's length for
        None (a field read there is out of range: the run falls back, CPython raises)."""
        name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        array = self.objects.variables.get(name) if not self.callees else None
        if array is None:
            return None
        if isinstance(value_node, ast.Subscript):
            return self.object_index(name, array, self.expression(value_node.slice), node)
        if isinstance(value_node, ast.Constant):
            return [self.bind(name, self.none_index(array, node), node)]
        return [self.bind(name, self.objects_named(value_node).prefix[0], node)]

    def none_index(self, array: str, node: ast.AST) -> ir.Length:
        """The index standing for None among the objects of ``array``: the list's length."""
        return ir.Length(self.first_field(array), (), **_where(node))

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
            array = list_path(base)
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
        array = list_path(node.value)
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
        if not self.callees and node.id in self.objects.variables:
            self.scalar_reads.setdefault(node.id, None)   # best.m: a live-in where bound before the loop
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
        held = objects.prefix[0] if len(objects.prefix) == 1 and not self.callees else None
        if isinstance(held, ir.Name) and held.id in self.objects.variables:
            # best.update() where best may be None: CPython raises at the call, whatever the
            # method does, so a field is read first (out of range for None: the run falls back)
            first = self.first_field(self.objects.variables[held.id])
            self.pending.append(ir.Assign(self.temporary(), ir.Load(first, (held,), **_where(node)), **_where(node)))
        return path, (found[0], objects)

    def object_comparison(self, node: ast.Compare) -> ir.Compare | None:
        """``b1 is not b2`` (or ``!=``, ``is``, ``==``) of two objects of one list: their indices
        compared (the guard checks that the list holds each object once and that the class
        compares by identity)."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
            return None
        left, right = self.objects_named(node.left), self.objects_named(node.comparators[0])
        named = left or right
        nothing = any(isinstance(side, ast.Constant) and side.value is None for side in (node.left, node.comparators[0]))
        if nothing and isinstance(node.ops[0], (ast.Is, ast.IsNot)) and named is not None \
                and len(named.prefix) == 1 and ir.field_of(named.array) is None:   # best is None
            operator = "==" if isinstance(node.ops[0], ast.Is) else "!="
            return ir.Compare(named.prefix[0], (operator,), (self.none_index(named.array, node),), **_where(node))
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
