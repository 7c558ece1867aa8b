"""Statements that change which arrays names hold or what a list holds (part of the renderer,
split for size, as calls.py): ``a, b = b, a`` exchanging buffers, ``out.append(v)``
filling a list's growing buffer, and the value a store into an array.array or memoryview of
narrower items leaves.  Each function receives the renderer (duck-typed: the renderer
imports this module)."""
from __future__ import annotations

from ..analysis.typeinfer import grown_lists
from ..ir import nodes as ir
from ..ir.types import Scalar, buffer_ctype
from .layout import row_map_name
from .spelling import ERR, array_name, growing_name


def render_rebind(renderer, node: ir.Rebind, depth: int) -> None:
    """``a, b = b, a``: the names exchange their buffers, dims, strides and which array
    they name (no element moves)."""
    info = renderer.typed.arrays[node.targets[0]]
    parts = [("", f"{buffer_ctype(info.element)} *")] + [(f"_n{d}", "int64_t ") for d in range(info.rank)]
    parts += [(f"_s{d}", "int64_t ") for d in range(info.rank) if not (d == info.rank - 1 and info.unit_stride)]
    renderer.emit(depth, "{")
    for k, source in enumerate(node.sources):
        for suffix, ctype in parts:
            renderer.emit(depth + 1, f"{ctype}mg_swap{k}{suffix} = {array_name(source)}{suffix};")
        renderer.emit(depth + 1, f"const int64_t mg_swap{k}_which = mg_ints[{renderer.layout.rebound[source]}];")
    for k, target in enumerate(node.targets):
        for suffix, _ in parts:
            renderer.emit(depth + 1, f"{array_name(target)}{suffix} = mg_swap{k}{suffix};")
        renderer.emit(depth + 1, f"mg_ints[{renderer.layout.rebound[target]}] = mg_swap{k}_which;")
    renderer.emit(depth, "}")

def declare_growing(renderer) -> None:
    """The kernel's growing buffers (lists appended to, tables' row maps)."""
    for name, index in renderer.layout.growing.items():
        renderer.emit(1, f"mg_growing *{growing_name(name)} = (mg_growing *)mg_arrays[{index}];")


def seed_growing(renderer) -> None:
    """Right before the loop (after the prologue: its mode-1 call, the GPU host's and the
    selector's, has no growing buffers): the grown lists seeded with their elements, the row
    maps with their tables' rows in order."""
    seed_grown(renderer)
    seed_row_maps(renderer)


def seed_grown(renderer) -> None:
    """A list grown in place (typeinfer.grown_lists): its growing buffer starts with its
    elements and the kernel indexes that buffer, its length the buffer's."""
    for name in sorted(grown_lists(renderer.typed)):
        ctype, array = buffer_ctype(renderer.typed.arrays[name].element), array_name(name)
        renderer.emit(1, f"{ctype} *const mg_own_{array} = {array}; const int64_t mg_owned_{array} = {array}_n0;")
        renderer.emit(1, f"if (!mg_grow_seed({growing_name(name)}, (const char *){array}, {array}_n0, "
                         f"sizeof({ctype}))) return MG_ERR_MEMORY;")
        renderer.emit(1, f"{array} = ({ctype} *){growing_name(name)}->data;")


def seed_row_maps(renderer) -> None:
    """Each table whose rows the loop swaps (ir.RowSwap) is indexed through its row map."""
    for name in sorted(ir.swapped_tables(renderer.typed.body)):
        array, rows = array_name(name), growing_name(row_map_name(name))
        renderer.emit(1, f"if (!mg_grow_rows({rows}, {array}_n0)) return MG_ERR_MEMORY;")
        renderer.emit(1, f"int64_t *const mg_rows_{array} = (int64_t *){rows}->data;")


def render_row_swap(renderer, node: ir.RowSwap, depth: int) -> None:
    """``a[i], a[j] = a[j], a[i]``: the row map's two entries exchange (each subscript checked
    and wrapped as Python's indexing does; an IndexError leaves the map as it was)."""
    array = array_name(node.array)
    first, second = renderer.fresh("row"), renderer.fresh("row")
    renderer.checks += 1
    renderer.emit(depth, f"const int64_t {second} = mg_index({renderer.convert(node.second, Scalar.PY_INT)}, "
                         f"{array}_n0, {ERR});")
    renderer.emit(depth, f"const int64_t {first} = mg_index({renderer.convert(node.first, Scalar.PY_INT)}, "
                         f"{array}_n0, {ERR});")
    renderer.emit(depth, f"if (!mg_err) {{ const int64_t mg_held = mg_rows_{array}[{first}]; "
                         f"mg_rows_{array}[{first}] = mg_rows_{array}[{second}]; mg_rows_{array}[{second}] = mg_held; }}")


def unseed_grown(renderer) -> None:
    """At a clean end: each grown list's elements back to its own buffer (boxed back where the
    loop writes them), its growing buffer keeping the values appended."""
    stored = {node.array for node in ir.walk(renderer.typed.body) if isinstance(node, ir.Store)}
    for name in sorted(grown_lists(renderer.typed)):
        ctype, array = buffer_ctype(renderer.typed.arrays[name].element), array_name(name)
        renderer.emit(1, f"mg_grow_unseed({growing_name(name)}, (char *)mg_own_{array}, mg_owned_{array}, "
                         f"sizeof({ctype}), {int(name in stored)});")


def appended_item(typed, name: str) -> tuple[str, int]:
    """(C type, count) of one item of a list's growing buffer: a value, or the indices of
    the element that is the value (TypedLoop.references)."""
    if name in typed.references:
        return "int64_t", typed.references[name][1]
    return buffer_ctype(typed.appended[name]), 1


def render_append(renderer, node: ir.Append, depth: int) -> None:
    """The value joins the list's buffer (marshal.c appends the buffer to the list after a
    clean run); NULL: memory ran out, the flag is set."""
    element = renderer.typed.appended[node.array]
    ctype = buffer_ctype(element)
    if node.array in renderer.typed.references:   # the element's indices: the object itself joins the list
        source, count = renderer.typed.references[node.array]
        positions = renderer.positions(node.value) if isinstance(node.value, ir.Load) else \
            [renderer.convert(node.value, Scalar.PY_INT)]   # (a table's row: its index)
        slot = renderer.fresh("slot")
        renderer.checks += 1
        names = [renderer.fresh("index") for _ in positions]
        for index, position in zip(names, positions):
            renderer.emit(depth, f"const int64_t {index} = {position};")
        renderer.emit(depth, f"int64_t *{slot} = (int64_t *)mg_grow({growing_name(node.array)}, {count} * sizeof(int64_t), "
                             f"{ERR});")
        renderer.emit(depth, f"if ({slot}) {{ {' '.join(f'{slot}[{d}] = {index};' for d, index in enumerate(names))} }}")
        return
    if isinstance(node, ir.AppendRow):   # where the row ends among its values (its list is made after the run)
        value = f"{growing_name(node.row)}->length" if node.row in renderer.typed.appended else "0"
    elif isinstance(node, ir.AppendAt):   # the key of a row the table has (a list's negative keys wrap)
        value, rows = renderer.fresh("key"), renderer.fresh("rows")
        slot = renderer.layout.keyed[node.array]
        renderer.emit(depth, f"int64_t {value} = {renderer.convert(node.value, element)};")
        renderer.emit(depth, f"const int64_t {rows} = mg_ints[{slot}];")
        renderer.emit(depth, f"if ({value} < (mg_ints[{slot + 1}] ? 0 : -{rows}) || {value} >= {rows}) "
                             f"{ERR.lstrip('&')} = MG_ERR_KEY;")
        renderer.emit(depth, f"if ({value} < 0) {value} += {rows};")
    else:
        value = renderer.truth(node.value) if element.is_bool else renderer.convert(node.value, element)
    item, slot = renderer.fresh("item"), renderer.fresh("slot")
    renderer.checks += 1
    renderer.emit(depth, f"{ctype} {item} = {value};")
    renderer.emit(depth, f"{ctype} *{slot} = ({ctype} *)mg_grow({growing_name(node.array)}, sizeof({ctype}), {ERR});")
    renderer.emit(depth, f"if ({slot}) *{slot} = {item};")
    if node.array in renderer.typed.arrays:   # grown in place: its buffer may have moved, its length grew
        array = array_name(node.array)
        renderer.emit(depth, f"{array} = ({ctype} *){growing_name(node.array)}->data; "
                             f"{array}_n0 = {growing_name(node.array)}->length;")


# The items an int store may leave in a buffer of narrower ints (guards/buffers.py's storage).
STORAGE_RANGES = {f"{kind}{size}": (f"{-(1 << (8 * size - 1))}LL" if kind == "i" else "0LL",
                                    f"{(1 << (8 * size - (1 if kind == 'i' else 0))) - 1}LL")
                  for kind in "iu" for size in (1, 2, 4)}
STORAGE_RANGES["u8"] = ("0LL", "9223372036854775807LL")   # held as int64: the unboxing refused larger ones


def stored_in_buffer(value: str, storage: str) -> str:
    """What the kernel's double or int64 copy of the item holds after the store: a float
    rounded to the item's float32, an int checked within the item's range.  Where CPython
    raises (an int out of range: OverflowError or ValueError) or might (a finite float
    rounding to an infinity: a memoryview's OverflowError), the flag sends the loop back."""
    if storage == "f4":
        return f"mg_store_f32({value}, {ERR})"
    low, high = STORAGE_RANGES[storage]
    return f"mg_store_range({value}, {low}, {high}, {ERR})"
