# expect: compiled
"""Frames read from outside the function: a suspended generator's gi_frame and the
frames of a traceback (traceback.TracebackException(capture_locals=True), as
logging and error-reporting tools do).  Names a loop assigned must be there even
when the function itself never reads them again."""
import traceback


def gen(n):
    for i in range(n):  # mg: compiled
        s = i * 2
    yield 0


def crash(n):
    for i in range(n):  # mg: compiled
        t = i * 3
    return 1 // (n - n)


g = gen(3)
next(g)
print(sorted(g.gi_frame.f_locals.items()))
try:
    crash(4)
except ZeroDivisionError as error:
    tb = error.__traceback__
    while tb.tb_next:
        tb = tb.tb_next
    print(sorted(tb.tb_frame.f_locals.items()))
    report = traceback.TracebackException.from_exception(error, capture_locals=True)
    print(sorted(report.stack[-1].locals.items()))
