"""Rendered kernels are kept on disk (runtime/renders.py): a process meeting a loop and
signature met before reads the kernel's source instead of rendering it.  The key must be
the same in every process (string hashing differs between processes) and must change with
anything the renderer reads, megaguards' own code included."""
import json
import shutil
import textwrap

import numpy

import megaguards
from megaguards import config
from megaguards.analysis.typeinfer import ArrayInfo, infer_types
from megaguards.ir import nodes as ir
from megaguards.ir.types import Scalar
from megaguards.runtime import loopkey

from conftest import run_megaguards, site_for

SCRIPT = textwrap.dedent("""
    def smooth(a, b, n):
        for i in range(1, n - 1):
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0

    a = [float(k % 7) for k in range(200)]
    b = [0.0] * 200
    smooth(a, b, 200)
    print(repr(sum(b)), b[1], b[198])
""")


def smooth(a, b, n):
    for i in range(1, n - 1):
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0


def renders_in(cache) -> set:
    return {path.name for path in (cache / "renders").glob("*.marshal")}


def test_a_second_process_reads_the_kernel_instead_of_rendering_it(tmp_path):
    script = tmp_path / "smooth.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "cache"
    expected = run_megaguards("run", "--device", "off", script).stdout
    outputs, seen = [], []
    for seed in ("1", "2"):   # another string-hash seed: the key must not depend on it
        done = run_megaguards("run", "--device", "seq", "--report-json", tmp_path / f"{seed}.json", script,
                              env={"MEGAGUARDS_CACHE_DIR": str(cache), "PYTHONHASHSEED": seed,
                                   "MEGAGUARDS_LOG": "debug"})
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
        seen.append(renders_in(cache))
        loops = json.loads((tmp_path / f"{seed}.json").read_text())["loops"]
        [loop] = [record for record in loops if record["function"] == "smooth"]
        assert loop["compiled_runs"] == 1
    assert outputs == [expected, expected]
    assert seen[0] and seen[1] == seen[0]


def in_cache(folder, kernel_cache, run) -> set:
    """The render files written by run() with the cache in folder."""
    config.configure(cache_dir=folder)
    try:
        run()
    finally:
        config.configure(cache_dir=kernel_cache)
    return renders_in(folder)


def test_the_key_changes_with_megaguards_code(monkeypatch, tmp_path, kernel_cache):
    a, first, second = [1.0, 2.0, 4.0, 8.0], [0.0] * 4, [0.0] * 4
    before = in_cache(tmp_path, kernel_cache, lambda: megaguards.jit(smooth)(a, first, 4))
    monkeypatch.setattr(loopkey, "code_stamp", lambda: "an edited renderer")
    after = in_cache(tmp_path, kernel_cache, lambda: megaguards.jit(smooth)(a, second, 4))
    assert second == first == [0.0, 7 / 3, 14 / 3, 0.0]
    assert before and len(after - before) == len(before)


def test_an_unreadable_render_file_is_rendered_again(tmp_path, kernel_cache):
    a, b, again = numpy.arange(6.0), numpy.zeros(6), numpy.zeros(6)
    names = in_cache(tmp_path, kernel_cache, lambda: megaguards.jit(smooth)(a, b, 6))
    sources = {name: (tmp_path / "renders" / name).read_bytes() for name in names}
    for name in names:
        (tmp_path / "renders" / name).write_bytes(sources[name][:40])   # truncated
    shutil.rmtree(tmp_path / "bundles", ignore_errors=True)   # which would serve the loop's first kernel
    assert in_cache(tmp_path, kernel_cache, lambda: megaguards.jit(smooth)(a, again, 6)) == names
    assert numpy.array_equal(again, b) and list(b) == [0.0, 1.0, 2.0, 3.0, 4.0, 0.0]
    assert {name: (tmp_path / "renders" / name).read_bytes() for name in names} == sources


def test_loop_positions_follow_the_walk_in_preorder():
    inner = ir.For("j", ir.Const(0), ir.Name("n"), ir.Const(1), (ir.Pass(),))
    second = ir.For("k", ir.Const(0), ir.Name("n"), ir.Const(1), (ir.Pass(),))
    outer = ir.For("i", ir.Const(0), ir.Name("n"), ir.Const(1), (inner, second))
    key = loopkey.LoopKey("digest", outer)
    assert key.loops == (outer, inner, second)


def test_type_inference_numbers_every_node_in_preorder_the_same_in_every_run():
    """Facts are keyed by these numbers (not id()): the plan a process stored names the
    loops of a loop typed afresh in another process."""
    def typed_body():
        inner = ir.For("j", ir.Const(0), ir.Name("n"), ir.Const(1),
                       (ir.Store("a", (ir.Name("j"),), ir.BinOp("+", ir.Name("i"), ir.Name("j"))),))
        outer = ir.For("i", ir.Const(0), ir.Name("n"), ir.Const(1), (inner, ir.Pass()))
        arrays = {"a": ArrayInfo(Scalar.PY_INT, 1, True)}
        return infer_types(outer, {"n": Scalar.PY_INT}, arrays, {}).body

    first, again = typed_body(), typed_body()
    assert [node.nid for node in ir.walk(first)] == list(range(len(list(ir.walk(first)))))
    assert [node.nid for node in ir.walk(again)] == [node.nid for node in ir.walk(first)]
    assert first.nid == 0 and all(node is not other for node, other in zip(ir.walk(first), ir.walk(again)))


def test_every_loop_follows_the_full_walk_through_ifs_and_whiles():
    def loop(var, *body):
        return ir.For(var, ir.Const(0), ir.Name("n"), ir.Const(1), body)

    spin = ir.While(ir.Compare(ir.Name("x"), ("<",), (ir.Const(3),)), (loop("w"),))
    branch = ir.If(ir.Name("c"), (loop("a"), spin), (loop("b", loop("c")),))
    outer = loop("i", loop("j"), branch, loop("k"))
    key = loopkey.LoopKey("digest", outer)
    walked = [node for node in ir.walk(outer) if isinstance(node, (ir.For, ir.While))]
    assert [node.var if isinstance(node, ir.For) else "while" for node in key.every_loop] == \
        ["i", "j", "a", "while", "w", "b", "c", "k"]
    assert list(key.every_loop) == walked and all(a is b for a, b in zip(key.every_loop, walked))
    assert key.loops == tuple(node for node in walked if isinstance(node, ir.For))




def test_a_loop_s_plan_and_first_kernel_are_read_from_one_file(tmp_path, kernel_cache, monkeypatch):
    """A loop met before is specialized from its bundle alone (neither the plan's file nor
    the render's is read, nothing is computed); a bundle that cannot be read is made again."""
    from megaguards.runtime import plans, renders

    def refuse(*args):
        raise AssertionError("read or computed apart from the bundle")

    a = [float(k * k) for k in range(8)]
    expected = [0.0] * 8
    smooth(a, expected, 8)
    results = [[0.0] * 8 for _ in range(3)]
    in_cache(tmp_path, kernel_cache, lambda: megaguards.jit(smooth)(a, results[0], 8))
    [bundle] = (tmp_path / "bundles").glob("*.marshal")
    stored = bundle.read_bytes()
    with monkeypatch.context() as patched:
        patched.setattr(plans, "cached_plan", refuse)
        patched.setattr(renders, "cached_render", refuse)
        function = megaguards.jit(smooth)
        in_cache(tmp_path, kernel_cache, lambda: function(a, results[1], 8))
    assert site_for(function)[-1]["compiled_runs"] == 1
    bundle.write_bytes(b"not a record")
    in_cache(tmp_path, kernel_cache, lambda: megaguards.jit(smooth)(a, results[2], 8))
    assert bundle.read_bytes() == stored
    assert results == [expected] * 3 and expected[1] == 5 / 3
