# expect: compiled
"""Programs that look at their own namespaces: locals(), globals(), dir(), __builtins__."""
import builtins


def totals(n):
    s = 0
    for i in range(n):  # mg: compiled
        s += i * i
    return sorted(locals())


print(totals(5))
print(type(__builtins__).__name__, __builtins__ is builtins or __builtins__ is builtins.__dict__)
acc = 0.0
for k in range(4):  # mg: compiled
    acc += k / 2
print(sorted(name for name in globals() if not name.startswith("__")))
print(sorted(dir()))
print(len(vars()))
print(type(__loader__).__name__, getattr(__loader__, "name", None))
print(__loader__.get_source(__name__).splitlines()[0] if __loader__ else None)
