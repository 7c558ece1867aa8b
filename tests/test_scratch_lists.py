"""Scratch lists (frontend/scratch.py): a function's own work list that nothing can read once
its loop ends is not boxed back; every other written list is, and the results are CPython's
either way.  The report's ``list_elements["boxed"]`` says which lists went back."""
from __future__ import annotations

import ast
import textwrap

import pytest
from conftest import assert_same_as_cpython, sites_of

from megaguards.frontend.scratch import scratch_lists
from megaguards.frontend.siteinfo import SiteInfo, restored_info, site_record


def scratch_of(source: str) -> set[str]:
    """The scratch names of the (one) function in ``source``, over all its loops."""
    [function] = ast.parse(textwrap.dedent(source)).body
    return set().union(*scratch_lists(function).values())


@pytest.mark.parametrize("source, expected", [
    # the plain case, and the forms of a fresh list
    ("""
     def f(a, n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = a[i]
         return a
     """, {"tmp"}),
    ("""
     def f(a, n):
         grid = [[0.0] * n for _ in range(n)]
         marks = [i * 2 for i in range(n)]
         for i in range(n):
             grid[i][i] = a[i] + marks[i]
     """, {"grid", "marks"}),
    ("""
     def f(image, rows, cols):
         c, dn = ([[0.0] * cols for _ in range(rows)] for _ in range(2))
         u, v = [0] * rows, [[1, 2], [3, 4]]
         for t in range(3):
             step(image, c, dn, u, v)
         return image, rows
     """, {"c", "dn", "u", "v"}),
    # what keeps a list alive after the loop, or makes it someone else's
    ("""
     def f(n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = i
         return tmp
     """, set()),
    ("""
     def f(n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = i
         total = tmp[0]
         return total
     """, set()),
    ("""
     def f(n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = i
         return len(tmp) > 0
     """, set()),
    ("""
     def f(n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = i
         return locals()
     """, set()),
    ("""
     def f(n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = i
         print(sys._getframe())
     """, set()),
    ("""
     def f(n, rows):
         tmp = [rows[0], rows[1]]
         for i in range(n):
             tmp[0][i] = i
     """, set()),
    ("""
     def f(n, row):
         tmp = [row] * n
         for i in range(n):
             tmp[i][0] = i
     """, set()),
    ("""
     def f(n, x):
         tmp = [x for _ in range(n)]
         for i in range(n):
             tmp[i] = i
     """, set()),
    ("""
     def f(n):
         tmp = spare = [0.0] * n
         for i in range(n):
             tmp[i] = i
     """, set()),
    ("""
     def f(a, n):
         tmp = [0.0] * n
         for t in range(3):
             for i in range(n):
                 tmp[i] = a[i]
             a, tmp = tmp, a
         return a
     """, set()),
    ("""
     def f(a, n):
         tmp = [0.0] * n
         tmp[0] = a
         for i in range(n):
             tmp[i] = a[i]
     """, set()),
    ("""
     def f(a, n, out):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = a[i]
             out.append(tmp)
     """, set()),
    ("""
     def f(a, n):
         tmp = [0.0] * n
         for row in tmp:
             a[0] += row
     """, set()),
    ("""
     def f(a, n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = a[i]
         def later():
             return tmp
         return a
     """, set()),
    ("""
     def f(a, n):
         tmp = [0.0] * n
         if n:
             tmp = a
         for i in range(n):
             tmp[i] = a[i]
     """, set()),
    ("""
     def f(a, n):
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = a[i]
         a[0] = 1.0
     """, set()),
    ("""
     def f(a, n):
         tmp = [0.0] * n
         with open_something():
             for i in range(n):
                 tmp[i] = a[i]
     """, set()),
    ("""
     def f(a, n):
         global tmp
         tmp = [0.0] * n
         for i in range(n):
             tmp[i] = a[i]
     """, set()),
])
def test_which_lists_are_scratch(source, expected):
    assert scratch_of(source) == expected


def smooth(values, n, steps):
    work = [0.0] * n
    for t in range(steps):
        for i in range(1, n - 1):
            work[i] = (values[i - 1] + values[i] + values[i + 1]) / 3.0
        for i in range(1, n - 1):
            values[i] = work[i] * 0.5 + work[n - 1 - i] * 0.5
    return values


def scaled_and_kept(values, n, steps):
    work = [0.0] * n
    for t in range(steps):
        for i in range(n):
            work[i] = values[i] * t
    return work


def derivatives(image, north, south, dn, ds, rows, cols):
    for i in range(rows):
        for j in range(cols):
            dn[i][j] = image[north[i]][j] - image[i][j]
            ds[i][j] = image[south[i]][j] - image[i][j]


def diffuse(image, rows, cols, steps):
    north = [max(i - 1, 0) for i in range(rows)]
    south = [min(i + 1, rows - 1) for i in range(rows)]
    dn, ds = ([[0.0] * cols for _ in range(rows)] for _ in range(2))
    for t in range(steps):
        derivatives(image, north, south, dn, ds, rows, cols)
        for i in range(rows):
            for j in range(cols):
                image[i][j] += 0.125 * (dn[i][j] + ds[i][j])
    return image


def boxed(fast, line_of_loop: str) -> dict:
    [record] = [r for r in sites_of(fast) if r["source"].startswith(line_of_loop) and r["compiled_runs"]]
    return record["list_elements"]


def test_a_work_list_is_not_boxed_back():
    n = 40
    fast = assert_same_as_cpython(smooth, [float(i % 7) for i in range(n)], n, 3)
    counted = boxed(fast, "for t in range(steps)")
    assert counted["unboxed"] == n + (n - 2) and counted["boxed"] == n   # values only (work: 1 .. n - 2)


def test_a_returned_work_list_is_boxed_back():
    n = 40
    fast = assert_same_as_cpython(scaled_and_kept, [float(i % 7) for i in range(n)], n, 3)
    assert boxed(fast, "for t in range(steps)")["boxed"] == n


def test_work_lists_of_inlined_steps_unpacked_from_a_generator():
    rows, cols = 6, 5
    image = [[float((i * cols + j) % 11) + 1.0 for j in range(cols)] for i in range(rows)]
    fast = assert_same_as_cpython(diffuse, image, rows, cols, 2)
    counted = boxed(fast, "for t in range(steps)")
    assert counted["boxed"] == rows * cols   # the image; dn and ds stay behind


def test_the_scratch_names_survive_the_rewrite_cache():
    info = SiteInfo(filename="f.py", line=3, function="f", loop=ast.parse("for i in range(3): pass").body[0],
                    live_ins=("range",), live_outs=("i",), scratch=("tmp", "work"))
    assert restored_info(site_record(info)).scratch == ("tmp", "work")


# -- random work-list programs, compiled and compared with CPython ---------------------------

def random_program(seed: int) -> tuple[str, bool]:
    """A function with a local work list in a time loop (a stencil into it, then back), ended in
    one of several ways; (its source, whether the work list is scratch)."""
    import random

    r = random.Random(seed)
    two_d = r.random() < 0.5
    zero = r.choice(["0.0", "0"])
    make = f"[[{zero}] * n for _ in range(n)]" if two_d else f"[{zero}] * n"
    at = (lambda a, di, dj: f"{a}[(i + {di}) % n][(j + {dj}) % n]") if two_d else \
         (lambda a, di, dj: f"{a}[(i + {di}) % n]")
    offsets = lambda: (r.randint(0, 3), r.randint(0, 3))   # noqa: E731
    into_work = " + ".join(at("a", *offsets()) for _ in range(r.randint(1, 3)))
    back = " + ".join(at("work", *offsets()) for _ in range(r.randint(1, 3)))
    ending, scratch = r.choice([("return a", True), ("return n, t", True), ("", True),
                                ("return work", False), ("return work[0]", False), ("return sum(a) if n < 0 else n", False)])
    inner = "for j in range(n):\n                " if two_d else ""
    target = "[i][j]" if two_d else "[i]"
    source = f"""
def work_steps(a, n, steps):
    work = {make}
    for t in range(steps):
        for i in range(n):
            {inner}work{target} = ({into_work}) * 0.5 + t
        for i in range(n):
            {inner}a{target} = a{target} * 0.25 + {back} * 0.125
    {ending}
"""
    return source, scratch


@pytest.mark.parametrize("seed", range(12))
def test_random_work_lists_give_cpython_s_results(seed, tmp_path, monkeypatch):
    import importlib

    source, scratch = random_program(seed)
    (tmp_path / f"work_lists_{seed}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(f"work_lists_{seed}")
    assert (scratch_of(source) == {"work"}) is scratch, source
    n = 7
    two_d = "[i][j]" in source
    a = [[float((i * n + j) % 5) for j in range(n)] for i in range(n)] if two_d else [float(i % 5) for i in range(n)]
    fast = assert_same_as_cpython(module.work_steps, a, n, 3)
    counted = boxed(fast, "for t in range(steps)")
    elements = n * n if two_d else n
    assert counted["boxed"] == (elements if scratch else 2 * elements), (source, counted)
