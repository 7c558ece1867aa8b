"""Device copies of read-only lists kept across entries (runtime/data.py's DeviceCopies.
still_holds): a list the kernel only reads, met again at the next entry, is copied to the
device once more and from then on served again while it holds the very element objects it
was copied from (a list met once is never kept nor referenced); any change to the list (an
element replaced, even by an equal value, a row replaced, the list grown or shrunk) copies
it again.  On the GPU where there is one, else on the CUDA emulator (tests/cuda_emulator.py):
results compared with CPython's at every entry, copies counted by the site's report."""
from __future__ import annotations

import sys

import megaguards
from conftest import _comparable, sites_of

N = 64


def scaled(weights, out, factor):
    for i in range(len(out)):
        out[i] = weights[i] * factor + out[i]


def smoothed(grid, out):
    for i in range(1, len(grid) - 1):
        for j in range(len(grid[0])):
            out[i][j] = grid[i - 1][j] + grid[i][j] + grid[i + 1][j]


def copies(fast) -> int:
    return sites_of(fast)[0]["transfers"]["to_device"]


def entered(emulator, function, calls):
    """Each call (arguments for it, made by ``calls``) plainly and jitted in turn (``emulator``:
    the CUDA emulator, or None on a real GPU): same results and arguments afterwards.  The
    copies to the device each jitted call made (the site's report in ``entered.report``)."""
    fast = megaguards.jit(function, strict=True)
    made = []
    for plain_arguments, fast_arguments in calls:
        expected = function(*plain_arguments)
        before = copies(fast) if made else 0
        actual = fast(*fast_arguments)
        assert emulator is None or not emulator.errors
        assert _comparable((actual, fast_arguments)) == _comparable((expected, plain_arguments))
        made.append(copies(fast) - before)
    entered.report = sites_of(fast)[0]
    assert entered.report["backend"] == "cuda"
    return made


def twice(*arguments):
    """The same arguments for the plain and the jitted call (fresh copies of the lists written)."""
    return tuple(list(a) if isinstance(a, list) else a for a in arguments)


def test_a_read_only_list_met_again_stays_while_it_holds_the_same_objects(cuda_device):
    weights = [float(k % 7) * 0.5 for k in range(N)]
    plain, fast = [0.0] * N, [0.0] * N
    made = entered(cuda_device, scaled, [((weights, plain, f), (weights, fast, f)) for f in (1.0, 2.0, 3.0, 4.0)])
    assert made == [2, 2, 1, 1]   # kept from the second entry: then only 'out' (written: copied each entry)
    assert entered.report["transfers"]["kept"] == 2   # the report says so


def test_a_list_met_once_is_not_referenced(cuda_device):
    """Fresh lists at each entry (a benchmark's new inputs): no snapshot holds their elements,
    so they die with the program's last reference, as under CPython."""
    fast = megaguards.jit(scaled, strict=True)
    for factor in (1.0, 2.0, 3.0):
        weights = [float(k) * factor + 0.25 for k in range(N)]   # new float objects, one reference each
        fast(weights, [0.0] * N, factor)
        references = sys.getrefcount(weights[7])   # outside the assert: pytest's rewriting holds one
        assert references == 2   # the list's and getrefcount's argument
    assert sites_of(fast)[0]["transfers"]["kept"] == 0
    fast(weights, [0.0] * N, 4.0)   # the same list again: its objects recorded for the next entry
    references = sys.getrefcount(weights[7])
    assert references == 3


def test_a_replaced_element_is_seen_even_when_equal(cuda_device):
    weights = [float(k) for k in range(N)]
    plain, fast = [1.0] * N, [1.0] * N
    calls = [((weights, plain, 2.0), (weights, fast, 2.0))]
    made = entered(cuda_device, scaled, calls)
    weights[5] = 100.0                  # a new value
    made += entered_again(cuda_device, weights, plain, fast)
    weights[6] = float(6)               # an equal value, another object: copied again all the same
    made += entered_again(cuda_device, weights, plain, fast)
    weights.append(1.5)                 # grown: another shape
    made += entered_again(cuda_device, weights, plain, fast)
    assert made == [2, 2, 2, 2]


def entered_again(device, weights, plain, fast):
    return entered(device, scaled, [((weights, plain, 3.0), (weights, fast, 3.0))])


def test_a_replaced_row_of_a_grid_is_copied_again(cuda_device):
    grid = [[float(i * 8 + j) for j in range(8)] for i in range(8)]
    calls = []
    for step in range(3):
        calls.append(((grid, [[0.0] * 8 for _ in range(8)]), (grid, [[0.0] * 8 for _ in range(8)])))
    made = entered(cuda_device, smoothed, calls)
    assert made[1:] == [2, 1]   # the grid stayed from the second entry: only 'out'
    grid[3] = [-1.0] * 8
    again = entered(cuda_device, smoothed, [((grid, [[0.0] * 8 for _ in range(8)]),
                                          (grid, [[0.0] * 8 for _ in range(8)]))])
    assert again == [2]


def with_work_list(values):
    work = [0.0] * len(values)   # the function's own list: written, never boxed back (scratch.py)
    for i in range(len(values)):
        work[i] = work[i] + values[i] * 2.0
    for i in range(len(values)):
        values[i] = work[i] + 1.0
    return len(values)


def test_a_work_list_written_on_the_device_is_never_kept(cuda_device):
    """Each call's work list holds the same 0.0 object everywhere, as the one before did:
    a kept copy would carry the previous call's writes."""
    values = [float(k) for k in range(N)]
    plain, fast = list(values), list(values)
    entered(cuda_device, with_work_list, [((plain,), (fast,)) for _ in range(3)])
