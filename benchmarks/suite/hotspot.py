"""Rodinia hotspot: transient heat on a chip, a 5-point stencil over nested lists of
temperatures driven by a power map, iterated for a number of time steps."""
from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"n": 64, "steps": 4}, "medium": {"n": 256, "steps": 20},
         "large": {"n": 1024, "steps": 60}}

# Rodinia's chip parameters
MAX_PD = 3.0e6
PRECISION = 0.001
SPEC_HEAT_SI = 1.75e6
K_SI = 100.0
FACTOR_CHIP = 0.5
T_CHIP = 0.0005
CHIP_HEIGHT = 0.016
CHIP_WIDTH = 0.016
AMB_TEMP = 80.0


def step(temp, power, result, n, cap, rx, ry, rz, step_size):
    for r in range(n):
        for c in range(n):
            up = temp[r - 1][c] if r > 0 else temp[r][c]
            down = temp[r + 1][c] if r < n - 1 else temp[r][c]
            left = temp[r][c - 1] if c > 0 else temp[r][c]
            right = temp[r][c + 1] if c < n - 1 else temp[r][c]
            delta = (step_size / cap) * (power[r][c] + (up + down - 2.0 * temp[r][c]) / ry
                                         + (left + right - 2.0 * temp[r][c]) / rx
                                         + (AMB_TEMP - temp[r][c]) / rz)
            result[r][c] = temp[r][c] + delta


def simulate(temp, power, steps, n):
    grid_height = CHIP_HEIGHT / n
    grid_width = CHIP_WIDTH / n
    cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * grid_width * grid_height
    rx = grid_width / (2.0 * K_SI * T_CHIP * grid_height)
    ry = grid_height / (2.0 * K_SI * T_CHIP * grid_width)
    rz = T_CHIP / (K_SI * grid_height * grid_width)
    max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI)
    step_size = PRECISION / max_slope
    other = [[0.0] * n for _ in range(n)]
    for t in range(steps):
        step(temp, power, other, n, cap, rx, ry, rz, step_size)
        step(other, power, temp, n, cap, rx, ry, rz, step_size)
    return temp


def make_input(parameters):
    n = parameters["n"]
    random = generator("hotspot")
    temp = [[320.0 + 20.0 * random.random() for _ in range(n)] for _ in range(n)]
    power = [[0.5 * random.random() for _ in range(n)] for _ in range(n)]
    return {"temp": temp, "power": power, "steps": parameters["steps"], "n": n}


def work(parameters):
    """Cell updates: every cell of the n x n grid twice per step."""
    return 2 * parameters["n"] ** 2 * parameters["steps"]


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    temp = inputs["temp"]
    timer = Timer()
    timer.start()
    simulate(temp, inputs["power"], inputs["steps"], inputs["n"])
    timer.stop()
    report(fsum_nested(temp), timer)


if __name__ == "__main__":
    run(main)
