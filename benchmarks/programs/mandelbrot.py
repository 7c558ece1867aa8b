"""Escape-time Mandelbrot with a ``while`` loop, plain floats, nested-list output.

Usage: python mandelbrot.py WIDTH HEIGHT MAX_ITER [REPEATS]

Renders the view [-2.0, 1.0] x [-1.5, 1.5] into a HEIGHT x WIDTH list of lists
of iteration counts, REPEATS times (default 1), and prints:

    checksum=<int>       identical under every interpreter
    time=<seconds>       fastest single call of mandelbrot (the kernel region)
    first=<seconds>      the first call in this process
"""
import sys
import time


def mandelbrot(out, width, height, max_iter, x0, y0, dx, dy):
    for py in range(height):
        for px in range(width):
            cr = x0 + px * dx
            ci = y0 + py * dy
            zr = 0.0
            zi = 0.0
            count = 0
            while count < max_iter and zr * zr + zi * zi <= 4.0:
                temp = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = temp
                count += 1
            out[py][px] = count


def main():
    width = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    height = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    max_iter = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    x0, y0 = -2.0, -1.5
    dx, dy = 3.0 / width, 3.0 / height
    out = [[0] * width for _ in range(height)]
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        mandelbrot(out, width, height, max_iter, x0, y0, dx, dy)
        times.append(time.perf_counter() - started)
    checksum = 0
    for py in range(height):
        for px in range(width):
            checksum += out[py][px] * (px + 3 * py + 1)
    print(f"checksum={checksum}")
    print(f"time={min(times)!r}")
    print(f"first={times[0]!r}")


if __name__ == "__main__":
    main()
