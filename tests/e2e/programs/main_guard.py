# expect: compiled
"""The usual script layout: functions, then main() under if __name__ == "__main__"."""
import sys


def smooth(values, passes):
    n = len(values)
    tmp = [0.0] * n
    for p in range(passes):  # mg: compiled
        for i in range(n):
            tmp[i] = (values[i - 1] + 2.0 * values[i] + values[(i + 1) % n]) / 4.0
        for i in range(n):
            values[i] = tmp[i]
    return values


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 9
    values = [float((i * 5) % 7) for i in range(n)]
    smooth(values, 5)
    print(__name__, repr(values))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
