"""The renderer's targets, each a table of spellings plus hooks (``base.py``): C for one
core, OpenMP for all cores (C plus the parallel loop), CUDA for the GPU."""
