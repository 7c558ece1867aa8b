"""runtime/cuda_driver.py, CuPy's API over the CUDA driver, on a fake driver API: host
memory stands for device memory, so copies, views, pools, events, the launch's argument
block and the cubin cache are checked without a GPU (the real driver runs the GPU tests
on the device machine)."""
from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
import types

import numpy
import pytest

from megaguards import config
from megaguards.runtime import cuda_driver

NOT_READY = 600


class FakeApi:
    """The driver calls cuda_driver makes, each returning (status, values...) as cuda.bindings does."""

    CUresult = types.SimpleNamespace(CUDA_ERROR_NOT_READY=NOT_READY)
    CUdevice_attribute = types.SimpleNamespace(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR="major",
                                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR="minor",
                                               CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT="processors")
    CUevent_flags = types.SimpleNamespace(CU_EVENT_DISABLE_TIMING=2)

    def __init__(self) -> None:
        self.buffers, self.allocations, self.frees, self.current_calls = {}, 0, [], 0
        self.launches, self.loaded, self.queries = [], [], {}

    def _buffer(self, size: int) -> int:
        buffer = ctypes.create_string_buffer(size)
        address = ctypes.addressof(buffer)
        self.buffers[address] = buffer
        return address

    def cuDevicePrimaryCtxRetain(self, device):
        return 0, "context"

    def cuCtxSetCurrent(self, context):
        self.current_calls += 1
        return (0,)

    def cuDeviceGetCount(self):
        return 0, 1

    def cuDriverGetVersion(self):
        return 0, 12040

    def cuDeviceGet(self, index):
        return 0, index

    def cuDeviceGetName(self, length, device):
        return 0, b"Fake GPU\0\0"

    def cuDeviceTotalMem(self, device):
        return 0, 80 * 2**30

    def cuDeviceGetAttribute(self, attribute, device):
        return 0, {"major": 9, "minor": 0, "processors": 132}[attribute]

    def cuMemAlloc(self, size):
        self.allocations += 1
        return 0, self._buffer(size)

    def cuMemFree(self, address):
        self.frees.append(address)
        return (0,)

    cuMemHostAlloc = lambda self, size, flags: (0, self._buffer(size))  # noqa: E731
    cuMemFreeHost = cuMemFree

    def cuMemcpyHtoD(self, destination, source, size):
        ctypes.memmove(destination, source, size)
        return (0,)

    cuMemcpyDtoH = cuMemcpyDtoD = cuMemcpyHtoD
    cuMemcpyHtoDAsync = lambda self, destination, source, size, stream: self.cuMemcpyHtoD(  # noqa: E731
        destination, source, size)

    def cuMemsetD8(self, address, value, size):
        ctypes.memset(address, value, size)
        return (0,)

    def cuEventCreate(self, flags):
        handle = object()
        self.queries[id(handle)] = [NOT_READY, 0]   # polled: not ready once, then done
        return 0, handle

    def cuEventRecord(self, handle, stream):
        return (0,)

    def cuEventQuery(self, handle):
        answers = self.queries[id(handle)]
        return (answers.pop(0) if len(answers) > 1 else answers[0],)

    def cuEventDestroy(self, handle):
        return (0,)

    def cuModuleLoadData(self, binary):
        self.loaded.append(binary)
        return 0, len(self.loaded)

    def cuModuleGetFunction(self, module, name):
        return 0, (module, name)

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, parameters, extra):
        count = self.expected_arguments
        pointers = (ctypes.c_uint64 * count).from_address(parameters)
        raw = [ctypes.c_uint64.from_address(pointer).value for pointer in pointers]
        self.launches.append((function, (gx, gy, gz), (bx, by, bz), raw))
        return (0,)


class FakeNvrtc:
    def __init__(self) -> None:
        self.compiled = 0

    def nvrtcVersion(self):
        return 0, 12, 9

    def nvrtcCreateProgram(self, source, name, headers, contents, names):
        return 0, {"source": source}

    def nvrtcCompileProgram(self, program, count, options):
        self.compiled += 1
        program["options"] = options
        return (1 if b"#error" in program["source"] else 0,)

    def nvrtcGetProgramLogSize(self, program):
        return 0, 12

    def nvrtcGetProgramLog(self, program, log):
        ctypes.memmove(ctypes.c_char_p(log), b"line 1: oops", 12)
        return (0,)

    def nvrtcGetCUBINSize(self, program):
        return 0, len(self.cubin_of(program))

    def nvrtcGetCUBIN(self, program, binary):
        data = self.cubin_of(program)
        ctypes.memmove(ctypes.c_char_p(binary), data, len(data))
        return (0,)

    def nvrtcDestroyProgram(self, program):
        return (0,)

    @staticmethod
    def cubin_of(program) -> bytes:
        return b"CUBIN:" + program["source"] + b"|" + b" ".join(program["options"])


@pytest.fixture
def driver(tmp_path):
    saved = config.current().cache_dir
    config.configure(cache_dir=tmp_path)
    yield cuda_driver.Driver(FakeApi(), FakeNvrtc(), 0)
    config.configure(cache_dir=saved)


def test_arrays_travel_both_ways_and_views_read_their_part(driver):
    host = numpy.arange(12, dtype=numpy.float64).reshape(3, 4)
    device = driver.asarray(host)
    assert device.shape == (3, 4) and device.strides == host.strides and device.nbytes == host.nbytes
    numpy.testing.assert_array_equal(device.get(), host)
    numpy.testing.assert_array_equal(device[1].get(), host[1])
    numpy.testing.assert_array_equal(device[-1].get(), host[-1])
    assert device[2][3].item() == 11.0 and device[2][1:3].get().tolist() == [9.0, 10.0]
    out = numpy.empty(4)
    assert device[0].get(out=out) is out and out.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(IndexError):
        device[3]
    twin = device.copy()
    twin[0].set(numpy.full(4, -1.0))
    assert device.get()[0].tolist() == [0.0, 1.0, 2.0, 3.0] and twin.get()[0].tolist() == [-1.0] * 4
    assert driver.zeros(5, dtype=driver.int64).get().tolist() == [0] * 5


def test_freed_device_blocks_serve_the_next_allocation(driver):
    api = driver.api
    first = driver.empty(1000)
    address = first.data.ptr
    row = first[3]
    kept = lambda: [block for blocks in driver.memory.free.values() for block in blocks]  # noqa: E731
    del first
    gc.collect()
    assert kept() == []   # the view keeps its base alive
    del row
    gc.collect()
    assert kept() == [address]
    before = api.allocations
    assert driver.empty(1020).data.ptr == address and api.allocations == before   # the same rounded size
    driver.memory.release_all()
    assert address in api.frees


def test_page_locked_memory_is_reused_once_no_array_holds_it(driver):
    memory = driver.cuda.alloc_pinned_memory(800)
    array = numpy.frombuffer(memory, numpy.float64, 100)
    array[:] = 7.0
    address = ctypes.addressof(memory)
    del memory
    gc.collect()
    assert driver.cuda.alloc_pinned_memory(800) is not None and array.sum() == 700.0   # still held
    del array
    gc.collect()
    assert ctypes.addressof(driver.cuda.alloc_pinned_memory(800)) == address


def test_an_event_is_polled_until_done(driver):
    event = driver.cuda.Event(disable_timing=True)
    event.record()
    assert event.done is False and event.done is True


def test_a_launch_passes_addresses_and_scalars_in_order(driver):
    module = driver.RawModule(code='extern "C" __global__ void mg_kernel() {}', options=("-std=c++17",))
    function = module.get_function("mg_kernel")
    array = driver.empty(8, dtype=driver.int64)
    driver.api.expected_arguments = 4
    function((3,), (256, 1), (array, numpy.uint64(12345), numpy.int64(-2), numpy.float64(0.5)))
    (name, grid, block, raw), = driver.api.launches
    assert name == (1, b"mg_kernel") and grid == (3, 1, 1) and block == (256, 1, 1)
    assert raw[:3] == [array.data.ptr, 12345, 2**64 - 2]
    assert numpy.array([raw[3]], dtype=numpy.uint64).view(numpy.float64)[0] == 0.5
    driver.api.expected_arguments = 5   # Python numbers: an int as int64, a float as a double
    function((1,), (32,), (array, -7, 2.25, True, 2**63 - 1))
    raw = driver.api.launches[-1][3]
    assert raw[:2] == [array.data.ptr, 2**64 - 7] and raw[3:] == [1, 2**63 - 1]
    assert numpy.array([raw[2]], dtype=numpy.uint64).view(numpy.float64)[0] == 2.25
    driver.api.expected_arguments = 2   # a narrower scalar: each argument in its own buffer
    function((1,), (32,), (numpy.int32(-3), numpy.float64(1.5)))
    low, double = driver.api.launches[-1][3]
    assert low & 0xFFFFFFFF == 2**32 - 3 and numpy.array([double], dtype=numpy.uint64).view(numpy.float64)[0] == 1.5


def test_kernels_compile_once_then_load_from_the_verified_cache(driver, tmp_path):
    code = 'extern "C" __global__ void mg_kernel() {}'
    driver.RawModule(code=code, options=("-std=c++17",))
    assert driver.nvrtc.compiled == 1
    assert driver.api.loaded[0].startswith(b"CUBIN:" + code.encode()) and b"--gpu-architecture=sm_90" in driver.api.loaded[0]
    again = cuda_driver.Driver(FakeApi(), driver.nvrtc, 0)   # a later process
    again.RawModule(code=code, options=("-std=c++17",))
    assert driver.nvrtc.compiled == 1 and again.api.loaded == driver.api.loaded
    (stored,) = (tmp_path / "cuda").glob("*.cubin")
    stored.write_bytes(stored.read_bytes()[:-3] + b"xyz")   # damaged: compiled and written again
    again.RawModule(code=code, options=("-std=c++17",))
    assert driver.nvrtc.compiled == 2 and again.api.loaded[-1] == driver.api.loaded[0]
    assert oct(stored.stat().st_mode & 0o777) == "0o600"


def test_a_kernel_that_does_not_compile_raises_with_nvrtcs_log(driver):
    with pytest.raises(cuda_driver.CudaError, match="line 1: oops"):
        driver.RawModule(code="#error no", options=())


def test_each_thread_makes_the_context_current_once(driver):
    calls = driver.api.current_calls
    driver.empty(4)
    driver.empty(4)
    assert driver.api.current_calls == calls
    worker = threading.Thread(target=lambda: driver.zeros(4))   # a driver call in another thread
    worker.start()
    worker.join()
    assert driver.api.current_calls == calls + 1


def test_a_failed_call_raises_cuda_error(driver):
    driver.api.cuMemsetD8 = lambda address, value, size: (2,)   # CUDA_ERROR_OUT_OF_MEMORY
    with pytest.raises(cuda_driver.CudaError, match="2"):
        driver.zeros(4)


def test_megaguards_info_describes_the_gpu_through_the_driver(driver):
    from megaguards.diagnostics.info import _describe_gpus

    assert _describe_gpus(driver.cuda.runtime) == [
        "CUDA devices: 1 (driver 12.4, runtime 12.9)", "  GPU 0: Fake GPU, 80.0 GiB, compute capability 9.0, 132 multiprocessors"]


def test_no_bindings_no_driver(monkeypatch):
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    cuda_driver.open_driver.cache_clear()
    try:
        assert cuda_driver.open_driver() is None and not cuda_driver.started()
    finally:
        cuda_driver.open_driver.cache_clear()


@pytest.mark.skipif(not os.path.exists("/dev/nvidiactl"), reason="the real driver needs an NVIDIA GPU")
def test_the_real_driver_runs_a_kernel(tmp_path):
    saved = config.current().cache_dir
    config.configure(cache_dir=tmp_path)
    try:
        driver = cuda_driver.open_driver()
        if driver is None:
            pytest.skip("cuda.bindings or the GPU is not usable here")
        module = driver.RawModule(code='extern "C" __global__ void mg_kernel(double* a, long long n) {'
                                       ' long long i = threadIdx.x; if (i < n) a[i] = 2.0 * a[i] + 1.0; }')
        array = driver.asarray(numpy.arange(10, dtype=numpy.float64))
        module.get_function("mg_kernel")((1,), (32,), (array, numpy.int64(10)))
        event = driver.cuda.Event()
        event.record()
        while not event.done:
            pass
        assert array.get().tolist() == [2.0 * k + 1.0 for k in range(10)]
    finally:
        config.configure(cache_dir=saved)
