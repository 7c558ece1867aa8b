"""Choosing the device for a compiled loop (MegaGuards §3.4.5, adaptive).

``gpu``: the GPU whenever the loop's band can run there.  ``auto``: the first
entries with enough work try the GPU, then the CPU (all cores), timed; the faster
one is kept (the GPU on ties within 10 %), and re-checked every 64 entries in case
sizes changed.  Tiny loops never go to the GPU.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from .kernel import Specialization

GPU_MINIMUM_WORK = 1 << 16   # band iterations below which the launch cannot pay off
RECHECK_EVERY = 64


@dataclass
class DeviceChoice:
    cpu: Specialization
    gpu: object                 # runtime.cuda.GpuSpecialization
    policy: str                 # "gpu" or "auto"
    times: dict = field(default_factory=lambda: {"cuda": [], "cpu": []})
    entries: int = 0
    last_device: str = "cpu"
    gpu_runs: int = 0

    def __getattr__(self, name):  # report and explain read the CPU specialization's facts
        return getattr(self.cpu, name)

    def pick(self) -> str:
        if self.policy == "gpu":
            return "cuda"
        gpu_times, cpu_times = self.times["cuda"], self.times["cpu"]
        if not gpu_times or (self.entries % RECHECK_EVERY == 0 and self.entries):
            return "cuda"
        if not cpu_times or (self.entries % RECHECK_EVERY == 1 and self.entries > 1):
            return "cpu"
        return "cuda" if min(gpu_times[-3:]) <= 1.1 * min(cpu_times[-3:]) else "cpu"

    def run(self, binding):
        self.entries += 1
        device = self.pick()
        started = time.perf_counter()
        if device == "cuda":
            outcome = self.gpu.run(binding, 0 if self.policy == "gpu" else GPU_MINIMUM_WORK)
            if outcome is not None:
                self.last_device = "cuda"
                self.gpu_runs += 1
                if not isinstance(outcome, int):
                    self.times["cuda"].append(time.perf_counter() - started)
                return outcome
            started = time.perf_counter()
        outcome = self.cpu.run(binding)
        self.last_device = "cpu"
        if not isinstance(outcome, int):
            self.times["cpu"].append(time.perf_counter() - started)
        return outcome
