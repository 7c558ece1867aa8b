"""``@megaguards.jit(strict=True)`` raises CompilationError, with the reason and a caret
under the source, at the first call reaching a loop that cannot compile; runtime
exceptions stay Python's; ``megaguards.explain(fn)`` gives the reasons without strict."""
import inspect

import pytest

import megaguards
from megaguards import CompilationError

from conftest import site_for

SOURCE = inspect.getsource(inspect.getmodule(inspect.currentframe())).splitlines()


def line_of(marker: str) -> int:
    """The line number in this file of the only line that carries ``marker``."""
    (number,) = [k + 1 for k, text in enumerate(SOURCE) if marker in text and "line_of(" not in text]
    return number


def caret_lines(error: CompilationError) -> tuple[str, str]:
    """The quoted source line and the caret line under it."""
    *_, source, carets = str(error).splitlines()
    return source, carets


def underlined(error: CompilationError) -> str:
    source, carets = caret_lines(error)
    start = carets.index("^")
    return source[start:start + carets.count("^")]


@megaguards.jit(strict=True)
def prints_each(a):
    for i in range(len(a)):
        a[i] = a[i] * 2
        print(a[i])  # marker: print call
    return a


def test_unsupported_call_raises_with_reason_location_and_caret(capsys):
    with pytest.raises(CompilationError) as caught:
        prints_each([1, 2, 3])
    error = caught.value
    assert "call to 'print'" in error.reason
    assert error.filename == __file__ and error.line == line_of("marker: print call")
    first = str(error).splitlines()[0]
    assert first.startswith(f"{__file__}:{error.line}:9: the loop at line {error.line - 2} in prints_each()")
    assert underlined(error) == "print(a[i])"
    assert capsys.readouterr().out == ""  # raised before the loop ran: nothing printed
    with pytest.raises(CompilationError):  # every call reaching it raises, not just the first
        prints_each([1])


def test_try_in_loop_underlines_the_try():
    @megaguards.jit(strict=True)
    def guarded(a):
        for i in range(len(a)):
            try:  # marker: try in loop
                a[i] = 1 / a[i]
            except ZeroDivisionError:
                a[i] = 0.0
        return a

    with pytest.raises(CompilationError, match="'try' inside the loop") as caught:
        guarded([1.0, 0.0])
    assert caught.value.line == line_of("marker: try in loop")
    assert underlined(caught.value).startswith("try:")


def test_type_the_guard_rejects_underlines_the_for():
    @megaguards.jit(strict=True)
    def doubled(a):
        for i in range(len(a)):  # marker: guarded for
            a[i] = a[i] * 2
        return a

    assert doubled([1, 2]) == [2, 4]
    with pytest.raises(CompilationError, match="guard: a list of str") as caught:
        doubled(["x", "y"])
    assert caught.value.line == line_of("marker: guarded for")
    assert underlined(caught.value) == "for"


def test_compiling_loop_does_not_raise_and_runtime_errors_stay_python():
    @megaguards.jit(strict=True)
    def shifted(a, n):
        for i in range(n):
            a[i] = a[i] + 1.5
        return a

    assert shifted([1.0, 2.0], 2) == [2.5, 3.5]
    assert site_for(shifted)[-1]["compiled_runs"] == 1
    with pytest.raises(IndexError, match="list index out of range"):
        shifted([1.0, 2.0], 3)  # the kernel's bounds flag: CPython's loop runs and raises
    with pytest.raises(ZeroDivisionError):
        divided = megaguards.jit(strict=True)(_divide)
        divided([1.0, 2.0], 0.0)


def _divide(a, d):
    for i in range(len(a)):
        a[i] = a[i] / d
    return a


def test_strict_raises_only_when_a_call_reaches_the_loop():
    @megaguards.jit(strict=True)
    def maybe(a, flag):
        if flag:
            for i in range(len(a)):
                a[i] = str(a[i])
        return a

    assert maybe([1], False) == [1]  # decorating and calls that skip the loop: no error
    with pytest.raises(CompilationError):
        maybe([1], True)


@pytest.mark.parametrize("decorate", [megaguards.jit, megaguards.jit(), megaguards.jit(strict=False)],
                         ids=["bare", "called", "strict-false"])
def test_without_strict_falls_back_silently_and_explain_says_why(decorate, recwarn):
    def mixed(a, flag):
        for i in range(len(a)):
            try:
                a[i] = a[i] * 2
            except TypeError:
                pass
        for j in range(len(a)):
            a[j] += 1
        if flag:
            for k in range(len(a)):
                a[k] = 0
        return a

    fast = decorate(mixed)
    assert fast([1, 2], False) == [3, 5]
    assert not [w for w in recwarn if "megaguards" in str(w.message)]
    text = megaguards.explain(fast)
    blocks = text.split("\n\n")
    assert len(blocks) == 3
    assert "in mixed(): entered 1x, compiled 0x" in blocks[0] and "'try' inside the loop" in blocks[0]
    assert "compiled 1x" in blocks[1]
    assert blocks[2].endswith("in mixed(): not run yet")
    assert "__megaguards_factory__" not in text


def test_explain_of_a_closure_and_of_a_plain_function():
    offset = 2

    def add(a):
        for i in range(len(a)):
            a[i] = a[i] + offset
        return a

    fast = megaguards.jit(add)
    assert fast([1]) == [3]
    assert "in add(): entered 1x, compiled 1x" in megaguards.explain(fast)
    assert "with @megaguards.jit" in megaguards.explain(len)


def test_element_loop_that_never_compiles_is_reported_too():
    @megaguards.jit(strict=True)
    def shout_all(words):
        out = []
        for word in words:
            out.append(word.upper() + "!")  # marker: string op
        return out

    with pytest.raises(CompilationError) as caught:
        shout_all(["a"])
    assert caught.value.line == line_of("marker: string op")
    assert megaguards.jit(shout_all.__wrapped__)(["a"]) == ["A!"]  # without strict: CPython, silently


def test_function_without_source_warns_or_raises_when_strict():
    namespace = {}
    exec("def made(a):\n    for i in range(len(a)):\n        a[i] += 1\n    return a\n", namespace)
    with pytest.warns(megaguards.MegaguardsWarning, match="no source for made; it runs unchanged"):
        assert megaguards.jit(namespace["made"])([1]) == [2]
    with pytest.raises(CompilationError, match="no source for made: its loops cannot be compiled"):
        megaguards.jit(strict=True)(namespace["made"])
