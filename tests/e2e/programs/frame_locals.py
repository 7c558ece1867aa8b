# expect: compiled
"""Callees that read their caller's local variables through the frame
(sys._getframe(1).f_locals, inspect): names a loop assigned must be there."""
import inspect
import sys


def caller_vars():
    return sorted(sys._getframe(1).f_locals.items())


def fmt(template):
    return template.format(**sys._getframe(1).f_locals)


def squares(n):
    s = 0
    for i in range(n):  # mg: compiled
        s += i * i
        last = i
    return caller_vars()


def halves(n):
    t = 0.0
    for i in range(n):  # mg: compiled
        t += i / 2
        peak = t
    return fmt("i={i} t={t} peak={peak}")


def frame_names(n):
    total = 0
    for k in range(n):  # mg: compiled
        total += k
        prev = k - 1
    frame = inspect.currentframe()
    return sorted(frame.f_locals)


print(squares(4))
print(halves(5))
print(frame_names(3))
