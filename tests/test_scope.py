"""Live-in / live-out analysis of loops (frontend/scope.py)."""
import ast

from megaguards.frontend.scope import assigned_names, upward_exposed_reads


def loop_of(source: str) -> ast.For:
    return next(node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.For))


def test_temporaries_defined_before_use_are_not_live_ins():
    loop = loop_of("for i in range(n):\n    t = a[i] * 2\n    b[i] = t + s\n")
    assert set(upward_exposed_reads(loop)) == {"range", "n", "a", "b", "s"}


def test_accumulator_is_read_before_written():
    loop = loop_of("for i in range(n):\n    s += a[i]\n")
    assert "s" in upward_exposed_reads(loop)


def test_conditionally_bound_name_is_exposed():
    loop = loop_of("for i in range(n):\n    if i > 2:\n        t = 1\n    y = t\n")
    assert "t" in upward_exposed_reads(loop)


def test_bound_on_both_branches_is_not_exposed():
    loop = loop_of("for i in range(n):\n    if i > 2:\n        t = 1\n    else:\n        t = 2\n    y = t\n")
    assert "t" not in upward_exposed_reads(loop)


def test_inner_loop_variable_read_after_inner_loop_is_exposed():
    loop = loop_of("for i in range(n):\n    for j in range(i):\n        pass\n    y = j\n")
    assert "j" in upward_exposed_reads(loop)


def test_assigned_names_include_targets_and_loop_variables():
    tree = ast.parse("for i in range(n):\n    a, b = b, a\n    for j in range(2):\n        s += j\n")
    assert sorted(assigned_names(tree)) == ["a", "b", "i", "j", "s"]
