"""Loop sites at run time: a failure is paid once, then rarely (runtime/backoff.py).

A site whose try fails (the guard while binding, at entry or while unboxing; a runtime
flag; an expression site falling back) runs its next entries in CPython without binding,
tries again at its 2nd, 4th, 8th ... entry, and compiles again at once after a success;
results, exceptions and partial state are CPython's on every entry.  An expression site
whose compiled path is slower than CPython's run of it goes back to CPython for that size
class.  No test here is timed: the clocks are counted or faked."""
from __future__ import annotations

import types

import pytest

import megaguards
from conftest import sites_of
from megaguards.diagnostics.report import loop_record
from megaguards.guards.signature import Binder
from megaguards.runtime import backoff, expression_site, probe
from megaguards.runtime import site as site_module
from megaguards.runtime.expression_site import ExpressionSite
from megaguards.runtime.site import REGISTRY

TRIES = [1, 2, 4, 8, 16]   # the entries a hopeless site tries, of its first 20
FLAG_TRIES = [1, 2, 3, 4, 6, 10, 18]   # a runtime flag: two failures retried at once (data-dependent)


def total(values):
    n = 0
    for v in values:
        n += v
    return n


def copy_one_too_many(values, out):
    for i in range(len(values) + 1):
        out[i] = values[i] * 2


def squares(data):
    return sum(x * x for x in data)


def site_of(function):
    [site_id] = function.__megaguards_sites__
    return REGISTRY.sites[site_id]


def entries_that_bind(monkeypatch, site) -> list:
    """The entry numbers of ``site`` at which the guard binds from now on."""
    tried = []
    original = Binder.bind

    def spy(binder, values):
        tried.append(site.stats.entries)
        return original(binder, values)
    monkeypatch.setattr(Binder, "bind", spy)
    return tried


@pytest.fixture
def binds(monkeypatch):
    """The binders of every bind from now on."""
    seen = []
    original = Binder.bind

    def spy(self, values):
        seen.append(self)
        return original(self, values)
    monkeypatch.setattr(Binder, "bind", spy)
    return seen


def test_a_list_failing_unboxing_falls_back_and_is_tried_only_at_entries_2_4_8(monkeypatch):
    fast = megaguards.jit(total)
    site = site_of(fast)
    tried = entries_that_bind(monkeypatch, site)
    mixed = [1, True, 3, 4]   # a bool among ints: not homogeneous
    for _ in range(20):
        assert fast(mixed) == total(mixed) == 9
    assert tried == TRIES   # the skipped entries neither bind nor unbox
    [record] = sites_of(fast)
    assert (record["entries"], record["fallback_runs"], record["compiled_runs"]) == (20, 20, 0)
    [backing_off] = record["backoff"]
    assert backing_off["cause"] == "guard" and backing_off["failures"] == 5 and backing_off["retry_at"] == 32
    assert backing_off["reason"].startswith("guard: a list that is not rectangular or not homogeneous")
    assert "backing off (guard): the guard failed at entry 5 time(s) in a row, in CPython until entry 32" \
        in megaguards.explain(fast)


def test_a_site_whose_data_becomes_clean_compiles_at_its_next_try(monkeypatch):
    fast = megaguards.jit(total)
    site = site_of(fast)
    tried = entries_that_bind(monkeypatch, site)
    for _ in range(5):
        assert fast([1, True]) == 2
    compiled = []
    for _ in range(5):   # entries 6 to 10: 6 and 7 are still skipped, 8 compiles, and so on after it
        assert fast([1, 2, 3]) == 6
        compiled.append(sites_of(fast)[0]["compiled_runs"])
    assert tried == [1, 2, 4, 8, 9, 10]
    assert compiled == [0, 0, 1, 2, 3]
    assert "backoff" not in sites_of(fast)[0]   # a success forgets the failures
    assert fast([1, True]) == 2 and fast([1, 2]) == 3   # one failure: the next entry is tried
    assert sites_of(fast)[0]["compiled_runs"] == 4


def test_a_loop_that_always_raises_at_its_end_raises_cpythons_error_and_backs_off(monkeypatch):
    fast = megaguards.jit(copy_one_too_many)
    site = site_of(fast)
    tried = entries_that_bind(monkeypatch, site)
    for _ in range(20):
        out, expected = [0] * 5, [0] * 5
        with pytest.raises(IndexError) as raised:
            copy_one_too_many([1, 2, 3], expected)
        with pytest.raises(IndexError) as ours:
            fast([1, 2, 3], out)
        assert str(ours.value) == str(raised.value) and out == expected == [2, 4, 6, 0, 0]
    assert tried == FLAG_TRIES
    [backing_off] = sites_of(fast)[0]["backoff"]
    assert (backing_off["cause"], backing_off["reason"]) == ("flag", "runtime flag: index out of range")


def test_an_expression_site_over_mixed_data_backs_off(monkeypatch):
    fast = megaguards.jit(squares)
    site = site_of(fast)
    assert isinstance(site, ExpressionSite)
    tried = []
    original = ExpressionSite.enter
    monkeypatch.setattr(ExpressionSite, "enter", lambda self, values, arguments: (
        tried.append(self.stats.entries), original(self, values, arguments))[1])
    mixed = [1, True, 3]
    for _ in range(20):
        assert fast(mixed) == squares(mixed) == 11
    assert tried == TRIES   # the skipped entries do not even read the live-ins
    [record] = sites_of(fast)
    assert (record["entries"], record["fallback_runs"], record["compiled_runs"]) == (20, 20, 0)
    [backing_off] = record["backoff"]
    assert backing_off["cause"] == "expression" and backing_off["failures"] == 5
    assert fast([1, 2, 3]) == 14   # entry 21 is skipped still: CPython's result
    assert sites_of(fast)[0]["compiled_runs"] == 0


def test_a_failing_bind_skips_live_ins_of_that_class_only(binds):
    fast = megaguards.jit(total)
    site = site_of(fast)
    for _ in range(24):
        assert fast({1: 0, 2: 0}) == 3   # a dict: binding fails, CPython runs the loop
    assert len(binds) == len(TRIES)
    [backing_off] = sites_of(fast)[0]["backoff"]
    assert backing_off["cause"] == "binding" and "dict" in backing_off["reason"]
    assert (site.skip_position, site.skip_class) == (site.info.live_ins.index("values"), dict)
    assert fast([1, 2, 3]) == 6   # a list right after: compiled on its first entry
    assert sites_of(fast)[0]["compiled_runs"] == 1


def test_skips_by_class_give_way_to_the_rewritten_draw(monkeypatch):
    fast = megaguards.jit(total)
    site = site_of(fast)
    by_class = []
    original = type(site).skipped_by_class
    monkeypatch.setattr(type(site), "skipped_by_class", lambda self: (by_class.append(1), original(self))[1])
    entries = 3000
    for _ in range(entries):
        assert fast({1: 0, 2: 0}) == 3   # a dict every time: binding fails, CPython runs the loop
    [record] = sites_of(fast)
    assert record["entries"] == entries and record["compiled_runs"] == 0
    # Each gap's first CLASS_SKIPS entries call the site (dispatch compares the class, about a
    # microsecond each); the rest of the gap is the rewritten code's draw, which calls nothing.
    tries = record["backoff"][0]["failures"]
    assert 0 < len(by_class) <= tries * backoff.CLASS_SKIPS < entries // 2
    assert site.skip_class is None and site.skipping > 0
    assert fast([1, 2, 3]) == 6   # a list inside the drawn part of a gap: CPython's result still


def test_strict_sites_do_not_back_off():
    fast = megaguards.jit(total, strict=True)
    for _ in range(4):
        with pytest.raises(megaguards.CompilationError):
            fast({1: 0})
    assert site_of(fast).skipping == 0


def test_back_off_gaps_double_up_to_the_cap():
    assert [backoff.gap_after(n) for n in range(1, 6)] == [1, 2, 4, 8, 16]
    assert backoff.gap_after(15) == backoff.gap_after(10 ** 6) == backoff.MAX_GAP == 16384


# keep the faster ----------------------------------------------------------------------------

def test_speed_judges_by_the_bests_then_by_each_retry():
    speed = backoff.Speed()
    for seconds in (5.0, 2.0, 2.5):           # the first includes compiling
        assert not speed.wants_cpython()
        speed.compiled(seconds)
    assert speed.wants_cpython()               # the probe
    speed.cpython(1.0)
    assert speed.slower == 1 and [speed.wants_cpython() for _ in range(9)] == [True] * 8 + [False]
    speed.compiled(1.5)                        # the retry: slower still, twice the gap
    assert speed.slower == 2 and speed.countdown == 16
    speed.countdown = 0
    speed.compiled(0.5)                        # faster than CPython's best: kept
    assert speed.slower == 0 and not speed.wants_cpython()


def test_an_expression_site_slower_compiled_goes_back_to_cpython(monkeypatch):
    now = [0.0]

    def fake_clock():
        now[0] += 1e-6   # CPython's run of the expression: 1 us
        return now[0]
    monkeypatch.setattr(expression_site, "clock", fake_clock)
    original = ExpressionSite.compiled_result

    def slow(self, thunk, arguments):
        now[0] += 1e-3   # the compiled path: 1 ms
        return original(self, thunk, arguments)
    monkeypatch.setattr(ExpressionSite, "compiled_result", slow)
    fast = megaguards.jit(squares)
    compiled = []
    for _ in range(40):
        assert fast([1, 2, 3]) == 14
        compiled.append(sites_of(fast)[0]["compiled_runs"])
    # Compiled at entries 1-3; the 4th is CPython's (timed), slower compiled: CPython for 8
    # entries, a compiled retry at the 13th, slower: 16 more, a retry at the 30th.
    assert [k + 1 for k in range(40) if compiled[k] > (compiled[k - 1] if k else 0)] == [1, 2, 3, 13, 30]
    [backing_off] = sites_of(fast)[0]["backoff"]
    assert backing_off["cause"] == "slower" and backing_off["failures"] == 3
    assert backing_off["reason"].startswith("compiled slower than CPython for 2..3 elements")
    # While every size seen is slower compiled, the back-off is the rewritten code's skip (one
    # test per entry, no size class read): entry 31 turned the 32 entries left into 31 skips,
    # so another size waits for entry 63, then compiles in a class of its own.
    big = list(range(100))
    runs = []
    for _ in range(30):
        assert fast(big) == squares(big)
        runs.append(sites_of(fast)[0]["compiled_runs"])
    assert 41 + runs.index(6) == 63 and runs[-1] > 6
    site = site_of(fast)
    assert loop_record(site)["fallback_runs"] == 70 - runs[-1]


def add_up(values):
    n = 0
    for i in range(len(values)):
        n += values[i]
    return n


@pytest.fixture
def loop_clock(monkeypatch):
    """A fake clock for loop sites: each reading advances it by 1 us (CPython's run of a
    loop then takes 1 us); ``now[1]`` is added by each compiled entry."""
    from megaguards.runtime import probe, site as site_module

    now = [0.0, 50e-6]

    def fake_clock():
        now[0] += 1e-6
        return now[0]
    monkeypatch.setattr(probe, "clock", fake_clock)
    monkeypatch.setattr(site_module, "clock", fake_clock)
    monkeypatch.setattr(probe, "PROBE_AFTER", 3)
    original = site_module.Site.enter

    def slow(self, values):
        now[0] += now[1]
        return original(self, values)
    monkeypatch.setattr(site_module.Site, "enter", slow)
    return now


def compiled_entries(function, calls) -> list[int]:
    """The entry numbers (from 1) at which ``function``'s only loop site ran compiled."""
    compiled, before = [], 0
    for number, arguments in enumerate(calls, 1):
        assert function(*arguments) == add_up(*arguments)
        now = sites_of(function)[0]["compiled_runs"]
        if now > before:
            compiled.append(number)
        before = now
    return compiled


def test_a_loop_site_slower_compiled_goes_back_to_cpython(loop_clock):
    fast = megaguards.jit(add_up)
    # Compiled at entries 1-4 (50 us each; the first, which compiled, is not timed); CPython's
    # runs timed at 5-7 (1 us): slower compiled, so CPython for 8 entries (timed), a compiled
    # retry at the 16th, slower: 16 more in CPython (skipped without reading their size), a
    # retry at the 33rd, then 32 more.
    assert compiled_entries(fast, [([1, 2, 3],)] * 70) == [1, 2, 3, 4, 16, 33, 66]
    [backing_off] = sites_of(fast)[0]["backoff"]
    assert backing_off["cause"] == "slower" and backing_off["failures"] == 4
    assert backing_off["reason"].startswith("compiled slower than CPython for arrays of 2..3 elements")
    assert sites_of(fast)[0]["fallback_runs"] == 70 - 7


def test_a_loop_site_faster_compiled_or_too_long_to_compare_stays_compiled(loop_clock, monkeypatch):
    fast = megaguards.jit(add_up)
    loop_clock[1] = 0.0   # compiled: a few clock readings (1 us each), CPython's loop: 20 us more
    timed = probe.LoopSpeeds.timed

    def cpython_loop_ends(self):
        loop_clock[0] += 20e-6
        return timed(self)
    monkeypatch.setattr(probe.LoopSpeeds, "timed", cpython_loop_ends)
    assert compiled_entries(fast, [([1, 2, 3],)] * 20) == [1, 2, 3, 4] + list(range(8, 21))
    slow = megaguards.jit(add_up)
    loop_clock[1] = 1e-3     # 1 ms an entry: never compared with CPython (a probe could cost far more)
    assert compiled_entries(slow, [([4, 5],)] * 20) == list(range(1, 21))
    assert "backoff" not in sites_of(slow)[0]


def test_a_list_growing_at_every_entry_backs_off_by_size_class(loop_clock, monkeypatch):
    """A list one longer at each entry (the primes found so far, tried by each candidate):
    sizes are compared by class (bit length), so the site backs off instead of meeting a new
    size at every entry; and while every class met is slower, the entries backing off are
    the rewritten code's skips, not calls of the site."""
    calls = []
    entered = site_module.Site.__call__

    def counted(self, values):
        calls.append(1)
        return entered(self, values)
    monkeypatch.setattr(site_module.Site, "__call__", counted)
    fast = megaguards.jit(add_up)
    compiled = compiled_entries(fast, [(list(range(k)),) for k in range(1, 301)])
    assert len(compiled) <= 40, compiled   # before: every entry (a new size each time)
    assert len(calls) <= 120, len(calls)
    reasons = [record["reason"] for record in sites_of(fast)[0]["backoff"]]
    assert any(reason.startswith("compiled slower than CPython for arrays of 128..255 elements")
               for reason in reasons), reasons


def test_a_long_compiled_entry_slower_than_estimated_is_compared_at_once(loop_clock, monkeypatch):
    """An entry of 1 ms compiled where CPython's is estimated at 0.5 ms (a thin loop over
    objects whose fields the guard reads and sets back): CPython's next run is timed at
    once (about 2 us here), and the site backs off; a long entry estimated far slower in
    CPython is never compared."""
    loop_clock[1] = 1e-3
    monkeypatch.setattr(site_module.Site, "estimated_cpython", lambda self, values: 0.5e-3)
    fast = megaguards.jit(add_up)
    # 1 compiles (not timed), 2 is timed and suspected, 3 is CPython's timed run: slower
    # compiled, so 8 entries in CPython, a retry at 12, 16 more, a retry at 29.
    assert compiled_entries(fast, [([1, 2, 3],)] * 30) == [1, 2, 12, 29]
    assert sites_of(fast)[0]["backoff"][0]["cause"] == "slower"
    monkeypatch.setattr(site_module.Site, "estimated_cpython", lambda self, values: 5e-3)
    kept = megaguards.jit(add_up)
    assert compiled_entries(kept, [([1, 2, 3],)] * 10) == list(range(1, 11))


def test_a_probe_that_never_ends_is_abandoned(monkeypatch):
    import builtins

    from megaguards.runtime import probe

    now = [0.0]
    monkeypatch.setattr(probe, "clock", lambda: now[0])
    speeds = probe.LoopSpeeds((0,), ())
    size = speeds.size(([1, 2],))
    site = types.SimpleNamespace(keys=(7, "m:7"))
    for _ in range(probe.PROBE_AFTER):
        speeds.compiled(size, 50e-6, lambda: None)
    assert speeds.wants_cpython(size, site) and probe.inside_probe()
    assert builtins.__megaguards_probing__ == {7, "m:7"}   # only this site's rewritten code reports
    now[0] += probe.PROBE_SPAN   # a loop that long in CPython: the sites it enters compile again
    assert not probe.inside_probe()
    assert speeds.wants_cpython(size, site)       # the last probe never ended (the loop raised): abandoned
    assert speeds.abandoned == 1
    speeds.timed()
    assert not builtins.__megaguards_probing__ and not probe.inside_probe()
    assert speeds.wants_cpython(size, site)       # the third probe
    assert not speeds.wants_cpython(size, site)   # abandoned twice: no more probes
    assert not builtins.__megaguards_probing__


def test_a_suspects_probe_keeps_its_nested_loops_in_cpython_for_its_estimated_time(monkeypatch):
    """A long entry suspected (compiled 0.3 s where CPython is estimated at 0.5 s): its probe
    runs CPython's loop, inner loops included, which are sites of their own; they stay in
    CPython for SUSPECT_SPAN times the estimate, not PROBE_SPAN (each of their entries would
    otherwise pay a site's call and binding inside the run being timed)."""
    from megaguards.runtime import probe

    now = [0.0]
    monkeypatch.setattr(probe, "clock", lambda: now[0])
    speeds = probe.LoopSpeeds((0,), ())
    size = speeds.size(([1, 2],))
    speeds.compiled(size, 0.3, lambda: 0.5)
    assert speeds.wants_cpython(size, types.SimpleNamespace(keys=(8,)))
    now[0] += 10 * probe.PROBE_SPAN
    assert probe.inside_probe()
    now[0] = probe.SUSPECT_SPAN * 0.5 + 1e-6
    assert not probe.inside_probe()
    speeds.timed()


def printing_total(values):
    n = 0
    for i in range(len(values)):
        n += values[i]
        print(end="")   # a call as a statement: the loop never compiles
    return n


def test_an_entry_a_site_skips_calls_nothing_of_megaguards(monkeypatch):
    import builtins

    loop, expression = megaguards.jit(printing_total), megaguards.jit(squares)   # (installs the built-ins)
    calls = []
    site_function, expression_function = builtins.__megaguards_site__, builtins.__megaguards_expr__

    def counted_site(*arguments):
        calls.append("site")
        return site_function(*arguments)

    def counted_expression(*arguments):
        calls.append("expression")
        return expression_function(*arguments)
    monkeypatch.setattr(builtins, "__megaguards_site__", counted_site)
    monkeypatch.setattr(builtins, "__megaguards_expr__", counted_expression)
    for _ in range(50):
        assert loop([1, 2, 3]) == 6
        assert expression([1, True, 3]) == squares([1, True, 3])   # a bool among ints: falls back
    # The loop can never compile: its first entry lowers it, its second finds it disabled for
    # good.  The expression tries at entries 1, 2, 4, ..., 32.
    assert calls.count("site") == 2 and calls.count("expression") == 6
    assert sites_of(loop)[0]["entries"] == sites_of(loop)[0]["fallback_runs"] == 50
    assert sites_of(expression)[0]["entries"] == sites_of(expression)[0]["fallback_runs"] == 50


def test_a_skipped_expression_is_python_s_own():
    def late(values):
        total = sum(v * scale for v in values)   # noqa: F821 ('scale' is assigned after: Python's error)
        scale = 2
        return total, scale
    fast = megaguards.jit(late)

    def raised(function) -> tuple:
        try:
            function([1])
        except Exception as error:   # NameError (3.11) or UnboundLocalError (3.12+)
            return type(error), str(error)
        return None
    for _ in range(5):   # tried at entries 1, 2 and 4, skipped at 3 and 5
        assert raised(late) is not None and raised(fast) == raised(late)


def test_while_megaguards_is_off_a_site_costs_one_test_and_wakes_when_switched_on(monkeypatch):
    import builtins

    from megaguards import config

    loop, expression = megaguards.jit(total), megaguards.jit(squares)
    calls = []
    site_function, expression_function = builtins.__megaguards_site__, builtins.__megaguards_expr__
    monkeypatch.setattr(builtins, "__megaguards_site__", lambda *a: calls.append("site") or site_function(*a))
    monkeypatch.setattr(builtins, "__megaguards_expr__", lambda *a: calls.append("expression") or
                        expression_function(*a))
    before = config.current()
    try:
        config.configure(device="off")
        for _ in range(20):
            assert loop([1, 2, 3]) == 6 and expression([1.0, 2.0]) == 5.0
        assert calls == ["site", "expression"]   # the first entries; later ones skip in the rewritten code
        assert sites_of(loop)[0]["entries"] == sites_of(loop)[0]["fallback_runs"] == 20
        assert "megaguards is off" in sites_of(loop)[0]["backoff"][0]["reason"]
        config.configure(device=before.device if before.enabled else "cpu")
        assert loop([1, 2, 3]) == 6 and expression([1.0, 2.0]) == 5.0
        assert calls[2:] == ["site", "expression"]
        assert sites_of(loop)[0]["compiled_runs"] == 1 and sites_of(expression)[0]["compiled_runs"] == 1
    finally:
        config.configure(**before._asdict())
