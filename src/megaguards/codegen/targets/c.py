"""The C target for the CPU: plain C99 plus the GNU builtins the prelude uses, and its
kernel wrapper ``int mg_kernel(char **mg_arrays, int64_t *mg_ints, double *mg_floats)``
(the ABI of ``codegen/layout.py``): unbox the live-ins, run the hoisted checks, run one
copy of the loop, box the live-outs."""
from __future__ import annotations


from ...record import record
from ...analysis.bounds import strided_loop
from ...analysis.compensation import compensation_of
from ...ir.types import buffer_ctype
from ..array_statements import seed_growing, unseed_grown
from ..prologue import PrologueWriter, box_name
from ..spelling import array_name, c_name, zero_of
from .base import FLOAT_ARITHMETIC, FLOAT_HELPERS, INTEGER_HELPERS, PRELUDE, Target


@record
class RenderedKernel:
    source: str
    checks_in_loop: int           # checks inside the loop that runs when the hoisted ones pass
    preconditions: tuple = ()     # descriptions of the hoisted checks, by number
    parallel: bool = False        # uses OpenMP (compile with -fopenmp)
    float_status: bool = False    # notes the IEEE flags of NumPy float operations (layout.float_status_slot)


def write_cpu_kernel(renderer) -> RenderedKernel:
    layout, typed = renderer.layout, renderer.typed
    emit = renderer.emit
    emit(0, f"{renderer.target.kernel_prefix} {renderer.entry}(char **mg_arrays, int64_t *mg_ints, double *mg_floats) {{")
    emit(1, "int mg_err = 0;")
    # The flag a SIGINT sets (marshal.c; none when the banks were filled from Python).
    emit(1, "static volatile int mg_no_stop = 0;")
    emit(1, "uint64_t mg_ticks = 0;  /* while loops' iterations, for the flag's reads */")
    emit(1, f"volatile int *const mg_stop = mg_ints[{layout.interrupt_slot}] ? "
            f"(volatile int *)(intptr_t)mg_ints[{layout.interrupt_slot}] : &mg_no_stop;")
    renderer.declare_arrays()
    for name, slot in layout.rebound.items():   # which array a swapped name holds: reported at the end
        emit(1, f"mg_ints[{slot}] = {layout.arrays.index(name)};")
    _declare_scalars(renderer)
    emit(1, "int mg_fast = 1; int64_t mg_failed = -1;")
    if renderer.watches_float_status:   # the categories NumPy's error state acts on (0: none)
        emit(1, f"const int mg_fp_mask = (int)mg_ints[{layout.float_status_slot}]; int mg_fp_seen = 0;")
        emit(1, "if (mg_fp_mask) feclearexcept(FE_ALL_EXCEPT);")
    preconditions: list[str] = []
    if renderer.facts is None:
        placeholder = _shadow_switch(renderer)
        seed_growing(renderer)
        before = renderer.checks
        renderer.statement(typed.body, 1)
        checks = renderer.checks - before
    else:
        emit(1, "int mg_negative = 0;  /* some wrapped subscript is negative somewhere */")
        preconditions = PrologueWriter(renderer, renderer.facts).render(1)
        _export_prologue(renderer)
        placeholder = _shadow_switch(renderer)
        seed_growing(renderer)
        wraps = any(h.wrap for h in renderer.facts.indices)
        # Copies of the loop: subscripts proven non-negative (no wrap at all), proven
        # within [-n, n) (branch-free wrap), and the one with every check inside.
        emit(1, "if (mg_fast && !mg_negative) {" if wraps else "if (mg_fast) {")
        before, renderer.fast = renderer.checks, "direct"
        renderer.statement(typed.body, 2)
        checks = renderer.checks - before
        if wraps:
            emit(1, "} else if (mg_fast) {")
            renderer.fast = "wrap"
            renderer.statement(typed.body, 2)
        renderer.fast = False
        emit(1, "} else {")
        renderer.statement(typed.body, 2)
        emit(1, "}")
    can_flag = checks > 0 or renderer.flags_outside_checks
    # A flag NumPy would act on sends the loop to CPython: NumPy arrays go to shadows then.
    check_free = "0" if can_flag else "(!mg_fp_mask)" if renderer.watches_float_status else "1"
    lines = renderer.lines
    lines[placeholder] = lines[placeholder].replace("MG_CHECK_FREE", check_free)
    emit(0, "mg_exit:")
    emit(1, f"mg_ints[{layout.precondition_slot}] = mg_failed;")
    if renderer.watches_float_status:
        emit(1, "if (mg_fp_mask && !mg_err && (mg_numpy_categories(fetestexcept(FE_ALL_EXCEPT) | mg_fp_seen) "
                "& mg_fp_mask)) mg_err = MG_ERR_FLOAT_STATUS;")
    emit(1, "if (mg_err) return mg_err;")
    unseed_grown(renderer)
    for name, (bank, slot) in layout.scalars.items():
        if name in layout.assigned_flags:
            if typed.variables[name].is_complex:
                emit(1, f"mg_floats[{slot}] = {c_name(name)}.re; mg_floats[{slot + 1}] = {c_name(name)}.im;")
            elif typed.variables[name].is_int_or_float:
                emit(1, f"mg_floats[{slot}] = {_ended(typed, name, c_name(name) + '.v')}; "
                        f"mg_floats[{slot + 1}] = {c_name(name)}.f;")
            elif name in typed.compensations:
                emit(1, f"mg_{bank}[{slot}] = {_ended(typed, name, c_name(name))};")
            else:
                cast = "(double)" if bank == "floats" else "(int64_t)"
                emit(1, f"mg_{bank}[{slot}] = {cast}{c_name(name)};")
            emit(1, f"mg_ints[{layout.assigned_flags[name]}] = mg_set_{c_name(name)};")
        if name in layout.box_tags:
            emit(1, f"mg_ints[{layout.box_tags[name]}] = mg_tag_{c_name(name)};")
    emit(1, "return 0;")
    emit(0, "}")
    parallel = renderer.uses_parallel_loops
    headers = renderer.target.parallel_headers if parallel else ""
    source = headers + renderer.target.prelude + "\n" + "\n".join(lines) + "\n"
    return RenderedKernel(source, checks, tuple(preconditions), parallel, renderer.watches_float_status)


def _declare_scalars(renderer) -> None:
    layout, typed = renderer.layout, renderer.typed
    for name, scalar in typed.variables.items():
        if name in typed.live_ins:
            bank, slot = layout.scalars[name]
            pair = {"mg_complex": "mg_cmake", "mg_num": "mg_num_make"}.get(scalar.ctype)
            value = (f"{pair}(mg_floats[{slot}], mg_floats[{slot + 1}])" if pair
                     else f"({scalar.ctype})mg_{bank}[{slot}]")
            renderer.emit(1, f"{scalar.ctype} {c_name(name)} = {value};")
        else:
            renderer.emit(1, f"{scalar.ctype} {c_name(name)} = {zero_of(scalar)};")
        if name in layout.assigned_flags:
            renderer.emit(1, f"int mg_set_{c_name(name)} = 0;")
        if name in layout.box_tags:
            renderer.emit(1, f"int mg_tag_{c_name(name)} = 0;")


def _export_prologue(renderer) -> None:
    """In mode 1 (the GPU host's call) the kernel stops after its hoisted checks and
    reports them with the loops' ranges, which give the GPU grid."""
    layout, emit = renderer.layout, renderer.emit
    slot = layout.intervals_slot
    emit(1, f"if (mg_ints[{layout.mode_slot}]) {{")
    emit(2, f"mg_ints[{slot}] = mg_fast; mg_ints[{slot + 1}] = mg_negative;")
    for k in range(len(renderer.facts.loops)):
        emit(2, f"mg_ints[{slot + 2 + 2 * k}] = (int64_t)mg_L{k}_lo; "
                f"mg_ints[{slot + 3 + 2 * k}] = (int64_t)mg_L{k}_hi;")
    # The boxes of the lists the loop touches (marshal.c unboxes only those); where a check
    # failed the loop that runs checks each subscript itself, and may touch any element.
    for name, first in layout.boxes.items():
        rank = renderer.typed.arrays[name].rank
        for d in range(rank):
            box, size = box_name(name, d), f"{array_name(name)}_n{d}"
            emit(2, f"mg_ints[{first + d}] = mg_fast ? {box}_lo : 0; "
                    f"mg_ints[{first + rank + d}] = mg_fast ? {box}_hi : {size} - 1;")
        emit(2, f"mg_ints[{first + 2 * rank}] = {_box_gap(renderer, name, rank)};")
    emit(2, "return 0;")
    emit(1, "}")


def _box_gap(renderer, name: str, rank: int) -> str:
    """The gap between the elements of a list's last dim the loop touches: a loop's step
    (bounds.strided_loop) where the box starts at that loop's start, else 1.  (A bare loop
    variable never wraps, so with mg_fast the two starts agree; the test keeps the gap
    right should the box ever widen.)"""
    loop = strided_loop(renderer.facts, name, rank - 1)
    if loop is None:
        return "1"
    k = [hoisted.loop for hoisted in renderer.facts.loops].index(loop.loop)
    step = str(loop.step) if loop.step else renderer.expr(loop.step_expr)
    box = box_name(name, rank - 1)
    return f"(mg_fast && {step} > 0 && {box}_lo == mg_L{k}_lo) ? (int64_t){step} : 1"


def _shadow_switch(renderer) -> int:
    """NumPy arrays are written in place only when the loop that runs cannot raise a
    flag; otherwise into shadow copies, committed by the caller after success.
    Returns the index of the line whose MG_CHECK_FREE is decided after rendering."""
    layout, emit = renderer.layout, renderer.emit
    emit(1, "const int mg_in_place = mg_fast && MG_CHECK_FREE;")
    placeholder = len(renderer.lines) - 1
    emit(1, f"mg_ints[{layout.in_place_slot}] = mg_in_place;")
    for name, index in layout.shadows.items():
        info, array = renderer.typed.arrays[name], array_name(name)
        rank = info.rank
        emit(1, f"if (!mg_in_place && mg_arrays[{index}]) {{")
        shape = ", ".join(f"{array}_n{d}" for d in range(rank))
        strides = ", ".join(f"{array}_s{d}" for d in range(rank))
        emit(2, f"const int64_t shape[] = {{{shape}}}, strides[] = {{{strides}}};")
        emit(2, f"mg_copy_strided(mg_arrays[{index}], (const char *){array}, {rank}, shape, strides, "
                f"sizeof(*{array}));")
        emit(2, f"{array} = ({buffer_ctype(info.element)} *)mg_arrays[{index}];")
        for d in reversed(range(rank)):
            if d == rank - 1 and info.unit_stride:
                continue  # already the constant 1
            following = "1" if d == rank - 1 else f"{array}_s{d + 1} * ({array}_n{d + 1} ? {array}_n{d + 1} : 1)"
            emit(2, f"{array}_s{d} = {following};")
        emit(1, "}")
    return placeholder


def _ended(typed, name: str, value: str) -> str:
    """A live-out's value; a compensated sum's is f + c, as sum() returns it (an int's c is 0)."""
    if name not in typed.compensations:
        return value
    c = c_name(compensation_of(name))
    return f"(({c} != 0.0 && {c} - {c} == 0.0) ? {value} + {c} : {value})"


C = Target(
    name="c",
    kernel_prefix="int",
    write_kernel=write_cpu_kernel,
    error_exit=("goto mg_exit;",),
    continue_outside_loops="continue;",   # every continue of a C kernel sits in a C loop
    polls_interrupts=True,
    prelude=PRELUDE,
    float_arithmetic=FLOAT_ARITHMETIC,
    float_helpers=FLOAT_HELPERS,
    integer_helpers=INTEGER_HELPERS,
)
