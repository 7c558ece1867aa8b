"""numba peer of benchmarks/suite/mm_numpy.py: the same triple loop as the program, the rows
of c under prange: the mm peer's kernel (the program's inputs are the same arrays)."""
import _peer

mm = _peer.peer("mm")
compute = mm.compute
checksum = mm.checksum


if __name__ == "__main__":
    _peer.run("mm_numpy", compute, checksum)
