"""``megaguards calibrate``: time the microbenchmark loops (``calibration_loops.py``) on
every device at several sizes, fit the cost model's constants (``costmodel.fit``) and
store them with the hardware in ``<cache dir>/calibration.json``.

Every loop runs through the same path as a user's loop (a DeviceChoice with the device
forced by ``select``), so the features and times are exactly what the selector sees.
Each size is run once untimed (compiling, first copies) and then ``REPEATS`` times; the
fastest run counts.  A size is skipped once a device needs more than ``SLOW`` seconds.
"""
from __future__ import annotations

import datetime
import logging
import os
import sys
import time

import numpy

from . import config
from .runtime import costmodel, process

log = logging.getLogger("megaguards")
REPEATS = 3
SLOW = 0.5


def shapes():
    """(name, function, arguments builder(size)) of every microbenchmark and its sizes."""
    from . import calibration_loops as loops

    def vectors(n):
        x = numpy.linspace(0.0, 1.0, n)
        return x, numpy.zeros(n)

    one_d = [1 << k for k in range(10, 24, 2)]
    return [
        ("stream", loops.stream, lambda n: (*vectors(n), 1.5, n), one_d),
        ("polynomial 8", loops.polynomial, lambda n: (*vectors(n), n, 8), one_d),
        ("polynomial 64", loops.polynomial, lambda n: (*vectors(n), n, 64), one_d[:-1]),
        # few parallel iterations, each long: what too few threads cost (GPU and cores)
        ("few threads", loops.polynomial, lambda n: (*vectors(n), n, (1 << 22) // n), [4, 16, 64, 256, 1024, 4096]),
        ("transcendental", loops.transcendental, lambda n: (*vectors(n), n), one_d),
        ("integer", loops.integer_mix, lambda n: (numpy.zeros(n, dtype=numpy.int64), n, 16), one_d[:-1]),
        ("list stencil", loops.list_stencil,
         lambda n: ([[float(i * j % 7) for j in range(n)] for i in range(n)], [[0.0] * n for _ in range(n)], n),
         [32, 64, 128, 256, 512, 1024, 2048]),
        ("row sums", loops.row_sums, lambda n: (numpy.ones((n, 256)), numpy.zeros(n), n, 256), one_d[:-2]),
    ]


def steps() -> int:
    """How many (shape, size, device) steps ``measure`` takes."""
    return sum(len(sizes) for *_, sizes in shapes()) * len(costmodel.DEVICES)


def measure(progress=lambda text: None) -> list[tuple[str, object, float, int, str]]:
    """(shape name, Features, seconds, threads, device) for every shape, size and device.
    ``progress`` is called once per step: with the sample's line, or None (no sample)."""
    from .api import jit

    samples = []
    observed: list = []
    state = process.current()   # its observer sees every entry's device and time
    state.observer = lambda choice, used, seconds: observed.append(
        (choice.last.get("features"), seconds) if used == device else (None, seconds))
    saved = config.current()
    try:
        config.configure(device="auto")
        for name, function, build, sizes in shapes():
            compiled = jit(function)
            slow: set[str] = set()
            for size in sizes:
                arguments = build(size)
                for device in costmodel.DEVICES:
                    fastest = None if device in slow else _fastest(compiled, arguments, device, observed)
                    if fastest is None:
                        progress(None)
                        continue
                    features, seconds = fastest
                    samples.append((name, features, seconds, costmodel.threads(), device))
                    progress(f"{name:15} size {size:>8}  {device:4}  {seconds * 1e3:9.3f} ms")
                    if seconds > SLOW:
                        slow.add(device)
    finally:
        state.observer = None
        config.configure(device=saved.device, select=saved.select)
    return samples


def _fastest(compiled, arguments, device: str, observed: list) -> tuple | None:
    """(features, seconds) of the fastest of ``REPEATS`` timed runs on ``device``, after an
    untimed one (None: the loop cannot run there, or the GPU declined)."""
    config.configure(select=device)
    compiled(*arguments)          # compiles and warms up, untimed
    observed.clear()
    for _ in range(REPEATS):
        compiled(*arguments)
    runs = [(f, s) for f, s in observed if f is not None]
    if not runs or len(runs) < REPEATS:
        return None
    return min(runs, key=lambda run: run[1])


def calibrate(progress=lambda text: None) -> tuple[costmodel.Calibration, dict, int]:
    samples = measure(progress)
    constants, errors = {}, {}
    for device in costmodel.DEVICES:
        rows = [(features, seconds, threads) for _, features, seconds, threads, d in samples if d == device]
        if len(rows) >= len(costmodel.TERMS[device]):
            constants[device], errors[device] = costmodel.fit(rows, device)
    calibration = costmodel.Calibration(
        constants, costmodel.hardware(), datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "measured")
    costmodel.save(calibration, errors, len(samples))
    return calibration, errors, len(samples)


def reporter(quiet: bool, total: int) -> tuple:
    """(``measure``'s progress, a tqdm bar to close or None).  Nothing with --quiet; with tqdm
    installed and stderr a terminal, a bar on stderr (steps done of ``total``, elapsed, ETA)
    below the samples' lines; else the lines alone on stdout, as without tqdm."""
    bar = None
    if not quiet and sys.stderr.isatty():
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            bar = tqdm(total=total, file=sys.stderr, unit="step", dynamic_ncols=True)

    def progress(text: str | None) -> None:
        if bar is not None:
            if text is not None:
                bar.write(text, file=sys.stdout)
            bar.update()
        elif text is not None and not quiet:
            print(text, flush=True)

    return progress, bar


def main(quiet: bool = False) -> int:
    progress, bar = reporter(quiet, steps())
    started = time.perf_counter()
    try:
        calibration, errors, count = calibrate(progress)   # a background run's lock ends with it (an flock)
    finally:
        if bar is not None:
            bar.close()
    if not quiet:
        print(f"calibrated on {calibration.hardware.get('cpu')} ({calibration.hardware.get('threads')} threads), "
              f"GPUs: {', '.join(calibration.hardware.get('gpus') or []) or 'none'}; {count} samples in "
              f"{time.perf_counter() - started:.0f} s")
        for device, constants in calibration.constants.items():
            terms = ", ".join(f"{name} {value:.3g}" for name, value in constants.items())
            print(f"  {device}: {terms}  (median relative error {errors[device]:.0%})")
        print(f"stored in {os.path.join(config.current().cache_dir, costmodel.CALIBRATION_FILE)}")
    return 0
