"""``megaguards calibrate``'s fit and progress: the non-negative least squares used without
SciPy is the true optimum (not least squares clipped at zero), and the progress is a bar of
the steps with the ETA on stderr when tqdm is there and stderr is a terminal, else the lines
of before on stdout, and nothing with --quiet."""
from __future__ import annotations

import contextlib
import io
import sys
from types import SimpleNamespace

import numpy
import pytest

from megaguards import calibrate, config
from megaguards.analysis.features import Features, KINDS
from megaguards.runtime import costmodel


def optimal(matrix, target, solution, tolerance=1e-9) -> bool:
    """The optimality conditions of non-negative least squares: x >= 0, the gradient zero
    where x > 0 and >= 0 where x = 0 (each column's scaled to a unit column and target)."""
    gradient = matrix.T @ (matrix @ solution - target) / numpy.linalg.norm(matrix, axis=0) / numpy.linalg.norm(target)
    free = solution > 0
    return bool((solution >= 0).all() and numpy.allclose(gradient[free], 0, atol=tolerance)
                and (gradient[~free] >= -tolerance).all())


def test_nonnegative_least_squares_is_not_least_squares_clipped():
    # y = 4 - x fits best; the slope may not be negative: the best is the mean, 2, flat.
    matrix, target = numpy.array([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]), numpy.array([3.0, 2.0, 1.0])
    solution, residual = costmodel.nonnegative_least_squares(matrix, target)
    assert solution.tolist() == pytest.approx([2.0, 0.0]) and residual == pytest.approx(2 ** 0.5)
    clipped = numpy.maximum(numpy.linalg.lstsq(matrix, target, rcond=None)[0], 0.0)   # [4, 0]
    assert numpy.linalg.norm(matrix @ clipped - target) > 2 * residual


@pytest.mark.parametrize("seed", range(20))
def test_nonnegative_least_squares_is_optimal(seed):
    draw = numpy.random.default_rng(seed)
    matrix, target = draw.normal(size=(30, 6)), draw.normal(size=30)
    solution, residual = costmodel.nonnegative_least_squares(matrix, target)
    assert optimal(matrix, target, solution)
    assert residual == pytest.approx(numpy.linalg.norm(matrix @ solution - target))
    try:
        from scipy.optimize import nnls
    except ImportError:
        return
    assert solution == pytest.approx(nnls(matrix, target)[0], abs=1e-9)


def test_fit_without_scipy_gives_the_optimum(monkeypatch):
    """Entries whose time falls with the list's size: unconstrained, that constant would be
    negative and the others fitted around it."""
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)   # ImportError, SciPy installed or not
    rows = []
    for work in (1e4, 1e5, 1e6):
        for elements in (0, 1e3, 1e5):
            found = Features(work, dict.fromkeys(KINDS, 0.0), 0, 1, 0, 0, 1.0, 0, int(elements), 0.0)
            rows.append((found, 2e-9 * work + 1e-5 - 5e-11 * elements, 4))
    constants, _ = costmodel.fit(rows, "seq")
    matrix = numpy.array([costmodel.terms(f, "seq", t) for f, _, t in rows])
    seconds = numpy.array([s for _, s, _ in rows])
    weights = 1.0 / seconds
    weighted, target = matrix * weights[:, None], seconds * weights
    solution = numpy.array([constants[name] for name in costmodel.TERMS["seq"]])
    assert constants["list_elements"] == 0.0 and min(constants.values()) >= 0.0
    assert optimal(weighted, target, solution)
    clipped = numpy.maximum(numpy.linalg.lstsq(weighted, target, rcond=None)[0], 0.0)   # what the fallback was
    assert numpy.linalg.norm(weighted @ solution - target) < 0.8 * numpy.linalg.norm(weighted @ clipped - target)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def outputs(quiet: bool, terminal: bool, texts=("stream size 1024  seq  0.100 ms", None, "last")) -> tuple:
    """(stdout, stderr, the bar or None) of a reporter fed ``texts``, one per step."""
    out, err = io.StringIO(), Terminal() if terminal else io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        progress, bar = calibrate.reporter(quiet, len(texts))
        for text in texts:
            progress(text)
        if bar is not None:
            bar.close()
    return out.getvalue(), err.getvalue(), bar


def test_progress_lines_on_stdout_without_a_terminal_or_tqdm(monkeypatch):
    assert outputs(False, False) == ("stream size 1024  seq  0.100 ms\nlast\n", "", None)
    monkeypatch.setitem(sys.modules, "tqdm", None)   # not installed
    assert outputs(False, True) == ("stream size 1024  seq  0.100 ms\nlast\n", "", None)


def test_quiet_says_nothing_even_on_a_terminal():
    assert outputs(True, True) == ("", "", None)


def test_a_bar_with_the_total_and_eta_on_stderr():
    pytest.importorskip("tqdm")
    out, err, bar = outputs(False, True)
    assert bar is not None and out == "stream size 1024  seq  0.100 ms\nlast\n"
    assert "0/3 [00:00<?" in err and err.rstrip().endswith("]") and "3/3 [" in err.splitlines()[-1]


def test_every_step_reports_progress_once_measured_or_not(monkeypatch):
    from megaguards import calibration_loops as loops

    shape = ("stream", loops.stream, lambda n: (numpy.ones(n), numpy.zeros(n), 1.5, n), [16, 32])
    monkeypatch.setattr(calibrate, "shapes", lambda: [shape])
    features = SimpleNamespace()
    timings = {"seq": (features, 0.001), "cpu": (features, 1.0), "cuda": None}   # cpu slow, cuda unavailable
    monkeypatch.setattr(calibrate, "_fastest", lambda compiled, arguments, device, observed: timings[device])
    said, before = [], config.current()
    samples = calibrate.measure(said.append)
    assert (config.current().device, config.current().select) == (before.device, before.select)
    assert calibrate.steps() == len(said) == 6
    assert [text is None for text in said] == [False, False, True, False, True, True]   # cpu skipped once slow
    assert [(name, device) for name, _, _, _, device in samples] == [("stream", "seq"), ("stream", "cpu"),
                                                                     ("stream", "seq")]


def test_main_quiet_prints_nothing(monkeypatch, capsys):
    def calibrate_fake(progress):
        progress("a sample")
        progress(None)
        return costmodel.Calibration({"seq": {"work": 1e-9}}, {"cpu": "test", "threads": 2}, "now", "measured"), \
            {"seq": 0.01}, 1

    monkeypatch.setattr(calibrate, "calibrate", calibrate_fake)
    monkeypatch.setattr(calibrate, "steps", lambda: 2)
    assert calibrate.main(quiet=True) == 0
    assert capsys.readouterr() == ("", "")
    assert calibrate.main(quiet=False) == 0
    out, err = capsys.readouterr()
    assert out.startswith("a sample\ncalibrated on test (2 threads)") and "seq: work 1e-09" in out and err == ""
