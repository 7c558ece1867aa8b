# expect: compiled
"""Loops inside async functions (with and without await in the loop body)."""
import asyncio


async def crunch(n):
    s = 0.0
    for i in range(n):  # mg: compiled
        s += (i % 7) * 0.25
    return s


async def ticker(n):
    out = [0] * n
    for i in range(n):  # mg: fallback
        await asyncio.sleep(0)
        out[i] = i * i
    return out


async def main():
    a, b = await asyncio.gather(crunch(50), ticker(5))
    print(repr(a), repr(b))


asyncio.run(main())
