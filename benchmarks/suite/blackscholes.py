"""PARSEC/Rodinia Black-Scholes: European call and put prices of a batch of options held
in four lists (spot price, strike, time to expiry, volatility), with the classic
polynomial approximation of the cumulative normal distribution in a cnd() helper;
priced repeatedly as PARSEC's NUM_RUNS does."""
import math

from common import Timer, arguments, fsum_nested, generator, report, run as run_program

SIZES = {"small": {"options": 20000, "runs": 2}, "medium": {"options": 200000, "runs": 5},
         "large": {"options": 4000000, "runs": 10}}

RATE = 0.02
A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RSQRT2PI = 0.39894228040143267793994605993438


def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    value = RSQRT2PI * math.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
    if d > 0:
        value = 1.0 - value
    return value


def price(calls, puts, spots, strikes, times, volatilities, count):
    for i in range(count):
        s = spots[i]
        x = strikes[i]
        t = times[i]
        v = volatilities[i]
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / x) + (RATE + 0.5 * v * v) * t) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        cnd_d1 = cnd(d1)
        cnd_d2 = cnd(d2)
        discount = math.exp(-RATE * t)
        calls[i] = s * cnd_d1 - x * discount * cnd_d2
        puts[i] = x * discount * (1.0 - cnd_d2) - s * (1.0 - cnd_d1)


def make_input(parameters):
    count = parameters["options"]
    random = generator("blackscholes")
    spots = [5.0 + 25.0 * random.random() for _ in range(count)]
    strikes = [1.0 + 99.0 * random.random() for _ in range(count)]
    times = [0.25 + 9.75 * random.random() for _ in range(count)]
    volatilities = [0.05 + 0.6 * random.random() for _ in range(count)]
    return {"spots": spots, "strikes": strikes, "times": times, "volatilities": volatilities,
            "count": count, "runs": parameters["runs"]}


def work(parameters):
    """Options priced: every option once per run."""
    return parameters["options"] * parameters["runs"]


def checksum(calls, puts):
    return fsum_nested(calls) + fsum_nested(puts)


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    spots, strikes, times, volatilities = (inputs["spots"], inputs["strikes"], inputs["times"],
                                           inputs["volatilities"])
    count, runs = inputs["count"], inputs["runs"]
    calls = [0.0] * count
    puts = [0.0] * count
    timer = Timer()
    timer.start()
    for run in range(runs):
        price(calls, puts, spots, strikes, times, volatilities, count)
    timer.stop()
    report(checksum(calls, puts), timer)


if __name__ == "__main__":
    run_program(main)
