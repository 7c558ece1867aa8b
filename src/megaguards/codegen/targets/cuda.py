"""The CUDA target: the same prelude (guarded for NVRTC) and renderer, one thread per
iteration of the loop band, and its kernel wrapper.

One thread runs one iteration of the band (``analysis.mapping``); the band loop
chosen for coalescing is ``threadIdx.x``.  Loops inside run sequentially in the
thread, walked by the same renderer as the CPU code (its prelude helpers), in its
"wrap" mode: the host ran the hoisted checks before launching.

Results leave a thread through global memory: the first flag raised (the host then
discards everything and CPython re-runs the loop); for each live-out scalar, its
value in this iteration and the iteration's number (``atomicMax``: the sequentially
last assignment wins); reduction partials (``atomicAdd``/``atomicMax``/``atomicMin``).
"""
from __future__ import annotations

from types import MappingProxyType

from ...record import record
from ...analysis.mapping import GpuBand
from ...ir import nodes as ir
from ..spelling import c_name
from .base import (
    FLOAT_ARITHMETIC,
    FLOAT_HELPERS,
    INTEGER_HELPERS,
    PRELUDE,
    Target,
    reduction_identity,
)

# No FMA contraction: + - * / and sqrt stay bit-identical to CPython.
NVRTC_OPTIONS = ("--fmad=false", "--device-int128", "-std=c++17", "-default-device")
BLOCK_1D = (256, 1, 1)
BLOCK_2D = (32, 8, 1)
BLOCK_3D = (32, 4, 2)


# A double's place in the order of values as an int64 (atomicMax/atomicMin compare those):
# the bits of a positive value grow with it, a negative one's lower 63 bits are flipped;
# -0.0 takes +0.0's key (they are equal: the earliest of them wins, kept beside it).  NaN
# never reaches it: no NaN beats a value (Python's max/min keep the earlier one).
ORDER_KEY = """__device__ static long long mg_order_key(double value) {
    long long bits = value == 0.0 ? 0 : __double_as_longlong(value);
    return bits >= 0 ? bits : bits ^ 0x7FFFFFFFFFFFFFFFLL;
}
"""


@record
class CudaKernel:
    source: str
    outputs: tuple          # live-out privates, in mg_marks order: (name, is_float)
    reductions: tuple       # (name, kind, is_float, conditional), combined on the device
    band: tuple             # band loop variables, outermost first
    grid_order: tuple       # band positions mapped to x, y, z
    block: tuple
    checks_in_loop: int
    folds: tuple = ()       # (name, form, always): float reductions whose operands the host folds in
    #                         order; ``always``: every iteration has its step (no presence marks)


def write_band_kernel(renderer, band: GpuBand, live_outs: tuple[str, ...]) -> CudaKernel:
    """The kernel wrapper: the band's iteration from the thread's position, the body
    walked once in "wrap" mode, the results combined per block, then globally."""
    typed, layout = renderer.typed, renderer.layout
    renderer.fast = "wrap"
    emit = renderer.emit
    loops = band.loops
    grid_positions = range(band.fixed, len(loops))  # leading fixed loops: one value per launch
    order = (band.x_loop,) + tuple(p for p in grid_positions if p != band.x_loop)
    folds = {r.var: r.fold for r in band.decision.reductions if r.fold}
    reductions = {r.var: r.kind for r in band.decision.reductions if r.var not in folds}
    extremes = {name for name, kind in reductions.items() if kind != "+" and typed.variables[name].is_float}
    outputs = tuple((name, typed.variables[name].is_float) for name in band.decision.private
                    if name in live_outs and name in typed.variables)
    emit(0, f"{renderer.target.kernel_prefix} {renderer.entry}(char **mg_arrays, const int64_t *mg_ints, const double *mg_floats,")
    emit(1, "const int64_t *mg_band, int *mg_flag, int64_t *mg_marks, int64_t *mg_ivals, double *mg_fvals,")
    emit(1, "long long *mg_ired, double *mg_fred, int64_t mg_total) {")
    axes = ("x", "y", "z")
    n_out, n_red = max(1, len(outputs)), max(1, len(reductions))
    # Results are combined per block in shared memory first: one global atomic per block.
    emit(1, f"__shared__ long long mg_block_marks[{n_out}], mg_block_ired[{n_red}];")
    emit(1, f"__shared__ double mg_block_fred[{n_red}];")
    emit(1, "const int mg_lead = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;")
    emit(1, "if (mg_lead) {")
    emit(2, f"for (int p = 0; p < {n_out}; p++) mg_block_marks[p] = -1;")
    for index, (name, kind) in enumerate(reductions.items()):
        identity = {"+": "0", "max": "INT64_MIN", "min": "INT64_MAX"}.get(kind, "0")
        # A float max/min keeps the earliest zero's iteration and sign there (all ones: none).
        start = "__longlong_as_double(-1LL)" if name in extremes else "-0.0"
        emit(2, f"mg_block_ired[{index}] = {identity}; mg_block_fred[{index}] = {start};")
    emit(1, "}")
    emit(1, "__syncthreads();")
    for position in range(band.fixed):
        emit(1, f"const int64_t mg_k{position} = 0;")
    active = []
    for axis, position in zip(axes, order):
        emit(1, f"const int64_t mg_k{position} = blockIdx.{axis} * (int64_t)blockDim.{axis} + threadIdx.{axis};")
        active.append(f"mg_k{position} < mg_band[{3 * position + 2}]")
    emit(1, f"const int mg_active = {' && '.join(active)};  /* threads past the tail only take part in barriers */")
    linear = "mg_k0"
    for position in range(1, len(loops)):
        linear = f"({linear}) * mg_band[{3 * position + 2}] + mg_k{position}"
    emit(1, f"const int64_t mg_iteration = {linear};  /* the sequential order of this iteration */")
    emit(1, "int mg_err = 0;")
    if renderer.watches_float_status:   # the categories NumPy's error state acts on (0: none)
        emit(1, f"int mg_fp = 0; const int mg_fp_mask = (int)mg_ints[{layout.float_status_slot}];")
    renderer.declare_arrays()
    for name, scalar in typed.variables.items():
        if name in typed.live_ins and name not in typed.assigned_types:
            bank, slot = layout.scalars[name]
            emit(1, f"const {scalar.ctype} {c_name(name)} = ({scalar.ctype})mg_{bank}[{slot}];")
    for position, loop in enumerate(loops):
        emit(1, f"const int64_t {c_name(loop.var)} = mg_band[{3 * position}] + mg_k{position} * mg_band[{3 * position + 1}];")
    for index, name in enumerate(band.given):   # a region's host values, after the band's entries
        scalar, entry = typed.variables[name], f"mg_band[{3 * len(loops) + index}]"
        value = f"__longlong_as_double({entry})" if scalar.is_float else entry
        emit(1, f"const {scalar.ctype} {c_name(name)} = ({scalar.ctype}){value};")
    band_vars = {loop.var for loop in loops}
    for name, scalar in typed.variables.items():
        if name in band_vars or name in band.given or (name in typed.live_ins and name not in typed.assigned_types):
            continue
        start = reduction_identity(reductions[name], scalar) if name in reductions else "0"
        emit(1, f"{scalar.ctype} {c_name(name)} = {start}; int mg_set_{c_name(name)} = 0; "
                f"int mg_tag_{c_name(name)} = 0;")
    emit(1, "if (mg_active) {")
    before = renderer.checks
    body = band.sunk + loops[-1].body   # the outer loops' scalars each thread computes first
    always = {name for name in folds if not any(isinstance(n, ir.Continue) for s in body for n in ir.walk(s))
              and any(isinstance(s, ir.Assign) and s.target == name for s in body)}
    # A reduction the host reads between a region's launches is no live-out: no flag of the
    # layout's says its threads assigned it, so the band marks it itself.
    unflagged = frozenset(name for name in reductions if name not in layout.assigned_flags)
    renderer.region_block(BandIteration(renderer.target.error_exit, folds, len(outputs), frozenset(always), unflagged),
                          body, 2)
    checks = renderer.checks - before
    emit(1, "}")
    emit(0, "mg_iteration_end:")
    if renderer.watches_float_status:
        emit(1, "if (mg_fp & mg_fp_mask) atomicCAS(mg_flag, 0, MG_ERR_FLOAT_STATUS);")
    emit(1, "if (mg_active) {")
    for index, (name, is_float) in enumerate(outputs):
        values = "mg_fvals" if is_float else "mg_ivals"
        # The mark is the iteration number times 16 plus the class tag of the value (for
        # float vs numpy.float64): the maximum is the sequentially last assignment.
        tag = f"mg_tag_{c_name(name)}" if name in layout.box_tags else "0"
        emit(2, f"if (mg_set_{c_name(name)}) {{ {values}[{index} * mg_total + mg_iteration] = {c_name(name)}; "
                f"atomicMax(&mg_block_marks[{index}], (long long)(mg_iteration * 16 + {tag})); }}")
    for index, (name, kind) in enumerate(reductions.items()):
        var = c_name(name)
        if name in extremes:   # max/min: the value's order key, and the earliest zero
            emit(2, f"if (mg_set_{var}) {{ atomic{'Max' if kind == 'max' else 'Min'}(&mg_block_ired[{index}], "
                    f"mg_order_key({var})); if ({var} == 0.0) atomicMin((unsigned long long *)&mg_block_fred[{index}], "
                    f"(unsigned long long)(mg_iteration * 2 + (signbit({var}) ? 1 : 0))); }}")
        elif typed.variables[name].is_float:   # a sum
            emit(2, f"if (mg_set_{var}) atomicAdd(&mg_block_fred[{index}], {var});")
        elif kind == "+":  # exact in two's complement; the double beside it detects overflow
            emit(2, f"if (mg_set_{var}) {{ atomicAdd((unsigned long long *)&mg_block_ired[{index}], "
                    f"(unsigned long long)(int64_t){var}); atomicAdd(&mg_block_fred[{index}], (double){var}); }}")
        else:
            emit(2, f"if (mg_set_{var}) atomic{'Max' if kind == 'max' else 'Min'}(&mg_block_ired[{index}], (long long){var});")
    emit(1, "}")
    emit(1, "__syncthreads();")
    emit(1, "if (mg_lead) {")
    for index in range(len(outputs)):
        emit(2, f"if (mg_block_marks[{index}] >= 0) atomicMax((long long *)&mg_marks[{index}], mg_block_marks[{index}]);")
    for index, (name, kind) in enumerate(reductions.items()):
        if name in extremes:
            emit(2, f"atomic{'Max' if kind == 'max' else 'Min'}(&mg_ired[{index}], mg_block_ired[{index}]); "
                    f"atomicMin((unsigned long long *)&mg_fred[{index}], "
                    f"(unsigned long long)__double_as_longlong(mg_block_fred[{index}]));")
        elif typed.variables[name].is_float:
            emit(2, f"atomicAdd(&mg_fred[{index}], mg_block_fred[{index}]);")
        elif kind == "+":
            emit(2, f"atomicAdd((unsigned long long *)&mg_ired[{index}], (unsigned long long)mg_block_ired[{index}]); "
                    f"atomicAdd(&mg_fred[{index}], mg_block_fred[{index}]);")
        else:
            emit(2, f"atomic{'Max' if kind == 'max' else 'Min'}(&mg_ired[{index}], mg_block_ired[{index}]);")
    emit(1, "}")
    emit(0, "}")
    conditional = {r.var for r in band.decision.reductions if r.conditional}
    reduction_list = tuple((name, kind, typed.variables[name].is_float, name in conditional)
                           for name, kind in reductions.items())
    block = {1: BLOCK_1D, 2: BLOCK_2D, 3: BLOCK_3D}[len(loops) - band.fixed]
    source = renderer.target.prelude + "\n" + (ORDER_KEY if extremes else "") + "\n".join(renderer.lines) + "\n"
    return CudaKernel(source, outputs, reduction_list, tuple(loop.var for loop in loops), order, block, checks,
                      tuple((name, form, name in always) for name, form in folds.items()))


@record
class BandIteration:
    """The band body as the renderer walks it: a float reduction folded in order keeps its
    iteration's one operand (analysis.mapping checks there is one) in ``mg_fvals`` after the
    live-out values, and marks it present in ``mg_ivals``; the host folds them."""

    error_exit: tuple[str, ...]
    folds: dict          # name -> form
    outputs: int         # live-out privates: their slots come first
    always: frozenset    # folds whose step every iteration takes: no presence mark needed
    unflagged: frozenset = frozenset()   # reductions without a layout flag: marked here when assigned

    def assignment_mark(self, name: str) -> str | None:
        return f"mg_set_{c_name(name)} = 1;" if name in self.unflagged else None

    def keep(self, name: str, operand: str) -> tuple[str, ...]:
        slot = f"({self.outputs + list(self.folds).index(name)} * mg_total + mg_iteration)"
        if name in self.always:
            return (f"mg_fvals[{slot}] = {operand};",)
        return (f"mg_fvals[{slot}] = {operand}; mg_ivals[{slot}] = 1;",)


# Round-to-nearest intrinsics: NVCC may neither contract nor rewrite them.
_INTRINSIC = {"+": "add", "-": "sub", "*": "mul"}
CUDA = Target(
    name="cuda",
    kernel_prefix='extern "C" __global__ void',
    write_kernel=write_band_kernel,
    # Every thread must reach the block's barrier: jump to the iteration's end, don't return.
    error_exit=("atomicCAS(mg_flag, 0, mg_err);", "goto mg_iteration_end;"),
    continue_outside_loops="goto mg_iteration_end;",   # the band loops are the grid, not C loops
    computes_float_status=True,
    narrow_counter_chunk=1 << 30,
    prelude=PRELUDE,   # its helpers are __device__ functions under NVRTC
    float_arithmetic=MappingProxyType({(operator, ctype): f"__{ctype[0]}{_INTRINSIC[operator]}_rn({{a}}, {{b}})"
                                       for operator, ctype in FLOAT_ARITHMETIC}),
    float_helpers=FLOAT_HELPERS,
    integer_helpers=INTEGER_HELPERS,
)
