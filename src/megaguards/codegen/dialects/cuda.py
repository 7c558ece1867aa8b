"""CUDA dialect: the same prelude (guarded for NVRTC) and renderer, one thread per
iteration of the loop band."""
from __future__ import annotations

from pathlib import Path

from .base import Dialect

CUDA = Dialect(
    name="cuda",
    suffix=".cu",
    prelude=(Path(__file__).resolve().parent.parent / "prelude.h").read_text(),
    kernel_prefix='extern "C" __global__ void',
)

# No FMA contraction: + - * / and sqrt stay bit-identical to CPython.
NVRTC_OPTIONS = ("--fmad=false", "--device-int128", "-std=c++17", "-default-device")
