# expect: compiled
"""while loops inside for loops: Collatz lengths, gcd, digit sums."""


def collatz(n, out):
    for i in range(1, n + 1):  # mg: compiled
        x = i
        steps = 0
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            steps += 1
        out[i - 1] = steps


def gcds(a, b, out):
    for i in range(len(a)):  # mg: compiled
        x = a[i]
        y = b[i]
        while y:
            x, y = y, x % y
        out[i] = x


def digits(n):
    total = 0
    for i in range(n):  # mg: compiled
        v = i * 7919
        while True:
            total += v % 10
            v //= 10
            if v == 0:
                break
    return total


out = [0] * 30
collatz(30, out)
print(repr(out))
g = [0] * 6
gcds([12, 17, 100, 0, -12, 81], [18, 5, 75, 9, 8, -27], g)
print(repr(g))
print(repr(digits(50)))
