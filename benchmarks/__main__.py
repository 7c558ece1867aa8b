"""``python -m benchmarks run ...``: the benchmark suite (see suite_runner.py; report files
in suite_report.py).  ``python -m benchmarks everyday ...``: the everyday group of issue 25
(see everyday_runner.py).  ``python -m benchmarks corpus ...``: the end-to-end corpus as a
start-up benchmark (see corpus_overhead.py)."""
import sys

from benchmarks import corpus_overhead, everyday_runner, suite_runner

if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "everyday":
        sys.exit(everyday_runner.main(sys.argv[2:]))
    if len(sys.argv) >= 2 and sys.argv[1] == "corpus":
        sys.exit(corpus_overhead.main(sys.argv[2:]))
    if len(sys.argv) < 2 or sys.argv[1] != "run":
        print("usage: python -m benchmarks run [--programs ...] [--systems ...] [--size ...] [--repeat N]\n"
              "                                [--derive-from SIZE [--derive-systems ...]] [--stages] [--out DIR]\n"
              "       (python -m benchmarks run --help for details)\n"
              "       python -m benchmarks everyday [--quick] [--repetitions N] [--only NAME,...] [--out DIR]\n"
              "       (python -m benchmarks everyday --help for details)\n"
              "       python -m benchmarks corpus [--repetitions N] [--only NAME,...] [--out DIR]", file=sys.stderr)
        sys.exit(2)
    sys.exit(suite_runner.main(sys.argv[2:]))
