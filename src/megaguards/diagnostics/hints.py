"""What to change, in one line, for the most frequent reasons a loop stays in CPython or
sequential: the hints ``megaguards explain`` prints under a reason.

``HINTS`` maps a pattern (a regular expression searched in the reason as explain shows
it, diagnostics/names.py's names applied) to the hint; the first pattern that matches
wins, so the specific ones come first.  The reasons are those of docs/supported-python.md.
"""
from __future__ import annotations

import re

NOTHING = "nothing to change: "

HINTS = {
    # -- the tiering: not worth compiling (yet) ------------------------------------------------
    r"^little work: ": NOTHING + "too little work to gain from compiling",
    r"^not compiled yet: ": NOTHING + "it compiles once it has run long enough "
                                      "(MEGAGUARDS_COMPILE_AFTER=0 compiles at the first entry)",
    # -- statements and calls -----------------------------------------------------------------
    r"call to 'print' as a statement": "move the print out of the loop: keep what to print (a count, a list "
                                       "of flags) and print it after the loop",
    r"call to '[\w.]+\.(extend|pop|insert|remove|sort|clear)' as a statement":
        "build the list before the loop (out = [0.0] * n) and assign out[i] in it; 'append' compiles",
    r"call to '[^']+' as a statement": "a call used as a statement may have side effects: compute values in the "
                                       "loop, act on them after it",
    r"'(try|with)' inside the loop": "put the try/with around the whole loop, not inside it",
    r"'(global|nonlocal)'|declares 'global'|declares 'nonlocal'":
        "pass the value in as an argument and return the new value, instead of global/nonlocal",
    r"recursive call": "write the recursion as a loop (with an explicit stack), or keep this loop in CPython",
    r"takes \*args or \*\*kwargs": "give the function named parameters instead of *args/**kwargs",
    r"is decorated": "call the undecorated function inside the loop (keep the decorated one for outside calls)",
    r"the source of function '[^']+' is not available": "define the function with def in a .py file "
                                                        "(not with exec or eval)",
    r"is not a supported built-in or math function|not bound to a supported built-in":
        "only abs/min/max/int/float/round/pow, math functions and your own functions compile: use those",
    # -- types and values ---------------------------------------------------------------------
    r"changes type inside the loop": "give the variable its final type before the loop (odd = 0, "
                                     "not odd = False; s = 0.0 for a float sum)",
    r"an array live-in is a dict": "index a list or NumPy array instead of a dict (keys 0..n-1 make a list), "
                                   "or keep this loop in CPython",
    r"an array live-in is a \w+, not a list": "convert it before the loop: list(xs) or numpy.asarray(xs)",
    r"(dict|list|set|tuple|str) customises attribute access":
        "the loop calls a method of a built-in container (d.get, d.keys): put what it needs into a list before "
        "the loop (vals = [d.get(i, 0) for i in range(n)]) and index that",
    r"customises attribute access|is a property or descriptor|is missing or computed":
        "read the attribute into a local variable before the loop (n = obj.n) and use that in the loop",
    r"is a NumPy array of dtype": "convert it before the loop: a.astype(numpy.float64) (or int64, int32, float32)",
    r"an empty list \(its element type is unknown\)": NOTHING + "an empty list runs in CPython; "
                                                      "the loop compiles once the list has elements",
    r"not rectangular or not homogeneous": "make the rows equally long and the elements all numbers "
                                           "(no bools among them, ints within int64)",
    r"a list row appears twice": "build rows that are distinct lists: [[0] * n for _ in range(m)], "
                                 "not [[0] * n] * m",
    r"is a \w+, not a number": "pass int or float values (float(x)), not Fraction, Decimal or subclasses",
    r"more than \d+ type signatures": "call the loop's function with fewer combinations of types "
                                      "(floats everywhere, or ints everywhere)",
    r"unbound before the loop": NOTHING + "CPython raises the NameError, as it should",
    # -- syntax -------------------------------------------------------------------------------
    r"'for' over something other than range|iterating over a generator":
        "iterate over range(...), a list or a NumPy array (for i in range(len(xs)), for x in xs)",
    r"partial indexing such as 'row = A\[i\]'": "index elements in full, A[i][j], instead of naming a row "
                                                "(row = A[i]; row[j])",
    r"\bslice\b": "index elements one by one (a[i]) instead of slicing, or slice outside the loop",
    r"constant of type str|str constant|f-string": "keep strings out of the loop: compute numbers in it, format "
                                                   "them after it",
    r"character of a str|characters of a str": "compare characters with each other or with one-character "
                                               "constants (c == 'a', c in 'aeiou'), or use ord(c) as a number",
    r"list display|list comprehension|dict display|set display": "allocate lists before the loop "
                                                                   "(out = [0.0] * n) and assign elements in it; "
                                                                   "a table built row by row compiles as row = [], "
                                                                   "row.append(v), table.append(row)",
    r"would run its code|is assigned and '[\w.]+' used too|assignment to attribute": \
        "accumulate in a local variable, and assign the attribute after the loop",
    # -- runtime flags ------------------------------------------------------------------------
    r"runtime flag: index out of range": "an index went out of range, or a name holding None was used as an "
                                         "object (CPython ran the loop and raised its error): check the "
                                         "loop's bounds",
    r"runtime flag: integer overflow": "the ints outgrew int64, so CPython's big ints ran it: use floats if "
                                       "exact big ints are not needed",
    r"runtime flag: the loop reached a 'raise'": "the exception is CPython's to raise: nothing to change if it "
                                                "is rare (a loop that raises at each entry backs off)",
    r"returned None where its value is used": "the function compiles, the None is CPython's: give it a 'return' "
                                              "on every path if None is not meant (a loop that meets it at "
                                              "each entry backs off)",
    r"raised an IEEE flag": "numpy.seterr(all='ignore') keeps such loops compiled, if you mean it",
    # -- compiled, kept sequential ------------------------------------------------------------
    r"too little work per step to fold it in order": "MEGAGUARDS_REASSOCIATE=1 allows a reassociated parallel "
                                                     "sum (the last bits may differ)",
    r"carries a value from one iteration to the next": "nothing to change if each step needs the previous one "
                                                       "(a prefix sum); else compute it from the loop variable "
                                                       "(x = x0 + i * dx, not x += dx)",
    r"carries a [\w/]+ dependence on": "write the results into another array than the one the loop reads",
    r"leaves it early": NOTHING + "a loop that stops early runs compiled, on one core",
    r"proven in range before the loop": "for loops over range(...) and subscripts affine in their variables "
                                        "(a[i + 1], A[i][j]) are checked once, before the loop",
}
_COMPILED = tuple((re.compile(pattern), hint) for pattern, hint in HINTS.items())
# A loop over a slice (``sum(r[1:])`` in a comprehension) is refused as a 'for' over something
# other than range: the slice is what to change.
_SLICED = re.compile(r"\[[^\]\[]*:[^\]\[]*\]")
_OVER = re.compile(r"'for' over something other than range")


def hint_for(reason: str, source: str = "") -> str | None:
    """The hint of the first pattern ``reason`` matches, None if none does; ``source``, the
    loop's line as written, tells a loop over a slice."""
    if _OVER.search(reason) and _SLICED.search(source):
        return HINTS[r"\bslice\b"]
    for pattern, hint in _COMPILED:
        if pattern.search(reason):
            return hint
    return None
