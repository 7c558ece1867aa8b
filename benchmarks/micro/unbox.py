"""Unboxing a list of floats: megaguards' list helper vs numpy.array(list), one process.

Usage: python unbox.py N [REPEATS]

Builds a list of N distinct Python floats, then alternates, REPEATS times:
``numpy.array(lst)``, the megaguards path a loop site takes for a 1-D list
(guard/probe + unbox into a new float64 buffer), and ``numpy.array(lst, dtype=float64)``.
Checks the buffers are equal and prints one JSON object: every timing and the
best of each.  Needs megaguards (and a C compiler); MEGAGUARDS_CACHE_DIR picks
where the helper is compiled/cached.

Two helper APIs are recognised: ``backend.list_codec()`` returning a ListCodec
(``probe`` + ``unbox``, the API of commit be1780c), and the single-call helper
of ``marshal.helper(...)`` with the guard's ``list_leaf_class`` + ``mg_unbox_floats``
(the API since).  The JSON says which one ran.
"""
import json
import random
import sys
import time

import numpy

from megaguards import config
from megaguards.guards.signature import list_leaf_class
from megaguards.runtime import backend, marshal


def list_unboxer():
    """(api name, function list -> (float64 buffer, element description)) for this megaguards."""
    if hasattr(backend, "list_codec"):
        codec = backend.list_codec()
        if codec is None:
            raise SystemExit("no C compiler: megaguards' list helper is unavailable")

        def unbox(values):
            element, shape = codec.probe(values, 1)
            return codec.unbox(values, element, shape), f"{element} {list(shape)}"

        return "ListCodec.probe+unbox", unbox
    if hasattr(marshal, "helper"):
        found = backend.compiler()
        if found is None:
            raise SystemExit("no C compiler: megaguards' list helper is unavailable")
        library = marshal.helper(config.current().cache_dir, found)

        def unbox(values):
            leaf = list_leaf_class(values, 1)
            buffer = numpy.empty(max(1, len(values)), dtype=numpy.float64)
            if library.mg_unbox_floats(values, buffer.ctypes.data, len(values)):
                raise SystemExit("mg_unbox_floats refused the list")
            return buffer[:len(values)], leaf.__name__

        return "list_leaf_class+mg_unbox_floats", unbox
    raise SystemExit("unknown megaguards list helper API (neither backend.list_codec nor marshal.helper)")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10**7
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    api, unbox = list_unboxer()
    generator = random.Random(12345)
    values = [generator.random() for _ in range(n)]
    unbox(values[:10])  # load the helper (compiled on first use) outside the timings
    timings = {"numpy_array": [], "megaguards": [], "numpy_array_dtype": []}
    for _ in range(repeats):
        started = time.perf_counter()
        reference = numpy.array(values)
        timings["numpy_array"].append(time.perf_counter() - started)
        del reference

        started = time.perf_counter()
        buffer, _ = unbox(values)
        timings["megaguards"].append(time.perf_counter() - started)
        del buffer

        started = time.perf_counter()
        typed = numpy.array(values, dtype=numpy.float64)
        timings["numpy_array_dtype"].append(time.perf_counter() - started)
        del typed
    reference = numpy.array(values)
    buffer, element = unbox(values)
    equal = bool(reference.dtype == buffer.dtype and reference.shape == buffer.shape
                 and numpy.array_equal(reference, buffer))
    print(json.dumps({"n": n, "repeats": repeats, "api": api, "element": element,
                      "equal": equal, "timings": timings,
                      "best": {key: min(value) for key, value in timings.items()}}))


if __name__ == "__main__":
    main()
