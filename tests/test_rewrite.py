"""The source rewrite (frontend/rewrite.py): loops become sites, nothing else changes."""
import ast

from megaguards.frontend.rewrite import SITE_FUNCTION, rewrite_module


def rewrite_tree(source: str):
    infos = []

    def register(info):
        infos.append(info)
        return len(infos) - 1

    tree, count = rewrite_module(ast.parse(source), "<test>", register)
    return tree, infos, count


def rewrite(source: str):
    tree, infos, count = rewrite_tree(source)
    return ast.unparse(tree), infos, count


def test_range_loop_becomes_a_site_with_fallback():
    text, infos, count = rewrite("def f(a, n):\n    for i in range(n):\n        a[i] = i\n")
    assert count == 1 and SITE_FUNCTION in text
    assert infos[0].live_ins == ("range", "n", "a") and infos[0].live_outs == ("i",)
    assert infos[0].function == "f" and infos[0].line == 2
    assert "for i in range(n):" in text  # the original loop is kept as the fallback


def test_inner_loops_of_the_fallback_are_sites_too():
    _, infos, count = rewrite("for i in range(3):\n    print(i)\n    for j in range(4):\n        x = j\n")
    assert count == 2 and [info.line for info in infos] == [1, 3]


def test_an_innermost_loop_is_written_twice_so_a_skipped_entry_runs_its_own_copy():
    """A skipped entry of an innermost site costs the draw and nothing else (no temporaries
    set and deleted, no probe test); a loop holding loops keeps one copy (copies would double
    per level), its inner site written twice."""
    text, _, _ = rewrite("def f(a, n):\n    for i in range(n):\n        for j in range(n):\n            a[j] = i\n")
    assert text.count("for j in range(n):") == 2 and text.count("for i in range(n):") == 1
    skips = {ast.unparse(node.test): node.body for node in ast.walk(ast.parse(text)) if isinstance(node, ast.If)
             and "__megaguards_next__" in ast.unparse(node.test)}
    outer, inner = (skips[test] for test in sorted(skips))
    assert [type(node) for node in inner] == [ast.For] and ast.unparse(inner[0]).startswith("for j in range(n):")
    assert [type(node) for node in outer] == [ast.Assign]   # the temporaries set to None, one copy after


def test_non_range_loops_and_class_bodies_are_untouched():
    source = "for x in items():\n    pass\nclass C:\n    for k in range(3):\n        pass\n"
    text, _, count = rewrite(source)
    assert count == 0 and ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))


def test_element_loops_are_sites_reading_the_builtins_their_index_form_calls():
    _, infos, count = rewrite("for i, x in enumerate(xs):\n    s = x\n")
    assert count == 1 and infos[0].live_ins == ("enumerate", "xs", "range", "len", "min")
    assert infos[0].live_outs == ("i", "x", "s")


def test_methods_get_qualified_names():
    _, infos, _ = rewrite("class C:\n    def m(self):\n        for i in range(self.n):\n            pass\n")
    assert infos[0].function == "C.m" and "self" in infos[0].live_ins


def test_line_numbers_of_the_fallback_are_preserved():
    tree, _, _ = rewrite_tree("x = 1\n\n\nfor i in range(2):\n    y = 1 / 0\n")
    fallback = next(node for node in ast.walk(tree) if isinstance(node, ast.For))
    assert fallback.lineno == 4


def test_every_assigned_name_is_written_back():
    # Even names the function never reads again: tracebacks and debuggers show them.
    _, infos, _ = rewrite("def f(a, n):\n    t = 0\n    for i in range(n):\n        t = a[i]\n        s = t * 2\n"
                          "    return t\n")
    assert infos[0].live_outs == ("i", "t", "s")


def test_a_while_loop_holding_loops_or_counting_is_a_site_compiled_as_a_one_trip_for():
    sieve = ("def f(flags, limit):\n    p = 2\n    while p * p <= limit:\n        if flags[p]:\n"
             "            for m in range(p * p, limit + 1, p):\n                flags[m] = False\n        p += 1\n")
    text, infos, count = rewrite(sieve)
    assert count == 2 and [info.line for info in infos] == [3, 5]   # the inner loop stays a site in the fallback
    wrapper = infos[0].loop
    assert isinstance(wrapper, ast.For) and ast.unparse(wrapper.iter) == "range(1)"
    assert isinstance(wrapper.body[0], ast.While) and wrapper.body[0].lineno == 3
    assert infos[0].live_ins == ("range", "p", "limit", "flags") and infos[0].live_outs == ("p", "m")
    assert "mg_tmp_while" not in text and "while p * p <= limit:" in text   # the fallback is the loop as written
    _, infos, count = rewrite("i = 0\nwhile i < n:\n    s = s + a[i]\n    i += 1\n")
    assert count == 1 and infos[0].work   # counts to a bound: its work is told, it is tiered


def test_other_while_loops_stay_as_written():
    for source in ("def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
                   "while x != 1:\n    x = x // 2 if x % 2 == 0 else 3 * x + 1\n"):
        text, _, count = rewrite(source)
        assert count == 0 and ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))
    # Holding something no kernel contains: only its inner range loop is a site.
    _, infos, _ = rewrite("while i < n:\n    for j in range(3):\n        print('row', j)\n    i += 1\n")
    assert [info.line for info in infos] == [2]


def test_a_loop_that_returns_compiles_with_a_flag_and_the_rewritten_code_returns_its_value():
    text, infos, count = rewrite("def find(a, x):\n    for i in range(len(a)):\n        if a[i] == x:\n"
                                 "            return i\n    return -1\n")
    assert count == 1 and infos[0].live_outs == ("i", "mg_returned", "mg_return_value")
    compiled = ast.unparse(infos[0].loop)
    assert not any(isinstance(n, ast.Return) for n in ast.walk(infos[0].loop))
    assert "mg_returned = True" in compiled and "break" in compiled
    assert "return i" in text   # the fallback as written
    namespace = {}
    exec(compile(text, "<test>", "exec"), namespace)   # the site says it returned 2
    namespace.update(__megaguards_next__=next, __megaguards_skip_0__=iter(()), __megaguards_unset__=object(),
                     __megaguards_probing__=False)
    namespace["__megaguards_site__"] = lambda key, values: (2, True, 2)
    assert namespace["find"]([7, 8, 9], 9) == 2
    unset = namespace["__megaguards_unset__"]
    namespace["__megaguards_site__"] = lambda key, values: (4, True, unset)    # a bare return
    assert namespace["find"]([7, 8, 9], 9) is None
    namespace["__megaguards_site__"] = lambda key, values: (2, False, unset)   # no return: on after the loop
    assert namespace["find"]([7, 8, 9], 9) == -1
