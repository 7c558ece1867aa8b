"""Turning a lowered loop plus one entry's live-ins into a runnable specialization: the
compile pipeline's stages (pipeline.py), then building the kernel (compiling, cached;
loading), its all-cores and GPU variants, and the device choice around them."""
from __future__ import annotations

import functools
import time

from ..log_setup import LAZY
from ..record import record
from .. import record as records
from .. import config
from ..analysis.parallel import ISLPY_MISSING
from ..codegen.layout import NOT_BOXED_BACK, WRITTEN_WHOLE
from ..errors import CompilerError, CompilerUnusable, Unsupported, short_location, warn_once
from ..ir import nodes as ir
from . import pipeline
from .compiler import KERNEL_FLAGS, build_shared_object, find_compiler, load
from .costmodel import calibrate_in_background
from .dumps import dump, dump_stages
from .kernel import Explanation, Specialization
from .loopkey import LoopKey
from .marshal import helper
from .process import current as current_process
from .renders import cached_render
from .select import DeviceChoice
from .warmup import gpu_present

log = LAZY   # the "megaguards" logger, logging imported when a record could be shown


def compiler() -> tuple[str, str] | None:
    options = config.current()
    if current_process().compiler_unusable:   # said once already (unusable)
        return None
    found = find_compiler(options.compiler, options.cache_dir)
    if found is None:
        warn_once(f"megaguards: the C compiler CC={options.compiler!r} does not work (its --version failed); "
                  "every loop runs in CPython" if options.compiler else
                  "megaguards: no C compiler found (set CC); every loop runs in CPython")
    return found


def unusable(error: CompilerUnusable) -> Unsupported:
    """A compiler that hangs or does not run: one warning; the loop runs in CPython."""
    current_process().compiler_unusable = True
    warn_once(f"megaguards: {error}; loops run in CPython")
    return Unsupported(str(error))


def specialize(site, binding) -> Specialization:
    """Analyse, render and compile the site's loop for the types of these live-ins."""
    loop, info = site.loop, site.info
    found = compiler()
    if found is None:
        raise Unsupported("no C compiler found (set CC)")
    if config.current().device == "gpu":
        from . import cuda

        if cuda.cupy_module() is None:
            warn_once("megaguards: device 'gpu' requested but no CUDA device is usable (CuPy not installed, "
                      "or no GPU/driver); loops run on the CPU")
    started = time.perf_counter()
    options = config.current()
    if site.reassociate:   # jit(reassociate=True)
        options = options._replace(reassociate=True)
    if options.retired:
        for name in options.retired:
            warn_once(f"megaguards: {name} is retired and ignored: {config.RETIRED[name]}")
    analysed = pipeline.analyse(loop, site.live_outs, pipeline.Signature.of(loop, site.binder, binding), options)
    if isinstance(analysed, pipeline.Rejected):
        return analysed
    plan, rendered = analysed.plan, analysed.rendered
    if plan is not None and ISLPY_MISSING in plan.reasons:
        warn_once(f"megaguards: {ISLPY_MISSING} (pip install islpy)")
    for reason in analysed.reasons:
        site.note(str(reason))
    for note in plan.notes if plan is not None else ():   # reported where a parallel run happens
        log.debug("loop %s: %s", short_location(info), note)
    site.stats.analysis += time.perf_counter() - started
    log.debug("loop %s: specialized for %s: %s; parallel depth %d", short_location(info),
              analysed.signature.describe(), analysed.describe_laps(), plan.depth if plan and rendered.parallel else 0)
    kernel, object_name = compile_kernel(site, rendered, found)
    dump_stages(site, rendered.source, loop, analysed.typed, analysed.facts, plan, analysed.key.loops)
    try:
        codec = helper(options.cache_dir, found)
    except CompilerUnusable as error:
        raise unusable(error) from None
    except CompilerError as error:   # Python's headers missing, most likely
        warn_once(f"megaguards: the marshalling helper did not compile (are Python's headers installed?): "
                  f"{str(error).splitlines()[-1][:200]}; every loop runs in CPython")
        raise Unsupported("the marshalling helper did not compile") from None
    specialization = Specialization(
        analysed.typed, analysed.layout, kernel, rendered.checks_in_loop, rendered.preconditions,
        parallel_depth=plan.depth if plan is not None and rendered.parallel else 0,
        written=written_codes(site, loop, analysed.signature),
        is_list=tuple(analysed.signature.arrays[use.name].is_list for use in loop.arrays),
        scalar_paths=site.binder.scalar_paths, live_outs=site.live_outs, object_name=object_name,
        enter=codec.enter, enter_prologue=codec.mg_prologue, snapshots_of=codec, groups=analysed.signature.groups,
        float_status=rendered.float_status, parallel_notes=plan.notes if plan is not None else (),
        explanation=Explanation(signature=analysed.signature.describe(),
                                parallel=describe_plan(analysed.key, plan, rendered.parallel or analysed.lazy_parallel),
                                source=kernel_source(rendered.source)))
    if options.device in ("gpu", "auto") and analysed.facts is not None and plan is not None:
        parallel = functools.partial(parallel_variant, site, specialization, analysed, found) \
            if analysed.lazy_parallel else None
        chosen = choose_device(specialization, analysed, options, parallel, gpu_side(site, specialization,
                                                                                   analysed, options))
    else:
        chosen = specialization
    log.debug("loop %s: device %s", short_location(info), describe_device(chosen))
    return chosen


def written_codes(site, loop, signature) -> tuple[int, ...]:
    """The plan's written field per array: 0, 1 or WRITTEN_WHOLE (a comprehension's fresh
    output), with NOT_BOXED_BACK on a list the function's frame drops right after the loop
    (frontend/scratch.py: nothing can read its elements again)."""
    scratch = getattr(site.info, "scratch", ())
    codes = []
    for use in loop.arrays:
        code = WRITTEN_WHOLE if use.name in site.fresh_outputs else int(use.written)
        if code and use.name in scratch and signature.arrays[use.name].is_list:
            code |= NOT_BOXED_BACK
        codes.append(code)
    return tuple(codes)


def fields_in_c(binder) -> None:
    """A loop over fields of a list's objects reads them (and sets them, or compares the
    objects: each must then be in the list once) at every entry, the first included: with
    marshal.c where the helper compiles.  ``mg_distinct``: a Python set of ids costs about
    150 ns an object; ``__slots__`` members read and set at their offsets: a tenth of the
    attribute accesses' time."""
    found = compiler()
    if found is None:
        return
    try:
        library = helper(config.current().cache_dir, found)
    except (CompilerError, CompilerUnusable) as error:   # said where the loop specializes
        log.debug("marshalling helper unavailable for fields: %s", error)
        return
    binder.distinct, binder.slots = library.mg_distinct, library


def describe_device(chosen) -> str:
    """The device a new specialization runs on, as the debug log says it."""
    if isinstance(chosen, DeviceChoice):
        if chosen.policy == "gpu":
            return "cuda (device gpu)"
        return ("cuda, CPU or sequential" if getattr(chosen, "gpu", None) is not None else "CPU or sequential") + \
            ", chosen per entry (device auto)"
    return f"CPU, {chosen.parallel_depth} parallel loop level(s) (OpenMP)" if chosen.parallel_depth else "CPU, sequential"


def compile_kernel(site, rendered, found: tuple[str, str], what: str = "compile"):
    """The rendered kernel compiled (or found in the cache) and loaded: its entry point, and
    the compiled object's name (a hash of the source, the compiler and the flags)."""
    started = time.perf_counter()
    try:
        flags = KERNEL_FLAGS + (("-fopenmp",) if rendered.parallel else ())
        path, cached = build_shared_object(rendered.source, config.current().cache_dir, found, flags,
                                           what=f"compiling the loop at {short_location(site.info)}, once")
    except CompilerUnusable as error:
        raise unusable(error) from None
    except CompilerError as error:
        log.error("%s", error)
        raise Unsupported(f"generated C did not compile (a megaguards bug): {str(error)[:200]}") from None
    kernel = load(path).mg_kernel
    site.stats.compile += time.perf_counter() - started
    dump(site, rendered.source)
    log.debug("loop %s: %s %s in %.1f ms (%s)", short_location(site.info), what, "cached" if cached else "fresh",
              1e3 * (time.perf_counter() - started), path.name)
    return kernel, path.stem


def parallel_variant(site, sequential: Specialization, analysis: pipeline.Analysed, found) -> Specialization:
    """auto's all-cores kernel, rendered and compiled when the choice first sends the loop
    there (select.DeviceChoice.parallel_variant); Unsupported if it does not compile."""
    started = time.perf_counter()
    options = config.current()
    plan = analysis.plan
    rendered = cached_render(sequential.typed, sequential.layout, analysis.facts, plan, options.threads,
                             options.parallel_work, analysis.key)
    site.stats.analysis += time.perf_counter() - started
    rendering = f"all cores: rendered in {1e3 * (time.perf_counter() - started):.1f} ms, compile"
    kernel, object_name = compile_kernel(site, rendered, found, rendering)
    return sequential.twin(
        kernel, object_name=object_name, checks_in_loop=rendered.checks_in_loop, preconditions=rendered.preconditions,
        parallel_depth=plan.depth if rendered.parallel else 0,
        explanation=records.replace(sequential.explanation, source=kernel_source(rendered.source)))


@record
class GpuSide:
    """The GPU's part of a device choice: its executable, or what builds it when the choice
    first picks the GPU, the band the features describe and the GPU shape they assume."""

    executable: object = None        # cuda.GpuSpecialization or cuda_region.GpuRegionSpecialization
    factory: object = None           # builds ``executable`` later (None: built, or no GPU)
    band: object = None              # analysis.mapping.GpuBand of the features (None: no band)
    shape: tuple | None = None       # (loop ids of each band's threads, time-step loop id or None)


def gpu_side(site, specialization, analysis: pipeline.Analysed, options) -> GpuSide:
    """The loop on the GPU too, when its nest can go there (a band, or a time-step loop
    around bands); an empty GpuSide where it cannot."""
    wants_gpu = options.device == "gpu"
    typed, facts, plan = analysis.typed, analysis.facts, analysis.plan
    if not wants_gpu:
        if not plan.loops:   # a GPU band or region needs a parallel loop: one core it is, no choice to make
            return GpuSide()
        if not gpu_present():  # auto without a GPU: the features still describe the GPU shape (as trained)
            return GpuSide(shape=parallel_nest(analysis))
        # The GPU analysis (its dependence tests import islpy), rendering and compiling wait
        # until the selector first picks the GPU.
        def later():
            return gpu_side(site, specialization, analysis, options._replace(device="gpu")).executable

        return GpuSide(factory=later, shape=parallel_nest(analysis))
    # Imported only here: under auto they would cost about 20 ms at the first loop's entry.
    from . import cuda
    from ..analysis.mapping import GpuBand, GpuRegion, choose_band, choose_region
    from ..codegen.renderer import render_cuda

    groups = analysis.signature.groups
    band = choose_band(typed, plan, facts, groups, options.reassociate)
    region = None if isinstance(band, GpuBand) else choose_region(typed, plan, facts, groups, options.reassociate,
                                                                 analysis.live_outs)
    if not isinstance(band, GpuBand) and not isinstance(region, GpuRegion):
        if wants_gpu:
            site.note("not on the GPU: " + "; ".join(dict.fromkeys((band, region))))   # one reason said once
        return GpuSide()
    bands = (band,) if region is None else region.bands
    kernels = tuple(render_cuda(typed, analysis.layout, facts, b, analysis.live_outs) for b in bands)
    lines = specialization.explanation.parallel
    if region is not None:
        lines.append(f"GPU region: loop {ir.describe_name(region.loop.var)} steps on the host around "
                     f"{len(kernels)} kernel(s); arrays stay on the device"
                     + ("; the host runs its scalar statements and folds its reductions at every step"
                        if region.steps else ""))
    for kernel in kernels:
        dump(site, kernel.source, suffix=".cu")
        lines.append(f"GPU: band {', '.join(ir.describe_name(v) for v in kernel.band)}; threadIdx.x runs "
                     f"loop {ir.describe_name(kernel.band[kernel.grid_order[0]])} (coalesced); block {kernel.block}")
        lines.append("CUDA kernel:\n" + kernel_source(kernel.source, "extern"))
    def build_gpu():
        """CuPy, the CUDA context and the kernels' compilation cost about a second per process:
        under auto they are paid only once the GPU is chosen (None: no usable GPU after all)."""
        if cuda.cupy_module() is None:
            return None
        codec = helper(options.cache_dir, compiler())
        if region is None:
            return cuda.GpuSpecialization(specialization, kernels[0], codec, facts.loops, band.loops)
        from .cuda_region import GpuRegionSpecialization

        return GpuRegionSpecialization(specialization, region, kernels, codec, facts.loops)

    gpu_band = band if region is None else region.bands[0]
    if not wants_gpu:
        shape = (tuple(tuple(loop.nid for loop in b.loops[b.fixed:]) for b in bands),
                 region.loop.nid if region is not None else None)
        return GpuSide(factory=build_gpu, band=gpu_band, shape=shape)
    if cuda.cupy_module() is None:  # no GPU here: check the kernels with NVRTC, run on the CPU
        for kernel in kernels:
            try:
                checked = cuda.check_with_nvrtc(kernel.source, options.cache_dir)
            except CompilerError as error:
                log.error("%s", error)
                site.note(f"CUDA kernel did not compile (a megaguards bug): {str(error)[:300]}")
                return GpuSide()
        if wants_gpu:
            site.note("no CUDA device found: ran on the CPU" + ("" if checked else " (NVRTC not installed)"))
        return GpuSide()
    return GpuSide(executable=build_gpu(), band=gpu_band)


def parallel_nest(analysis: pipeline.Analysed) -> tuple:
    """The GPU shape the features assume before the GPU analysis ran: the outermost parallel
    loop and the parallel loops perfectly nested in it, as threads of one launch."""
    nest, plan = [], analysis.plan
    for node in analysis.key.loops:
        if node.nid in plan.loops:
            nest.append(node.nid)
            while len(node.body) == 1 and isinstance(node.body[0], ir.For) and node.body[0].nid in plan.loops:
                node = node.body[0]
                nest.append(node.nid)
            break
    return (tuple(nest),), None


def choose_device(specialization, analysis: pipeline.Analysed, options, parallel_factory, gpu: GpuSide):
    """With ``device=auto`` (or a GPU variant), a DeviceChoice that picks seq, cpu or cuda at
    each entry (runtime/select.py); a CPU-only kernel without parallel loops is run as is.
    ``parallel_factory``: under auto, builds the all-cores kernel when first chosen."""
    parallel = specialization.parallel_depth or parallel_factory is not None
    if gpu.executable is None and gpu.factory is None and (options.device != "auto" or not parallel):
        return specialization
    if options.device == "auto":
        calibrate_in_background()   # once per machine, when it has no calibration yet
    return DeviceChoice(specialization, gpu.executable, "gpu" if options.device == "gpu" else "auto",
                        analysis.feature_template(gpu.band), analysis.facts.loops, specialization.object_name,
                        gpu_factory=gpu.factory, gpu_shape=gpu.shape, parallel_factory=parallel_factory)


def describe_plan(key: LoopKey, plan, parallel: bool) -> list[str]:
    if plan is None or not parallel:
        return []
    lines = []
    for node in key.loops:
        decision = plan.loops.get(node.nid)
        if decision is None:
            continue
        reductions = ", ".join(f"{r.var} ({r.kind})" for r in decision.reductions) or "none"
        private = ", ".join(n for n in decision.private if not n.startswith("mg_tmp")) or "none"
        copies = "".join(f"; a copy of {ir.describe_name(name)} per thread, the last iteration's kept"
                         for name, _ in decision.private_arrays)
        lines.append(f"loop '{node.var}' at line {node.line}: parallel (OpenMP); private: {private}; "
                     f"reductions: {reductions}{copies}")
    return lines


def kernel_source(source: str, first_word: str = "int") -> str:
    """The generated kernel without the shared prelude."""
    start = source.find(f"\n{first_word} ")
    start = source.find(f"\n{first_word} ", source.find("mg_kernel") - 40) if start >= 0 else -1
    return source[start + 1:] if start >= 0 else source
