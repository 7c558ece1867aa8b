"""``python -m benchmarks run ...``: the benchmark suite (see suite_runner.py; report files
in suite_report.py)."""
import sys

from benchmarks import suite_runner

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] != "run":
        print("usage: python -m benchmarks run [--programs ...] [--systems ...] [--size ...] [--repeat N]\n"
              "                                [--derive-from SIZE [--derive-systems ...]] [--stages] [--out DIR]\n"
              "       (python -m benchmarks run --help for details)", file=sys.stderr)
        sys.exit(2)
    sys.exit(suite_runner.main(sys.argv[2:]))
