"""A CPU stand-in for CuPy and the GPU, so CPU-only CI runs megaguards' CUDA kernels.

Only CuPy and the device are fake; megaguards' renderer and runtime/cuda.py run as
they are.  "Device memory" is NumPy buffers with red zones around them; "NVRTC" is
g++ compiling the CUDA source as C++ behind a shim (``SHIM``); a launch runs the
grid's blocks one after another, each block's threads as one OpenMP team, so
``__syncthreads()`` is an OpenMP barrier and ``__shared__`` memory is shared by the team.

What the emulator cannot check or do, it refuses loudly: an error is raised AND
recorded in ``CudaEmulator.errors`` (megaguards turns exceptions inside a loop site
into a quiet CPython fallback, so tests must look at ``errors`` themselves).
Not emulated: CUDA's own math library (exp, sin, pow... are glibc's here, not
libdevice's; + - * / sqrt agree bit for bit), concurrency between blocks, warps.
"""
from __future__ import annotations

import ctypes
import hashlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import types
from pathlib import Path

import numpy

RED_ZONE = 256           # bytes of canary before each allocation; after it, max(RED_ZONE, its size)
CANARY = 0xA5
SMALL_BLOCKS = {"BLOCK_1D": (4, 1, 1), "BLOCK_2D": (4, 2, 1), "BLOCK_3D": (2, 2, 2)}
MULTIPROCESSORS = 8   # small grids then get their blocks split (runtime/cuda.launch_shape)
MAX_ARGS = 64
_BUILD = Path(tempfile.gettempdir()) / f"megaguards-cuda-emulator-{os.getuid()}"
_libraries: dict[str, ctypes.CDLL] = {}   # compiled once per process, by source hash

# The CUDA built-ins megaguards' kernels use, over g++ and libgomp.  System headers come
# first; then __CUDACC__, so the prelude takes its NVRTC branch, as on a GPU.  The kernel
# goes into a namespace: its own int64_t (long long) must not clash with glibc's (long).
SHIM = r"""
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>
#include <omp.h>
#undef INFINITY
#undef NAN
#undef INT64_MIN
#undef INT64_MAX
#undef INT32_MIN
#undef INT32_MAX
#define __CUDACC__ 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __shared__ static   /* blocks run one at a time: one copy, shared by the team */
struct mg_emu_dim3 { unsigned int x, y, z; };
static mg_emu_dim3 blockIdx, blockDim, gridDim;   /* set before each block's team starts */
static thread_local mg_emu_dim3 threadIdx;
static inline void __syncthreads() {
_Pragma("omp barrier")
}
static inline double __longlong_as_double(long long v) { double d; memcpy(&d, &v, 8); return d; }
static inline long long __double_as_longlong(double v) { long long i; memcpy(&i, &v, 8); return i; }
/* Round-to-nearest intrinsics: plain IEEE operations (the build has -ffp-contract=off). */
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
/* Atomics: only the overloads CUDA has (a call CUDA would reject fails to compile here too). */
static inline int atomicCAS(int *p, int expected, int desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long expected,
                                           unsigned long long desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expected;
}
static inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
#define MG_EMU_FLOAT_ADD(T)                                                                     \
static inline T atomicAdd(T *p, T v) {                                                          \
    T old, next; __atomic_load(p, &old, __ATOMIC_SEQ_CST);                                      \
    do { next = old + v; } while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
    return old;                                                                                 \
}
MG_EMU_FLOAT_ADD(double) MG_EMU_FLOAT_ADD(float)
#define MG_EMU_EXTREME(NAME, T, BEATS)                                                          \
static inline T NAME(T *p, T v) {                                                               \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                               \
    while (BEATS && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {} \
    return old;                                                                                 \
}
MG_EMU_EXTREME(atomicMax, int, v > old) MG_EMU_EXTREME(atomicMax, long long, v > old)
MG_EMU_EXTREME(atomicMax, unsigned long long, v > old) MG_EMU_EXTREME(atomicMin, int, v < old)
MG_EMU_EXTREME(atomicMin, long long, v < old) MG_EMU_EXTREME(atomicMin, unsigned long long, v < old)
namespace mg_emu_kernel {
/* CUDA's math functions, float and double overloads, hiding glibc's obsolete ::isinf(double). */
using std::sqrt; using std::floor; using std::ceil; using std::trunc; using std::fmod; using std::fabs;
using std::copysign; using std::pow; using std::log; using std::log10; using std::log2; using std::exp;
using std::sin; using std::cos; using std::tan; using std::asin; using std::acos; using std::atan;
using std::atan2; using std::sinh; using std::cosh; using std::tanh; using std::nearbyint; using std::frexp;
using std::ldexp; using std::isinf; using std::isnan; using std::isfinite; using std::round; using std::rint; using std::signbit;
#line 1 "mg_kernel.cu"
"""

LAUNCHER = r"""
}  /* namespace mg_emu_kernel */
/* Arguments arrive as cuLaunchKernel's do (an array of pointers to each value); the
 * kernel's own parameter types, deduced here, tell Python their sizes and which are pointers. */
template <typename T> static T mg_emu_arg(void *p) { T v; memcpy(&v, p, sizeof v); return v; }
template <typename... A, size_t... I>
static void mg_emu_call(void (*k)(A...), void **args, std::index_sequence<I...>) { k(mg_emu_arg<A>(args[I])...); }
template <typename... A> static void mg_emu_invoke(void (*k)(A...), void **args) {
    mg_emu_call(k, args, std::index_sequence_for<A...>{});
}
template <typename... A> static int mg_emu_describe(void (*)(A...), int *sizes, int *pointers, int room) {
    const int n = sizeof...(A), s[] = {0, (int)sizeof(A)...}, p[] = {0, (int)std::is_pointer<A>::value...};
    if (n > room) return -1;
    for (int i = 0; i < n; i++) { sizes[i] = s[i + 1]; pointers[i] = p[i + 1]; }
    return n;
}
extern "C" int mg_emu_signature(int *sizes, int *pointers, int room) {
    return mg_emu_describe(&mg_emu_kernel::mg_kernel, sizes, pointers, room);
}
/* 0, or -1 if OpenMP did not give a block all of its threads. */
extern "C" int mg_emu_launch(void **args, const unsigned *grid, const unsigned *block) {
    omp_set_dynamic(0);
    const int threads = (int)(block[0] * block[1] * block[2]);
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    int short_team = 0;
    for (unsigned z = 0; z < grid[2]; z++)
        for (unsigned y = 0; y < grid[1]; y++)
            for (unsigned x = 0; x < grid[0]; x++) {
                blockIdx = {x, y, z};
                #pragma omp parallel num_threads(threads) reduction(|: short_team)
                {
                    if (omp_get_num_threads() != threads) {
                        short_team = 1;  /* every thread skips alike: no barrier waits forever */
                    } else {
                        const unsigned t = (unsigned)omp_get_thread_num();
                        threadIdx = {t % block[0], (t / block[0]) % block[1], t / (block[0] * block[1])};
                        mg_emu_invoke(&mg_emu_kernel::mg_kernel, args);
                    }
                }
                if (short_team) return -1;
            }
    return 0;
}
"""


class EmulatorError(RuntimeError):
    """Something a real GPU launch would do that the emulator cannot (or a broken launch)."""


class MemoryPointer:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class ndarray(numpy.ndarray):  # the name megaguards' is_cupy_array() looks for
    """Device memory: a NumPy array in an emulator allocation (``data.ptr`` as CuPy has it)."""

    @property
    def data(self) -> MemoryPointer:
        return MemoryPointer(self.ctypes.data)

    def get(self, stream=None, order="C", out=None):
        host = self.view(numpy.ndarray)
        if out is None:
            return numpy.array(host, order=order, copy=True)
        # CuPy copies into ``out`` only with its dtype, size and memory order.
        if not isinstance(out, numpy.ndarray) or out.dtype != self.dtype or out.size != self.size:
            raise TypeError("get(out=): a NumPy array of the same dtype and size is needed")
        if not ((self.flags.c_contiguous and out.flags.c_contiguous)
                or (self.flags.f_contiguous and out.flags.f_contiguous)):
            raise RuntimeError("Cannot set to non-contiguous array")
        out[...] = host.reshape(out.shape)
        return out

    def set(self, arr, stream=None):
        """Host to device, as CuPy's (which checks the same shape and dtype)."""
        if not isinstance(arr, numpy.ndarray) or arr.dtype != self.dtype or arr.shape != self.shape:
            raise ValueError("set(): a NumPy array of the same shape and dtype is needed")
        self.view(numpy.ndarray)[...] = arr

    def copy(self, order="C"):
        device = _current.allocate(self.shape, self.dtype, order)
        device[...] = self
        return device

    def __deepcopy__(self, memo):   # NumPy's would give memory outside the emulator's allocations
        return self.copy()


ndarray.__module__ = "cupy._emulated"


class EmulatedEvent:
    """cupy.cuda.Event: launches run synchronously here, so every event is done once recorded."""

    def __init__(self, disable_timing: bool = False, **unsupported) -> None:
        self.recorded = False

    def record(self, stream=None) -> None:
        self.recorded = True

    @property
    def done(self) -> bool:
        return self.recorded


class RawKernel:
    def __init__(self, emulator: CudaEmulator, library: ctypes.CDLL, name: str) -> None:
        self.emulator, self.library, self.name = emulator, library, name
        sizes, pointers = (ctypes.c_int * MAX_ARGS)(), (ctypes.c_int * MAX_ARGS)()
        count = library.mg_emu_signature(sizes, pointers, MAX_ARGS)
        if count < 0:
            raise emulator.fail(f"{name}: more than {MAX_ARGS} parameters")
        self.parameters = [(sizes[k], bool(pointers[k])) for k in range(count)]

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        return self.emulator.launch(self, grid, block, args, shared_mem)


class RawModule:
    def __init__(self, emulator: CudaEmulator, code: str, options: tuple = (), **unsupported) -> None:
        if unsupported:
            raise emulator.fail(f"RawModule options not emulated: {sorted(unsupported)}")
        self.emulator, self.library = emulator, emulator.compile(code, tuple(options))

    def get_function(self, name: str) -> RawKernel:
        if name != "mg_kernel":  # the launcher is built around this one entry point
            raise self.emulator.fail(f"get_function({name!r}): only 'mg_kernel' is emulated")
        return RawKernel(self.emulator, self.library, name)


# NVRTC options megaguards passes, as g++ flags (an unknown one is refused).
NVRTC_TO_GCC = {"--fmad=false": ("-ffp-contract=off",), "--device-int128": (), "-std=c++17": ("-std=c++17",),
                "-default-device": ()}
_current: CudaEmulator | None = None


class CudaEmulator:
    """One test's fake CuPy: its allocations, launches and errors."""

    def __init__(self) -> None:
        self.launches = 0
        self.errors: list[str] = []
        self.allocations: list[tuple[numpy.ndarray, int, int]] = []   # (raw buffer, start, end)
        self.lock = threading.Lock()
        self.module = self.make_module()

    def fail(self, message: str) -> EmulatorError:
        self.errors.append(message)
        return EmulatorError(message)

    # -- the fake cupy module --------------------------------------------------------
    def make_module(self) -> types.ModuleType:
        emulator = self
        module = types.ModuleType("cupy")
        module.__file__ = __file__
        module.ndarray = ndarray
        for name in ("int8", "int16", "int32", "int64", "uint8", "uint64", "float32", "float64", "bool_"):
            setattr(module, name, getattr(numpy, name))
        module.asarray = self.asarray
        module.array = lambda obj, dtype=None: self.asarray(obj, dtype, copy=True)
        module.empty = lambda shape, dtype=float, order="C": self.allocate(shape, dtype, order)
        module.zeros = lambda shape, dtype=float, order="C": self.filled(shape, dtype, order, 0)
        module.ones = lambda shape, dtype=float, order="C": self.filled(shape, dtype, order, 1)
        module.RawModule = lambda code, options=(), **rest: RawModule(emulator, code, options, **rest)
        module.RawKernel = lambda *a, **k: (_ for _ in ()).throw(emulator.fail("cupy.RawKernel is not emulated"))
        runtime = types.SimpleNamespace(
            getDeviceCount=lambda: 1, free=lambda pointer: None,
            getDeviceProperties=lambda index: {"name": b"CPU emulation of a CUDA device", "major": 9, "minor": 0,
                                               "totalGlobalMem": 2**30,
                                               "multiProcessorCount": MULTIPROCESSORS})
        module.cuda = types.SimpleNamespace(runtime=runtime, Event=EmulatedEvent, get_current_stream=lambda: None)

        def missing(name):  # megaguards used more of CuPy than is emulated: say so
            if name.startswith("__"):
                raise AttributeError(name)
            raise emulator.fail(f"cupy.{name} is not emulated")
        module.__getattr__ = missing
        return module

    def allocate(self, shape, dtype, order="C") -> ndarray:
        dtype = numpy.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        nbytes = int(numpy.prod(shape, dtype=numpy.int64)) * dtype.itemsize
        lead, tail = RED_ZONE, max(RED_ZONE, nbytes)   # a stride twice too large stays in the tail
        raw = numpy.full(lead + nbytes + tail, CANARY, dtype=numpy.uint8)
        body = raw[lead:lead + nbytes].view(dtype).reshape(shape, order=order)
        start = raw.ctypes.data + lead
        self.allocations.append((raw, start, start + nbytes))
        return body.view(ndarray)

    def filled(self, shape, dtype, order, value) -> ndarray:
        device = self.allocate(shape, dtype, order)
        device[...] = value
        return device

    def asarray(self, obj, dtype=None, copy=False) -> ndarray:
        if isinstance(obj, ndarray) and not copy and (dtype is None or numpy.dtype(dtype) == obj.dtype):
            return obj
        # As CuPy (without unified memory): an F-only-contiguous array stays F, else C.
        order = "F" if isinstance(obj, numpy.ndarray) and obj.flags.fnc else "C"
        host = numpy.asarray(obj, dtype=dtype)
        device = self.allocate(host.shape, host.dtype, order)
        device[...] = host
        return device

    def check_red_zones(self) -> None:
        for raw, start, end in self.allocations:
            lead = start - raw.ctypes.data
            if (raw[:lead] != CANARY).any() or (raw[lead + end - start:] != CANARY).any():
                raw[:lead] = raw[lead + end - start:] = CANARY   # reported once
                raise self.fail(f"a kernel wrote outside a device allocation of {end - start} bytes")

    def owner(self, pointer: int) -> bool:
        # One past the end is a valid pointer (an empty part of a packed buffer); using it is
        # caught by the red zones when written.
        return any(start <= pointer <= end for _, start, end in self.allocations)

    # -- NVRTC --------------------------------------------------------------------------
    def compile(self, source: str, options: tuple) -> ctypes.CDLL:
        unknown = [o for o in options if o not in NVRTC_TO_GCC]
        if unknown:
            raise self.fail(f"NVRTC options not emulated: {unknown}")
        compiler = shutil.which(os.environ.get("CXX", "g++"))
        if compiler is None:
            raise self.fail("no g++ to compile CUDA kernels with")
        flags = ["-x", "c++", "-O1", "-fopenmp", "-shared", "-fPIC", "-fno-fast-math", "-w",
                 *(f for o in options for f in NVRTC_TO_GCC[o])]
        text = SHIM + source + LAUNCHER
        key = hashlib.sha256((text + "\0".join(flags)).encode()).hexdigest()[:24]
        if key in _libraries:
            return _libraries[key]
        _BUILD.mkdir(parents=True, exist_ok=True)
        path = _BUILD / f"{key}.so"
        if not path.exists():
            scratch = _BUILD / f"{key}.{os.getpid()}.{threading.get_ident()}"
            scratch.with_suffix(".cu").write_text(text)
            result = subprocess.run([compiler, *flags, "-o", str(scratch.with_suffix(".so")),
                                     str(scratch.with_suffix(".cu"))], check=False, capture_output=True, text=True)
            if result.returncode:
                raise self.fail(f"the CUDA kernel does not compile as C++ ({scratch.with_suffix('.cu')}):\n"
                                f"{result.stderr[-4000:]}")
            os.replace(scratch.with_suffix(".so"), path)   # atomic: other processes share the folder
        library = ctypes.CDLL(str(path))
        library.mg_emu_signature.argtypes = [ctypes.c_void_p] * 3
        library.mg_emu_launch.argtypes = [ctypes.c_void_p] * 3
        _libraries[key] = library
        return library

    # -- launching ----------------------------------------------------------------------
    def launch(self, kernel: RawKernel, grid, block, args, shared_mem: int) -> None:
        grid, block = self.dims(grid, "grid"), self.dims(block, "block")
        if shared_mem:
            raise self.fail("dynamic shared memory is not emulated")
        if block[0] * block[1] * block[2] > 1024 or block[2] > 64 or grid[1] > 65535 or grid[2] > 65535 \
                or grid[0] >= 2**31:
            raise self.fail(f"launch beyond CUDA's limits: grid {grid}, block {block}")
        if not isinstance(args, tuple) or len(args) != len(kernel.parameters):
            raise self.fail(f"{kernel.name} takes {len(kernel.parameters)} arguments, got {args!r:.200}")
        values = []
        for index, (arg, (size, is_pointer)) in enumerate(zip(args, kernel.parameters)):
            if isinstance(arg, ndarray):
                value = numpy.uint64(arg.data.ptr)
            elif isinstance(arg, numpy.generic):   # CuPy passes NumPy scalars by their own width
                value = arg
            else:
                raise self.fail(f"argument {index}: a {type(arg).__name__} (CuPy takes device arrays and NumPy "
                                "scalars)")
            if value.itemsize != size:
                raise self.fail(f"argument {index}: {value.dtype} ({value.itemsize} bytes) for a parameter of "
                                f"{size} bytes")
            if is_pointer and int(value) and not self.owner(int(value)):
                raise self.fail(f"argument {index}: {int(value):#x} is not device memory")
            values.append(numpy.array(value))
        pointers = (ctypes.c_void_p * max(1, len(values)))(*(v.ctypes.data for v in values))
        grid_c, block_c = (ctypes.c_uint * 3)(*grid), (ctypes.c_uint * 3)(*block)
        with self.lock:   # one launch at a time: __shared__ arrays are per kernel, not per launch
            if kernel.library.mg_emu_launch(pointers, grid_c, block_c):
                raise self.fail(f"OpenMP did not start {block} threads per block (OMP_THREAD_LIMIT?)")
            self.launches += 1
        self.check_red_zones()

    def dims(self, value, what: str) -> tuple[int, int, int]:
        value = (value,) if isinstance(value, (int, numpy.integer)) else tuple(value)
        if not 1 <= len(value) <= 3 or any(int(v) < 1 for v in value):
            raise self.fail(f"{what} {value}: one to three positive sizes are needed")
        return tuple(int(v) for v in value) + (1,) * (3 - len(value))


@functools.cache
def toolchain_missing() -> str | None:
    """Why kernels cannot be emulated here (no g++ or no OpenMP), or None."""
    compiler = shutil.which(os.environ.get("CXX", "g++"))
    if compiler is None:
        return "no g++"
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe.cc"
        probe.write_text("#include <omp.h>\nextern \"C\" int f() { return omp_get_max_threads(); }\n")
        result = subprocess.run([compiler, "-x", "c++", "-fopenmp", "-shared", "-fPIC", "-o",
                                 str(probe.with_suffix(".so")), str(probe)], check=False, capture_output=True)
    return None if result.returncode == 0 else "g++ cannot build OpenMP code"


def install(monkeypatch) -> CudaEmulator:
    """Fake CuPy for one test: megaguards' device=gpu path then runs kernels on the CPU.
    Undone by ``monkeypatch`` (and ``uninstall``), so it never leaks into other tests."""
    global _current
    from megaguards.codegen.targets import cuda as codegen_cuda
    from megaguards.runtime import cuda as runtime_cuda

    emulator = _current = CudaEmulator()
    monkeypatch.setitem(sys.modules, "cupy", emulator.module)
    for name, block in SMALL_BLOCKS.items():   # a block is an OpenMP team: keep it small on small CI
        monkeypatch.setattr(codegen_cuda, name, block)
    runtime_cuda.cupy_module.cache_clear()
    runtime_cuda._module_function.cache_clear()
    runtime_cuda.multiprocessors.cache_clear()
    return emulator


def uninstall() -> None:
    global _current
    from megaguards.runtime import cuda as runtime_cuda

    runtime_cuda.cupy_module.cache_clear()
    runtime_cuda._module_function.cache_clear()
    runtime_cuda.multiprocessors.cache_clear()
    _current = None
