# expect: fallback
"""An uncaught KeyboardInterrupt raised from a loop: the process dies like CPython's
(by SIGINT), after the compiled loops before it ran."""
total = 0
for i in range(100):  # mg: compiled
    total += i * i
print(repr(total))
for i in range(10):  # mg: fallback
    if i == 3:
        raise KeyboardInterrupt
    total -= i
print("not reached")
