"""Turning a lowered loop plus one entry's live-ins into a compiled specialization:
type inference, layout, rendering (C dialect), compiling (cached), loading."""
from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import time
from pathlib import Path

from .. import config
from ..analysis.typeinfer import ArrayInfo, infer_types
from ..codegen.dialects.c import C
from ..codegen.layout import plan_layout
from ..codegen.renderer import Renderer
from ..errors import CompilerError, Unsupported
from ..guards.signature import scalar_type
from .compiler import build_shared_object, find_compiler, load
from .kernel import Specialization
from .marshal import ListCodec

log = logging.getLogger("megaguards")


def compiler() -> tuple[str, str] | None:
    found = find_compiler(config.current().compiler)
    if found is None:
        from .site import warn_once

        warn_once("megaguards: no C compiler found (set CC); every loop runs in CPython")
    return found


@functools.lru_cache(maxsize=None)
def _codec(cache_dir: Path, found: tuple[str, str]) -> ListCodec:
    return ListCodec(cache_dir, found)


def list_codec() -> ListCodec | None:
    found = compiler()
    if found is None:
        return None
    return _codec(config.current().cache_dir, found)


def specialize(site, binding) -> Specialization:
    """Analyse, render and compile the site's loop for the types of these live-ins."""
    loop, info = site.loop, site.info
    started = time.perf_counter()
    scalar_types = {path: scalar_type(path, value) for path, value in binding.values.items()
                    if path not in binding.probes}
    arrays = {use.name: ArrayInfo(binding.probes[use.name][0], use.rank, type(binding.values[use.name]) is list)
              for use in loop.arrays}
    typed = infer_types(loop.body, scalar_types, arrays, binding.functions)
    live_outs = tuple(n for n in info.live_outs if n in typed.variables)
    layout = plan_layout(typed, tuple(scalar_types), live_outs)
    rendered = Renderer(typed, layout, C).render()
    site.stats.analysis += time.perf_counter() - started
    started = time.perf_counter()
    try:
        path, cached = build_shared_object(rendered.source, config.current().cache_dir, compiler())
    except CompilerError as error:
        log.error("%s", error)
        raise Unsupported(f"generated C did not compile (a megaguards bug): {str(error)[:200]}") from None
    function = load(path, python_api=True).mg_kernel
    function.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    function.restype = ctypes.c_int
    site.stats.compile += time.perf_counter() - started
    dump(site, rendered.source)
    log.debug("site %s:%d compiled (%s)", info.filename, info.line, "cached" if cached else "fresh")
    written = frozenset(use.name for use in loop.arrays if use.written)
    return Specialization(typed, layout, function, rendered.checks_in_loop, written,
                          info.live_outs, list_codec())


def dump(site, source: str) -> None:
    directory = config.current().dump_dir
    if not directory:
        return
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(source.encode()).hexdigest()[:10]
    stem = Path(site.info.filename).stem
    (target / f"{stem}_line{site.info.line}_{digest}{C.suffix}").write_text(source)
