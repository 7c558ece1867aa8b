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


def measure(progress=lambda text: None) -> list[tuple[str, object, float, int, str]]:
    """(shape name, Features, seconds, threads, device) for every shape, size and device."""
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
                for device in ("seq", "cpu", "cuda"):
                    if device in slow:
                        continue
                    config.configure(select=device)
                    compiled(*arguments)          # compiles and warms up, untimed
                    observed.clear()
                    for _ in range(REPEATS):
                        compiled(*arguments)
                    runs = [(f, s) for f, s in observed if f is not None]
                    if not runs or len(runs) < REPEATS:
                        continue  # this device is not available for the loop (or the GPU declined)
                    features, seconds = min(runs, key=lambda run: run[1])
                    samples.append((name, features, seconds, costmodel.threads(), device))
                    progress(f"{name:15} size {size:>8}  {device:4}  {seconds * 1e3:9.3f} ms")
                    if seconds > SLOW:
                        slow.add(device)
    finally:
        state.observer = None
        config.configure(device=saved.device, select=saved.select)
    return samples


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


def main(quiet: bool = False) -> int:
    progress = (lambda text: None) if quiet else (lambda text: print(text, flush=True))
    started = time.perf_counter()
    calibration, errors, count = calibrate(progress)   # a background run's lock ends with it (an flock)
    if not quiet:
        print(f"calibrated on {calibration.hardware.get('cpu')} ({calibration.hardware.get('threads')} threads), "
              f"GPUs: {', '.join(calibration.hardware.get('gpus') or []) or 'none'}; {count} samples in "
              f"{time.perf_counter() - started:.0f} s")
        for device, constants in calibration.constants.items():
            terms = ", ".join(f"{name} {value:.3g}" for name, value in constants.items())
            print(f"  {device}: {terms}  (median relative error {errors[device]:.0%})")
        print(f"stored in {config.current().cache_dir / costmodel.CALIBRATION_FILE}")
    return 0
