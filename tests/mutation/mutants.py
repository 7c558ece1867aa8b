"""The mutants: realistic one-line bugs planted in the source, each expected to be
caught ("killed") by the tests it names.  ``run.py`` applies them one at a time to a
copy of ``src/`` and runs those tests against it.

``LISTED`` are the ten bugs issue 24 found the suite blind to (each changes what a
probe program computes); ``fresh.py`` holds a second set, written without looking at
the tests, that measures how well the suite catches bugs nobody planned for."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str              # under src/megaguards/
    old: str               # text that occurs exactly once in the file
    new: str
    tests: tuple[str, ...]  # pytest node ids or files (relative to the repository root)
    what: str              # the bug, in words

    def apply(self, text: str) -> str:
        if text.count(self.old) != 1:
            raise ValueError(f"{self.name}: the text to replace occurs {text.count(self.old)} times in {self.path}")
        return text.replace(self.old, self.new)


PARALLEL_TESTS = ("tests/test_parallel.py", "tests/test_dependence.py")
SEMANTIC_TESTS = ("tests/test_semantics.py", "tests/test_hoisting.py")

LISTED = (
    Mutant("anti-dependences-dropped", "analysis/dependence.py",
           'DIFFERENT_ITERATIONS = "(x0_0 < x1_0 or x0_0 > x1_0)"',
           'DIFFERENT_ITERATIONS = "x0_0 < x1_0"',
           PARALLEL_TESTS, "only dependences whose write comes first are kept"),
    Mutant("output-dependences-unchecked", "analysis/parallel.py",
           "if second.group != first.group or (second.write and second.node.nid < first.node.nid):",
           "if second.group != first.group or second.write:",
           PARALLEL_TESTS, "write-after-write dependences never checked"),
    Mutant("one-branch-scalar-private", "analysis/parallel.py",
           "defined_now[0] = after_body & defined_now[0]",
           "defined_now[0] = after_body | defined_now[0]",
           PARALLEL_TESTS, "a scalar assigned in only one branch of an if counted as private"),
    Mutant("alias-groups-disabled", "runtime/pipeline.py",
           "groups = {use.name: first.setdefault(id(value), use.name) for use, value in zip(loop.arrays, binding.arrays)}",
           "groups = {use.name: use.name for use, value in zip(loop.arrays, binding.arrays)}",
           PARALLEL_TESTS + ("tests/test_semantics.py",), "the same list passed twice is two arrays"),
    Mutant("reassigned-loop-variable-ranged", "analysis/bounds.py",
           "                      and node.var not in self.reassigned\n",
           "",
           SEMANTIC_TESTS, "a loop variable reassigned in the body still treated as ranging over range()"),
    Mutant("triangular-stop-low-end", "codegen/prologue.py",
           'upward = f"mg_L{k}_lo = {start[0]}; mg_L{k}_hi = {stop[1]} - 1;"',
           'upward = f"mg_L{k}_lo = {start[0]}; mg_L{k}_hi = {stop[0]} - 1;"',
           SEMANTIC_TESTS, "triangular loops: the loop variable's interval uses the low end of the stop's interval"),
    Mutant("checked-index-no-wrap", "codegen/prelude.h",
           "int64_t w = i < 0 ? i + n : i;",
           "int64_t w = i;",
           SEMANTIC_TESTS, "negative-index wrapping removed in the checked path"),
    Mutant("int-true-division-inexact", "codegen/prelude.h",
           "    if (MG_UNLIKELY(a > limit || a < -limit || b > limit || b < -limit)) { *err = MG_ERR_VALUE; return 0.0; }\n"
           "    return (double)a / (double)b;",
           "    return (double)a / (double)b;",
           SEMANTIC_TESTS, "int/int true division: the exactness check (both below 2**53) dropped"),
    Mutant("bool-in-int-list", "runtime/marshal_lists.c",
           "if (Py_TYPE(items[i]) != &PyLong_Type) return Py_TYPE(items[i]) == &PyFloat_Type ? MIXED_CLASSES : 1;",
           "if (!PyLong_Check(items[i])) return Py_TYPE(items[i]) == &PyFloat_Type ? MIXED_CLASSES : 1;",
           ("tests/test_boxing.py",), "an int list with bools mixed in accepted by the guard"),
    Mutant("cuda-band-ignores-start", "codegen/targets/cuda.py",
           'emit(1, f"const int64_t {c_name(loop.var)} = mg_band[{3 * position}] + mg_k{position} * mg_band[{3 * position + 1}];")',
           'emit(1, f"const int64_t {c_name(loop.var)} = mg_k{position} * mg_band[{3 * position + 1}];")',
           ("tests/test_cuda_emulation.py",), "CUDA band variable ignores the range start (range(1, n) maps thread 0 to i = 0)"),
)
