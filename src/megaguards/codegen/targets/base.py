"""What a target supplies to the one renderer: tables of spellings and a few hooks, no
walker (tinygrad's CStyleLanguage).  The renderer asks the table wherever targets differ
and never tests which target it renders for.

A hook receives the renderer (duck-typed, never imported: the renderer imports the
targets) and calls back into it to walk the loop body."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from ...record import record
from ...ir.types import Scalar

# One prelude for every target: MG_INLINE and the few definitions NVRTC lacks are
# chosen inside it (__CUDACC__), so a helper is written once.
PRELUDE = (Path(__file__).resolve().parent.parent / "prelude.h").read_text()

# + - * of floats: exact IEEE operations, as in CPython ({a} and {b}: the operands).
FLOAT_ARITHMETIC = MappingProxyType({(operator, ctype): f"({{a}} {operator} {{b}})"
                                     for operator in "+-*" for ctype in ("double", "float")})
# / // % ** of floats can raise in Python: prelude helpers taking the flag.
FLOAT_HELPERS = MappingProxyType({(operator, ctype): f"mg_{helper}_{suffix}"
                                  for operator, helper in (("/", "div"), ("//", "floordiv"), ("%", "mod"),
                                                           ("**", "pow"))
                                  for ctype, suffix in (("double", "f64"), ("float", "f32"))})
# int64 operations that overflow (or divide by zero) where Python would grow or raise.
INTEGER_HELPERS = MappingProxyType({"+": "mg_add_i64", "-": "mg_sub_i64", "*": "mg_mul_i64",
                                    "//": "mg_floordiv_i64", "%": "mg_mod_i64", "**": "mg_pow_i64",
                                    "<<": "mg_lshift_i64", ">>": "mg_rshift_i64"})

# The start of each thread's partial result, integer and float (None: no float form).
REDUCTION_IDENTITY = MappingProxyType({
    "+": ("0", "-0.0"), "*": ("1", "1.0"), "&": ("-1", None), "|": ("0", None), "^": ("0", None),
    "max": ("INT64_MIN", "-INFINITY"), "min": ("INT64_MAX", "INFINITY")})


def reduction_identity(kind: str, scalar: Scalar) -> str:
    integer, floating = REDUCTION_IDENTITY[kind]
    if scalar.is_float:
        return floating
    if scalar.ctype == "int32_t" and kind in ("max", "min"):
        return "INT32_MIN" if kind == "max" else "INT32_MAX"
    return integer


@record(eq=False)   # compared by identity: hashable although its tables are mappings
class Target:
    name: str
    kernel_prefix: str           # return type and qualifiers of the kernel entry point
    # The kernel wrapper: ``write_kernel(renderer, **inputs)`` writes the entry point around
    # the walked body and returns the target's kernel record.
    write_kernel: Callable
    error_exit: tuple[str, ...]  # the lines that leave on a raised flag, outside parallel loops
    # A ``continue`` that no rendered C loop encloses (the loop is the GPU's grid).
    continue_outside_loops: str
    prelude: str                 # helper definitions with Python semantics
    float_arithmetic: Mapping    # (operator, C type) -> "{a} ... {b}" template of + - *
    float_helpers: Mapping       # (operator, C type) -> helper taking the flag
    integer_helpers: Mapping     # operator -> checked int64 helper
    # ``parallel_loop(renderer, loop, decision, depth, threads, work_threshold)`` renders a
    # loop the parallel plan chose; None: every loop stays sequential.
    parallel_loop: Callable | None = None
    parallel_headers: str = ""   # put before the prelude when the kernel has parallel loops
    # Range loops look at the interrupt flag (``*mg_stop``, SIGINT) every MG_POLL_CHUNK
    # iterations; the GPU's code cannot read the host's flag.
    polls_interrupts: bool = False
    # NumPy float operations compute their IEEE flags (prelude's mg_np_*; a GPU keeps none)
    # into ``mg_fp``; False: the FPU's flags are read (fenv.h).
    computes_float_status: bool = False
    # Range loops count with an int inside chunks of this many iterations (0: one uint64
    # counter).  A GPU adds and compares 64-bit ints in two instructions each: lud's dot
    # product loop ran 1.46x faster so (H200, .whl/lud_micro.py, 291 -> 200 ms).
    narrow_counter_chunk: int = 0
