"""The part of CuPy's API that megaguards' GPU runtime uses, over the CUDA driver API.

Importing CuPy and creating its context cost about 0.67 s on the H100 machine before the
first kernel; ``cuda.bindings`` with the device's primary context about 0.27 s, and a
kernel loaded from a cubin cached on disk needs no NVRTC (issue 28: "CUDA ready within
0.3 s").  runtime/cuda.py and cuda_region.py are written against CuPy's names
(``empty``, ``asarray``, ``.get``, ``cuda.Event``, ``RawModule``...); ``Driver`` provides
exactly those, so the same code runs on CuPy (a program that imported it), on this module,
or on the tests' emulator (tests/cuda_emulator.py).

Everything runs on the legacy default stream, as CuPy's does unless told otherwise: a
copy waits for the kernels before it, and CuPy arrays a program passes are used in place
(the same primary context, their ``data.ptr``).  Device memory and page-locked host memory
come from pools that keep freed blocks (allocating costs tens of microseconds, pinning
80 MB several milliseconds).
"""
from __future__ import annotations

import ctypes
import functools
import threading
import weakref

import numpy

from .cachefile import cache_path, read_verified, sha256, write_verified

CUBIN_MAGIC = b"megaguards cubin 1\n"
ALIGNMENT = 512   # device blocks are rounded up to this, then to powers of two past 1 MiB


class CudaError(RuntimeError):
    pass


def _checked(result: tuple):
    """The values a ``cuda.bindings`` call returns after its status; CudaError for a failure."""
    status, values = result[0], result[1:]
    if int(status) != 0:
        raise CudaError(f"CUDA: {getattr(status, 'name', status)}")
    return values[0] if len(values) == 1 else values


def _bucket(size: int) -> int:
    size = max(ALIGNMENT, -(-size // ALIGNMENT) * ALIGNMENT)
    return size if size <= 1 << 20 else 1 << (size - 1).bit_length()


class _Pool:
    """Freed blocks kept by rounded size for the next allocation of that size."""

    def __init__(self, allocate, free) -> None:
        self.allocate_block, self.free_block = allocate, free
        self.free: dict[int, list] = {}
        self.lock = threading.Lock()

    def take(self, size: int) -> tuple[int, int]:
        rounded = _bucket(size)
        with self.lock:
            kept = self.free.get(rounded)
            if kept:
                return kept.pop(), rounded
        try:
            return self.allocate_block(rounded), rounded
        except CudaError:   # out of memory: give the kept blocks back and try once more
            self.release_all()
            return self.allocate_block(rounded), rounded

    def give(self, address: int, rounded: int) -> None:
        with self.lock:
            self.free.setdefault(rounded, []).append(address)

    def release_all(self) -> None:
        with self.lock:
            blocks = [address for kept in self.free.values() for address in kept]
            self.free.clear()
        for address in blocks:
            self.free_block(address)


class _Pointer:
    """CuPy's ``array.data``: its device address."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class _Flags:
    c_contiguous = True   # every array here is a whole block, a leading index or a slice of one


class DeviceArray:
    """A C-contiguous array in device memory: CuPy's ``ndarray`` as far as megaguards uses it."""

    flags = _Flags()

    def __init__(self, driver: Driver, shape: tuple, dtype, address: int, owner=None) -> None:
        self.driver, self.shape, self.dtype = driver, tuple(shape), numpy.dtype(dtype)
        self.data, self.owner = _Pointer(address), owner
        self.size = int(numpy.prod(self.shape, dtype=numpy.int64)) if self.shape else 1
        self.itemsize, self.ndim = self.dtype.itemsize, len(self.shape)
        self.nbytes = self.size * self.itemsize
        strides, step = [], self.itemsize
        for extent in reversed(self.shape):
            strides.append(step)
            step *= max(1, extent)
        self.strides = tuple(reversed(strides))

    def get(self, out=None, stream=None):
        """The array on the host (into ``out`` when given), after the work queued before it."""
        if out is None:
            out = numpy.empty(self.shape, dtype=self.dtype)
        if self.nbytes:
            self.driver.call("cuMemcpyDtoH", out.ctypes.data, self.data.ptr, self.nbytes)
        return out

    def set(self, host, stream=None) -> None:
        """``host``'s bytes into the array, queued behind the work before it (``host``
        page-locked: the copy is asynchronous)."""
        self.driver.call("cuMemcpyHtoDAsync", self.data.ptr, host.ctypes.data, self.nbytes, 0)

    def item(self):
        return self.get().item()

    def copy(self) -> DeviceArray:
        twin = self.driver.empty(self.shape, self.dtype)
        if self.nbytes:
            self.driver.call("cuMemcpyDtoD", twin.data.ptr, self.data.ptr, self.nbytes)
        return twin

    def __getitem__(self, key) -> DeviceArray:
        """A view: ``a[k]`` (a row, or a 0-d element) or ``a[start:stop]`` of a 1-d array."""
        base = self.owner or self
        if isinstance(key, slice) and len(self.shape) == 1:
            start, stop, step = key.indices(self.shape[0])
            if step != 1:
                raise NotImplementedError("a strided view of a device array")
            return DeviceArray(self.driver, (max(0, stop - start),), self.dtype,
                               self.data.ptr + start * self.dtype.itemsize, base)
        index = int(key)
        rows = self.shape[0]
        if not -rows <= index < rows:
            raise IndexError(f"index {index} is out of bounds for a device array of {rows}")
        row = self.nbytes // rows
        return DeviceArray(self.driver, self.shape[1:], self.dtype, self.data.ptr + (index % rows) * row, base)

    def __len__(self) -> int:
        return self.shape[0]


class _Event:
    """``cupy.cuda.Event(disable_timing=True)``: recorded on the default stream, polled."""

    def __init__(self, driver: Driver, disable_timing: bool = True) -> None:
        self.driver = driver
        self.handle = driver.call("cuEventCreate", driver.api.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        weakref.finalize(self, driver.api.cuEventDestroy, self.handle)

    def record(self, stream=None) -> None:
        self.driver.call("cuEventRecord", self.handle, 0)

    @property
    def done(self) -> bool:
        self.driver.current()
        (status,) = self.driver.api.cuEventQuery(self.handle)
        if status == self.driver.api.CUresult.CUDA_ERROR_NOT_READY:
            return False
        _checked((status,))
        return True


class _Function:
    """A kernel of a loaded module: ``function(grid, block, args)`` as CuPy's ``RawKernel``."""

    def __init__(self, driver: Driver, handle) -> None:
        self.driver, self.handle = driver, handle

    def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
        words = _words(args)   # (the buffers stay referenced here until the launch has copied them)
        if words is not None:   # every argument 8 bytes (megaguards' kernels): one block
            pointers = words.ctypes.data + _OFFSETS[:len(args)]
        else:
            values = [_parameter(argument) for argument in args]
            pointers = numpy.array([value.ctypes.data for value in values], dtype=numpy.uint64)
        grid, block = tuple(grid) + (1,) * (3 - len(grid)), tuple(block) + (1,) * (3 - len(block))
        self.driver.call("cuLaunchKernel", self.handle, *grid, *block, 0, 0, pointers.ctypes.data, 0)


# A launch's arguments packed in one block of 8-byte words: a time-step region launches a
# kernel 120 times a call (hotspot), and each argument in its own NumPy array, its address
# read through ``.ctypes``, cost about 30 us a launch.  cuLaunchKernel copies them at once.
_OFFSETS = numpy.arange(0, 8 * 64, 8, dtype=numpy.uint64)
_WIDE = {numpy.dtype(numpy.float64): "f", numpy.dtype(numpy.int64): "i", numpy.dtype(numpy.uint64): "u"}


def _words(args: tuple):
    """The arguments as 8-byte words in one array, or None where one is narrower (or there
    are more than 64): each then gets its own buffer (``_parameter``)."""
    if len(args) > len(_OFFSETS):
        return None
    words = numpy.empty(len(args), dtype=numpy.uint64)
    ints, floats = words.view(numpy.int64), words.view(numpy.float64)
    for k, argument in enumerate(args):
        address = getattr(getattr(argument, "data", None), "ptr", None)   # a device array (ours or CuPy's)
        if address is not None:
            words[k] = address
        elif isinstance(argument, numpy.generic):
            kind = _WIDE.get(argument.dtype)
            if kind is None:
                return None
            (floats if kind == "f" else ints if kind == "i" else words)[k] = argument
        elif isinstance(argument, float):
            floats[k] = argument
        else:
            ints[k] = argument
    return words


def _parameter(argument):
    """A kernel argument's bytes: a device array's address, a NumPy scalar as it is, a
    Python float as a double and an int as an int64."""
    address = getattr(getattr(argument, "data", None), "ptr", None)   # a device array (ours or CuPy's)
    if address is not None:
        return numpy.array(address, dtype=numpy.uint64)
    if isinstance(argument, numpy.generic):
        return numpy.array(argument)
    return numpy.array(argument, dtype=numpy.float64 if isinstance(argument, float) else numpy.int64)


class _Module:
    def __init__(self, driver: Driver, code: str, options: tuple = ()) -> None:
        self.driver = driver
        self.handle = driver.call("cuModuleLoadData", driver.cubin(code, tuple(options)))

    def get_function(self, name: str) -> _Function:
        return _Function(self.driver, self.driver.call("cuModuleGetFunction", self.handle, name.encode()))


class _Runtime:
    """``cupy.cuda.runtime``'s device queries."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    def getDeviceCount(self) -> int:  # noqa: N802 (CuPy's name)
        return self.driver.call("cuDeviceGetCount")

    def driverGetVersion(self) -> int:  # noqa: N802
        return self.driver.call("cuDriverGetVersion")

    def runtimeGetVersion(self) -> int:  # noqa: N802
        """No CUDA runtime here: the version of NVRTC, which compiles the kernels."""
        major, minor = _checked(self.driver.nvrtc.nvrtcVersion())
        return major * 1000 + minor * 10

    def getDeviceProperties(self, index: int) -> dict:  # noqa: N802
        driver, attribute = self.driver, self.driver.api.CUdevice_attribute
        device = driver.call("cuDeviceGet", index)
        return {"name": driver.call("cuDeviceGetName", 256, device).split(b"\0")[0],
                "major": driver.call("cuDeviceGetAttribute",
                                     attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
                "minor": driver.call("cuDeviceGetAttribute",
                                     attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
                "totalGlobalMem": driver.call("cuDeviceTotalMem", device),
                "multiProcessorCount": driver.call("cuDeviceGetAttribute",
                                                   attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)}


class _Cuda:
    """``cupy.cuda``: events, the current stream (the default one) and page-locked memory."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.runtime = _Runtime(driver)

    def Event(self, disable_timing: bool = True) -> _Event:  # noqa: N802 (CuPy's name)
        return _Event(self.driver, disable_timing)

    @staticmethod
    def get_current_stream():
        return None   # the default stream

    def alloc_pinned_memory(self, size: int):
        """Page-locked host memory for ``numpy.frombuffer``, back to the pool when unused."""
        address, rounded = self.driver.pinned.take(size)
        memory = (ctypes.c_char * rounded).from_address(address)
        weakref.finalize(memory, self.driver.pinned.give, address, rounded)
        return memory


class Driver:
    """CuPy's module as far as megaguards uses it, on the device's primary context."""

    int64, float64 = numpy.int64, numpy.float64

    def __init__(self, api, nvrtc, device) -> None:
        self.api, self.nvrtc, self.device = api, nvrtc, device
        self.context = _checked(api.cuDevicePrimaryCtxRetain(device))
        self.threads = threading.local()
        self.current()
        major = self.call("cuDeviceGetAttribute",
                          api.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
        minor = self.call("cuDeviceGetAttribute",
                          api.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
        self.architecture = f"sm_{major}{minor}"
        self.memory = _Pool(lambda size: int(self.call("cuMemAlloc", size)), lambda a: self.call("cuMemFree", a))
        self.pinned = _Pool(lambda size: int(self.call("cuMemHostAlloc", size, 0)),
                            lambda a: self.call("cuMemFreeHost", a))
        self.cuda = _Cuda(self)

    def current(self) -> None:
        """Make the primary context current in this thread (once per thread)."""
        if not getattr(self.threads, "ready", False):
            _checked(self.api.cuCtxSetCurrent(self.context))
            self.threads.ready = True

    def call(self, name: str, *arguments):
        self.current()
        return _checked(getattr(self.api, name)(*arguments))

    # arrays -------------------------------------------------------------------------
    def empty(self, shape, dtype=numpy.float64) -> DeviceArray:
        shape = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
        nbytes = int(numpy.prod(shape, dtype=numpy.int64)) * numpy.dtype(dtype).itemsize
        address, rounded = self.memory.take(nbytes)
        array = DeviceArray(self, shape, dtype, address)
        weakref.finalize(array, self.memory.give, address, rounded)
        return array

    def zeros(self, shape, dtype=numpy.float64) -> DeviceArray:
        array = self.empty(shape, dtype)
        if array.nbytes:
            self.call("cuMemsetD8", array.data.ptr, 0, array.nbytes)
        return array

    def asarray(self, host) -> DeviceArray:
        host = numpy.ascontiguousarray(host)
        array = self.empty(host.shape, host.dtype)
        if array.nbytes:
            self.call("cuMemcpyHtoD", array.data.ptr, host.ctypes.data, array.nbytes)
        return array

    # kernels ------------------------------------------------------------------------
    def RawModule(self, code: str, options: tuple = ()) -> _Module:  # noqa: N802 (CuPy's name)
        return _Module(self, code, options)

    def cubin(self, code: str, options: tuple) -> bytes:
        """The kernel compiled for this GPU: from the cache (a verified record), else NVRTC."""
        flags = (f"--gpu-architecture={self.architecture}", *options)
        version = ".".join(map(str, _checked(self.nvrtc.nvrtcVersion())))
        key = sha256("\0".join((code, *flags, version)).encode()).hexdigest()[:40]
        path = cache_path("cuda", f"{key}.cubin")
        try:
            return read_verified(path, CUBIN_MAGIC)
        except (OSError, ValueError):   # absent or damaged: compiled (again)
            pass
        binary = compile_cubin(self.nvrtc, code, flags)
        try:
            write_verified(path, binary, CUBIN_MAGIC)
        except (OSError, ValueError):   # a read-only cache: compiled again next time
            pass
        return binary


def compile_cubin(nvrtc, code: str, flags: tuple) -> bytes:
    """NVRTC's cubin of ``code``; CudaError with its log when it does not compile."""
    program = _checked(nvrtc.nvrtcCreateProgram(code.encode(), b"mg_kernel.cu", 0, [], []))
    try:
        encoded = [flag.encode() for flag in flags]
        (status,) = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)
        if int(status) != 0:
            size = _checked(nvrtc.nvrtcGetProgramLogSize(program))
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(program, log)
            raise CudaError(f"NVRTC failed:\n{log.decode(errors='replace')[-4000:]}")
        size = _checked(nvrtc.nvrtcGetCUBINSize(program))
        binary = b" " * size
        _checked(nvrtc.nvrtcGetCUBIN(program, binary))
        return binary
    finally:
        nvrtc.nvrtcDestroyProgram(program)


@functools.lru_cache(maxsize=None)
def open_driver() -> Driver | None:
    """The driver on GPU 0; None where ``cuda.bindings`` or a GPU is missing."""
    try:
        from cuda.bindings import driver as api, nvrtc

        _checked(api.cuInit(0))
        if _checked(api.cuDeviceGetCount()) < 1:
            return None
        return Driver(api, nvrtc, _checked(api.cuDeviceGet(0)))
    except Exception:  # no bindings, no libcuda, no device: CuPy or the CPU then
        return None


def started() -> bool:
    """Has this process opened the driver (without opening it)?"""
    return open_driver.cache_info().currsize > 0 and open_driver() is not None
