# expect: compiled
"""Black-Scholes over lists with the classic cnd() helper (Rodinia/PARSEC formulation)."""
import math

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


def black_scholes(calls, puts, prices, strikes, years, rate, volatility):
    for i in range(len(prices)):  # mg: compiled
        s = prices[i]
        x = strikes[i]
        t = years[i]
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / x) + (rate + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t)
        d2 = d1 - volatility * sqrt_t
        cnd_d1 = cnd(d1)
        cnd_d2 = cnd(d2)
        discount = math.exp(-rate * t)
        calls[i] = s * cnd_d1 - x * discount * cnd_d2
        puts[i] = x * discount * (1.0 - cnd_d2) - s * (1.0 - cnd_d1)


n = 64
seed = 12345
prices, strikes, years = [], [], []
for k in range(n):
    seed = (seed * 1103515245 + 12345) % 2147483648
    prices.append(5.0 + 25.0 * seed / 2147483648)
    seed = (seed * 1103515245 + 12345) % 2147483648
    strikes.append(1.0 + 99.0 * seed / 2147483648)
    seed = (seed * 1103515245 + 12345) % 2147483648
    years.append(0.25 + 9.75 * seed / 2147483648)
calls = [0.0] * n
puts = [0.0] * n
black_scholes(calls, puts, prices, strikes, years, 0.02, 0.30)
print(repr(calls[:8]))
print(repr(puts[:8]))
print(repr(sum(calls)), repr(sum(puts)))
