"""Strings and bytes as read-only arrays (issue 29, item 4): a str's characters are held as
their code points (ir.types PY_CHAR), bytes and bytearray as their ints.  Each case runs
under CPython and compiled; results, exceptions and partial state must be identical, and
the compiled path must have run (or fallen back for the reason given)."""
from __future__ import annotations

import pytest
from conftest import assert_same_as_cpython

from megaguards.frontend.rewrite import never_compiles


def distance(a, b, d):
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
    return d[len(a)][len(b)]


def table(m, n):
    return [[i if j == 0 else j if i == 0 else 0 for j in range(n + 1)] for i in range(m + 1)]


@pytest.mark.parametrize("a, b", [("kitten", "sitting"), ("", "abc"), ("naïve café", "naive cafe"),
                                  ("𝄞 clef 😀", "clef 😀 𝄞"), ("Ωmega", "omega")])
def test_edit_distance_over_any_code_points(a, b):
    assert_same_as_cpython(distance, a, b, table(len(a), len(b)))


def classify(text, out):
    for i in range(len(text)):
        c = text[i]
        out[i] = (c in "aeiou") + 2 * (c not in "xyz") + 4 * ("a" <= c < "n") + 8 * (c == text[-1 - i])
    return c


def test_membership_order_and_a_character_kept_after_the_loop():
    assert_same_as_cpython(classify, "the quick brown fox", [0] * 19)
    assert_same_as_cpython(classify, "x", [0])


def extremes(a, b, out):
    for i in range(len(out)):
        out[i] = ord(max(a[i], b[i])) - ord(min(a[i], b[i], "m"))
    return out


def test_ord_min_and_max_of_characters():
    assert_same_as_cpython(extremes, "azby", "bycz", [0] * 4)


def checksum(data):
    total = 0
    for i in range(len(data)):
        total += data[i] * (i + 1) - data[-1]
    return total


def test_bytes_and_bytearray_give_their_ints():
    assert_same_as_cpython(checksum, bytes(range(256)))
    assert_same_as_cpython(checksum, bytearray(b"\x00\xff\x10" * 100))


def past_the_end(text, out, n):
    for i in range(n):
        out[i] = ord(text[i])
    return out


def test_an_index_past_the_end_raises_cpythons_error_with_cpythons_partial_state():
    assert_same_as_cpython(past_the_end, "abc", [0] * 5, 5, compiled=None)
    assert_same_as_cpython(past_the_end, "abc", [0] * 3, 3)


def truthy(text):
    n = 0
    for i in range(len(text)):
        if text[i]:
            n += 1
    return n


def either(text, out):
    for i in range(len(out)):
        out[i] = ord(text[i] or "z")
    return out


def as_bool(text, out):
    for i in range(len(out)):
        out[i] = bool(text[i])
    return out


def joined(text, out):
    for i in range(len(out)):
        out[i] = ord(text[i] + "a")
    return out


def against_number(text, out):
    for i in range(len(out)):
        out[i] = text[i] < 5
    return out


def longer(text, out):
    for i in range(len(out)):
        out[i] = text[i] == "ab"
    return out


def empty_membership(text, out):
    for i in range(len(out)):
        out[i] = text[i] in ""
    return out


@pytest.mark.parametrize("function, reason", [
    (truthy, "the truth value of a character"),
    (either, "'or' of characters"),
    (as_bool, "bool() of a character"),
    (joined, "'+' on str and str"),
    (against_number, "only compares with another character"),
    (longer, "the str constant 'ab'"),
    (empty_membership, "'in' an empty str"),
])
def test_what_a_character_cannot_do_stays_in_cpython(function, reason):
    """The NUL character is false to C, true to Python; the others raise or differ."""
    arguments = (("a\x00b",) if function is truthy else ("a\x00b", [0] * 3))
    assert_same_as_cpython(function, *arguments, compiled=reason)


def test_element_loops_with_one_character_constants_become_sites():
    import ast

    def loop(source: str) -> ast.For:
        return ast.parse(source).body[0]
    assert not never_compiles(loop("for ch in s:\n    n += ch == 'a' or ch in 'xyz'"))
    assert never_compiles(loop("for ch in s:\n    n += ch == 'ab'"))
    assert never_compiles(loop("for ch in s:\n    print('x')"))
    assert never_compiles(loop("for ch in s:\n    n += ch in ''"))


def test_under_device_gpu_a_str_stays_on_the_cpu_and_says_so(monkeypatch):
    import warnings

    import megaguards
    from conftest import sites_of
    from megaguards import config
    from megaguards.runtime import process

    monkeypatch.setattr(config, "_current", config.current()._replace(device="gpu"))
    fast = megaguards.jit(checksum)
    with process.fresh(), warnings.catch_warnings():   # "no CUDA device is usable": this process's own
        warnings.simplefilter("ignore")
        assert fast(b"megaguards") == checksum(b"megaguards")
    [record] = sites_of(fast)
    notes = [reason for reason in record["reasons"] if reason.startswith("not on the GPU")]
    assert notes == ["not on the GPU: str or bytes 'data' runs on the CPU only"], record["reasons"]
    assert record["compiled_runs"] == 1
