# expect: compiled
"""Python scalars mixed with NumPy elements: result types follow NumPy (NEP 50)."""
import numpy as np


def mix(f64, f32, i64, i32, b):
    r1 = 0.0
    r2 = np.float32(0.0)
    r3 = 0
    r4 = np.int32(0)
    for i in range(len(f64)):  # mg: compiled
        r1 += f64[i] * 2 + i64[i] / 3 + i32[i] * 0.5 + b[i]
        r2 += f32[i] * 2 + 1.5 - b[i]
        r3 += i64[i] * 3 + i32[i] - b[i] + 1
        r4 += i32[i] * 2 - 1
    return r1, r2, r3, r4


n = 6
f64 = np.linspace(0.0, 1.0, n)
f32 = np.linspace(0.0, 1.0, n).astype(np.float32)
i64 = np.arange(n, dtype=np.int64) - 2
i32 = np.arange(n, dtype=np.int32) * 3
b = np.array([True, False, True, True, False, False])
res = mix(f64, f32, i64, i32, b)
print([repr(r.item()) if hasattr(r, "item") else repr(r) for r in res])
print([type(r).__name__ for r in res])
mixed = np.zeros(n)
for i in range(n):  # mg: compiled
    mixed[i] = f32[i] + f64[i] + i32[i] * f32[i] - i64[i] * f32[i]
print(mixed.tolist(), mixed.dtype)
