/* The per-entry marshalling of a loop site, in one call with the GIL held:
 * unbox the live-ins into the kernel's arguments, run the kernel, and box list
 * results back.  Compiled like the kernels (against Python's headers) and
 * loaded with ctypes.PyDLL.
 *
 * plan (int64): [n_arrays, mode_slot (-1: no list boxed), interrupt_slot, then per array: kind, rank,
 *                itemsize, written, dims_slot, box_slot (-1: the whole list), n_scalars, then
 *                per scalar: bank, slot]
 * A list with a box slot is unboxed only over the box of elements the loop can touch: the
 * kernel's prologue (mode 1, run first) writes the box, lo per dim then hi per dim.
 * kinds and banks: codegen/layout.py's ArrayKind and ScalarBank (marshalling_plan writes it).
 * answers: 0, the kernel's flag (> 0), or a negative code of codegen/layout.py naming the
 * assumption that does not hold (guards/assumptions.py's MARSHAL_CODES gives its reason). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <fenv.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The ABI's codes are defined once, in codegen/layout.py, and passed as -D flags. */
#if !defined(MG_KIND_NDARRAY) || !defined(MG_BANK_COMPLEX) || !defined(MG_ARRAY_FIELDS) || !defined(MG_GUARD) \
    || !defined(MG_PLAN_HEADER) \
    || !defined(MG_GUARD_NDARRAY) || !defined(MG_GUARD_SCALAR) || !defined(MG_GUARD_MIXED) \
    || !defined(MG_GUARD_APPENDED) || !defined(MG_GUARD_KEYED) || !defined(MG_WRITTEN_WHOLE)
#error "compile marshal.c with codegen/layout.py's abi_defines()"
#endif
enum { KIND_NDARRAY = MG_KIND_NDARRAY, KIND_BOOL = MG_KIND_LIST_BOOL, KIND_INT = MG_KIND_LIST_INT,
       KIND_FLOAT = MG_KIND_LIST_FLOAT, KIND_SHADOW = MG_KIND_SHADOW, KIND_INT_OR_FLOAT = MG_KIND_LIST_INT_OR_FLOAT,
       KIND_GROWING = MG_KIND_GROWING };
enum { BANK_INTS = MG_BANK_INTS, BANK_FLOATS = MG_BANK_FLOATS, BANK_TRUTH = MG_BANK_TRUTH,
       BANK_COMPLEX = MG_BANK_COMPLEX, BANK_INT_OR_FLOAT = MG_BANK_INT_OR_FLOAT };
#define MAX_ARRAYS MG_MAX_ARRAYS
#define MAX_RANK 8
/* A plan's written field that boxes back: written, and not a scratch list (layout.boxed_back). */
#define KEPT(code) ((code) != 0 && !((code) & MG_NOT_BOXED_BACK))

/* The public field layout of numpy's PyArrayObject (stable across NumPy 1.x and 2.x). */
typedef struct { PyObject_HEAD char *data; int nd; Py_ssize_t *dimensions; Py_ssize_t *strides; } mg_ndarray;

typedef int (*mg_kernel_fn)(char **, int64_t *, double *);
static double mg_empty[2];

/* One large unboxing buffer kept after its entry for the next: a fresh one costs its page
 * faults on first touch (about 0.3 ms a megabyte: atax's 32 MB matrix, 15 ms of a 240 ms
 * run), and programs run loop after loop over data of one size.  Only buffers of at least
 * SPARE_LEAST bytes are kept, one at a time, none over SPARE_MOST; the GIL guards it (a
 * build without one keeps none). */
#define SPARE_LEAST ((size_t)1 << 20)
#define SPARE_MOST ((size_t)128 << 20)
static char *spare;
static size_t spare_bytes;

static char *take_buffer(size_t bytes) {
    if (spare != NULL && bytes <= spare_bytes && bytes >= spare_bytes / 2) {
        char *buffer = spare;
        spare = NULL;
        return buffer;
    }
    return malloc(bytes ? bytes : 1);
}

static void give_buffer(char *buffer, size_t bytes) {
#ifndef Py_GIL_DISABLED
    if (buffer != NULL && bytes >= SPARE_LEAST && bytes <= SPARE_MOST) {
        free(spare);
        spare = buffer;
        spare_bytes = bytes;
        return;
    }
#endif
    free(buffer);
}

/* Ctrl-C during a compiled loop: the kernels' range loops read this flag every
 * MG_POLL_CHUNK iterations (its address in the interrupt slot) and stop with
 * MG_ERR_INTERRUPT; Python's own handler, called too, then raises KeyboardInterrupt. */
static volatile int mg_interrupted;
static struct sigaction mg_python_handler;

static void mg_on_sigint(int number, siginfo_t *info, void *context) {
    mg_interrupted = 1;
    if (mg_python_handler.sa_flags & SA_SIGINFO) {
        if (mg_python_handler.sa_sigaction) mg_python_handler.sa_sigaction(number, info, context);
    } else if (mg_python_handler.sa_handler != SIG_DFL && mg_python_handler.sa_handler != SIG_IGN) {
        mg_python_handler.sa_handler(number);
    }
}

/* Put mg_on_sigint before the SIGINT handler in place (Python's), once; 0 if it was
 * put, 1 if SIGINT is not handled (ignored, or the default: the process just ends). */
int mg_watch_interrupts(void) {
    struct sigaction current, ours;
    if (sigaction(SIGINT, NULL, &current) != 0) return 1;
    if (current.sa_flags & SA_SIGINFO ? current.sa_sigaction == mg_on_sigint : 0) return 0;
    if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN))
        return 1;
    mg_python_handler = current;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = mg_on_sigint;
    ours.sa_flags = SA_SIGINFO | (current.sa_flags & SA_ONSTACK);
    sigemptyset(&ours.sa_mask);
    return sigaction(SIGINT, &ours, NULL) != 0;
}

/* Lists element by element: unbox_level, box_level, list_shape.  helper_source.py puts the
 * file in here before compiling, so that the cache key covers it (setup.py's build includes it). */
#include "marshal_lists.c"
#include "marshal_appends.c"

/* The key of the source a build at install was compiled from (setup.py defines it):
 * marshal.py uses that build only where it is this source's (helper_source.helper_key). */
#ifdef MG_HELPER_KEY
const char *mg_helper_key(void) { return MG_HELPER_KEY; }
#endif

static int store_scalar(PyObject *value, int bank, int64_t slot, int64_t *ints, double *floats) {
    if (bank == BANK_COMPLEX) {  /* two float slots */
        Py_complex c = PyComplex_AsCComplex(value);
        if (c.real == -1.0 && PyErr_Occurred()) return MG_PYERROR;
        floats[slot] = c.real;
        floats[slot + 1] = c.imag;
    } else if (bank == BANK_INT_OR_FLOAT) {  /* value and class (prelude's mg_num) */
        if (PyFloat_CheckExact(value)) {
            floats[slot] = PyFloat_AS_DOUBLE(value);
            floats[slot + 1] = 1.0;
            return 0;
        }
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (v == -1 && PyErr_Occurred()) return MG_PYERROR;
        if (overflow || v >= (1LL << 53) || v <= -(1LL << 53)) return MG_GUARD_SCALAR;  /* not exact as a double */
        floats[slot] = (double)v;
        floats[slot + 1] = 0.0;
    } else if (bank == BANK_FLOATS) {
        double d = PyFloat_AsDouble(value);
        if (d == -1.0 && PyErr_Occurred()) return MG_PYERROR;
        floats[slot] = d;
    } else if (bank == BANK_TRUTH) {  /* bool and numpy.bool */
        int truth = PyObject_IsTrue(value);
        if (truth < 0) return MG_PYERROR;
        ints[slot] = truth;
    } else {
        PyObject *index = PyNumber_Index(value);
        if (index == NULL) return MG_PYERROR;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
        Py_DECREF(index);
        if (overflow) return MG_GUARD_SCALAR;
        if (v == -1 && PyErr_Occurred()) return MG_PYERROR;
        ints[slot] = v;
    }
    return 0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* A NumPy array's dims and strides (in elements) into the ints bank; 0, or MG_GUARD_NDARRAY
 * for another rank or (``itemsize`` > 0) a stride that is not a whole number of elements. */
static int ndarray_dims(mg_ndarray *array, int rank, int64_t itemsize, int64_t *shape, int64_t *ints) {
    if (array->nd != rank) return MG_GUARD_NDARRAY;
    for (int d = 0; d < rank; d++) {
        shape[d] = ints[d] = array->dimensions[d];
        if (itemsize <= 0) continue;
        if (array->strides[d] % itemsize) return MG_GUARD_NDARRAY;
        ints[rank + d] = array->strides[d] / itemsize;
    }
    return 0;
}

/* A nested list's dims and row-major strides into the ints bank (as unboxed); its size. */
static int64_t list_dims(const int64_t *shape, int rank, int64_t *ints) {
    int64_t size = 1, stride = 1;
    for (int d = rank - 1; d >= 0; d--) {
        ints[d] = shape[d];
        ints[rank + d] = stride;
        stride *= shape[d] ? shape[d] : 1;
        size *= shape[d];
    }
    return size;
}

/* The scalars (``entry``: the plan after its arrays) into the banks. */
static int store_scalars(PyObject *scalars, const int64_t *entry, int64_t *ints, double *floats) {
    int64_t n_scalars = entry[0];
    entry += 1;
    for (int64_t s = 0; s < n_scalars; s++, entry += 2) {
        int result = store_scalar(PyTuple_GET_ITEM(scalars, s), (int)entry[0], entry[1], ints, floats);
        if (result) return result;
    }
    return 0;
}

/* The kernel's prologue alone (the caller has set its mode slot): dims and scalars into the
 * banks, no list unboxed, no array pointer passed; the hoisted checks then compute
 * every hoisted loop's range (auto's features at a first entry: 5-10x faster than filling
 * the banks from Python).  0, or a guard code / MG_PYERROR as mg_enter. */
int mg_prologue(PyObject *arrays, PyObject *scalars, const int64_t *plan, void *kernel,
                int64_t *ints, double *floats) {
    int64_t n_arrays = plan[0];
    const int64_t *entry = plan + MG_PLAN_HEADER;
    char *pointers[MAX_ARRAYS] = {0};
    int64_t shape[MAX_RANK];
    int result = 0;
    if (n_arrays > MAX_ARRAYS) return MG_GUARD;
    for (int64_t k = 0; k < n_arrays; k++, entry += MG_ARRAY_FIELDS) {
        PyObject *obj = PyTuple_GET_ITEM(arrays, k);
        int kind = (int)entry[0], rank = (int)entry[1];
        if (kind == KIND_SHADOW || kind == KIND_GROWING) continue;   /* the prologue reads neither */
        if (kind == KIND_NDARRAY) result = ndarray_dims((mg_ndarray *)obj, rank, 0, shape, ints + entry[4]);
        else if (list_shape(obj, rank, shape)) result = MG_GUARD;
        else list_dims(shape, rank, ints + entry[4]);
        if (result) return result;
    }
    result = store_scalars(scalars, entry, ints, floats);
    if (result) {
        if (result == MG_PYERROR) PyErr_Clear();
        return result;
    }
    return ((mg_kernel_fn)kernel)(pointers, ints, floats);
}

#include "marshal_snapshots.c"
#include "marshal_fields.c"

/* The box of a list the kernel's prologue wrote (``box_slot``; -1: the whole list), as
 * low and count per dim and the last dim's gap; the number of elements it visits. */
static int64_t choose_box(const int64_t *shape, int rank, int64_t box_slot, const int64_t *ints,
                          int64_t *low, int64_t *count, int64_t *gap) {
    int64_t size = 1;
    *gap = box_slot >= 0 && ints[box_slot + 2 * rank] > 1 ? ints[box_slot + 2 * rank] : 1;
    for (int d = 0; d < rank; d++) {
        low[d] = 0;
        count[d] = shape[d];
        if (box_slot >= 0) {
            int64_t lo = ints[box_slot + d], hi = ints[box_slot + rank + d];
            if (lo < 0) lo = 0;
            if (hi > shape[d] - 1) hi = shape[d] - 1;
            low[d] = lo;
            count[d] = hi >= lo ? hi - lo + 1 : 0;
        }
        size *= d == rank - 1 && count[d] ? (count[d] - 1) / *gap + 1 : count[d];
    }
    return size;
}

/* Two names of one list (``a`` and ``b`` bound to the same object): the first one's box
 * grows to hold the other's, which then shares its buffer. */
static void union_box(int rank, int64_t *low, int64_t *count, const int64_t *other_low,
                      const int64_t *other_count) {
    for (int d = 0; d < rank; d++) {
        if (other_count[d] == 0) return;
    }
    for (int d = 0; d < rank; d++) {
        if (count[d] == 0) { for (int e = 0; e < rank; e++) { low[e] = other_low[e]; count[e] = other_count[e]; } return; }
    }
    for (int d = 0; d < rank; d++) {
        int64_t lo = low[d] < other_low[d] ? low[d] : other_low[d];
        int64_t end = low[d] + count[d], other_end = other_low[d] + other_count[d];
        count[d] = (end > other_end ? end : other_end) - lo;
        low[d] = lo;
    }
}

/* seconds[0..2] accumulate unboxing, kernel and boxing time; seconds[3] the list elements
 * unboxed, seconds[4] the elements those lists hold (partial unboxing's saving), seconds[5]
 * the elements whose unboxing a snapshot spared, seconds[6] the elements boxed back.
 * ``snapshots``: one per array (NULL: none). */
int mg_enter(PyObject *arrays, PyObject *scalars, const int64_t *plan, void *kernel,
             int64_t *ints, double *floats, double *seconds, mg_snapshot *snapshots) {
    double started = now(), middle;
    int64_t n_arrays = plan[0], mode_slot = plan[1];
    mg_interrupted = 0;   /* an earlier Ctrl-C was Python's to handle, and it did */
    ints[plan[2]] = (int64_t)(intptr_t)&mg_interrupted;
    const int64_t *entry = plan + MG_PLAN_HEADER;
    char *pointers[MAX_ARRAYS] = {0};
    char *owned[MAX_ARRAYS] = {0};
    size_t owned_bytes[MAX_ARRAYS] = {0};
    int written[MAX_ARRAYS] = {0};   /* an unboxed list some name of it writes */
    int kept[MAX_ARRAYS] = {0};      /* ... and boxes back (not a scratch list: frontend/scratch.py) */
    int alias[MAX_ARRAYS];           /* the first name of the same list, or -1 */
    int64_t shapes[MAX_ARRAYS][MAX_RANK], lows[MAX_ARRAYS][MAX_RANK], counts[MAX_ARRAYS][MAX_RANK];
    int64_t gaps[MAX_ARRAYS], visited[MAX_ARRAYS];
    int shared[MAX_ARRAYS] = {0};    /* a list some later name also binds */
    int boxed_back[MAX_ARRAYS] = {0};  /* a list some name of it writes: its rows must be lists */
    mg_growing grown[MAX_ARRAYS];    /* the values the kernel appends, per list appended to */
    mg_targets targets = {NULL, 0, 0, 0};   /* the lists they join (tables: their rows) */
    int growing = 0;
    int result = 0;
    memset(grown, 0, sizeof grown);
    if (n_arrays > MAX_ARRAYS) return MG_GUARD;
    /* Dims first: the prologue reads them (and the scalars) to write the boxes. */
    for (int64_t k = 0; k < n_arrays; k++, entry += MG_ARRAY_FIELDS) {
        PyObject *obj = PyTuple_GET_ITEM(arrays, k);
        int kind = (int)entry[0], rank = (int)entry[1];
        alias[k] = -1;
        if (kind == KIND_SHADOW && obj == Py_None) continue;
        if (kind == KIND_GROWING) {
            pointers[k] = (char *)&grown[k];
            if (rank == 3) { growing++; continue; }   /* a table's row order (the kernel fills it) */
            if (rank == 2) {   /* a table of table[key].append(v): its rows' count, a dict's keys 0 .. m-1 */
                int bad = table_rows(obj, &targets, k);
                if (bad) { result = bad < 0 ? MG_PYERROR : MG_GUARD_KEYED; if (bad < 0) PyErr_NoMemory(); goto done; }
                ints[entry[4]] = PyDict_CheckExact(obj) ? PyDict_GET_SIZE(obj) : PyList_GET_SIZE(obj);
                ints[entry[4] + 1] = PyDict_CheckExact(obj);
                growing++;
                continue;
            }
            if (entry[5] >= 0 && !PyList_CheckExact(PyTuple_GET_ITEM(arrays, entry[5]))) {
                result = MG_GUARD_KEYED;   /* elements appended as they are: a list's own objects */
                goto done;
            }
            if (obj != Py_None) {   /* None: a built row's values, or a table's */
                if (add_target(&targets, obj, k)) { PyErr_NoMemory(); result = MG_PYERROR; goto done; }
                growing++;
            }
            continue;
        }
        if (kind == KIND_NDARRAY || kind == KIND_SHADOW) {
            mg_ndarray *array = (mg_ndarray *)obj;
            result = ndarray_dims(array, rank, entry[2], shapes[k], ints + entry[4]);
            if (result) goto done;
            int64_t size = 1;
            for (int d = 0; d < rank; d++) size *= shapes[k][d];
            pointers[k] = size ? array->data : (char *)mg_empty;
            continue;
        }
        if (list_shape(obj, rank, shapes[k])) { result = MG_GUARD; goto done; }
        list_dims(shapes[k], rank, ints + entry[4]);
        for (int64_t j = 0; j < k; j++)
            if (PyTuple_GET_ITEM(arrays, j) == obj) { alias[k] = (int)j; break; }
    }
    /* A list appended to may not be a row of a list the kernel reads (guards/signature.py has
     * checked the lists themselves): CPython would see its len() grow. */
    if (growing && seal_targets(&targets)) { result = MG_GUARD_APPENDED; goto done; }
    const int64_t *fields = plan + MG_PLAN_HEADER;
    for (int64_t k = 0; growing && k < n_arrays; k++, fields += MG_ARRAY_FIELDS) {
        PyObject *obj = PyTuple_GET_ITEM(arrays, k);
        if (fields[0] == KIND_GROWING) {   /* a table itself is no row of its own or of another's */
            if (fields[1] == 2 && is_target(&targets, obj)) { result = MG_GUARD_APPENDED; goto done; }
            continue;
        }
        if (fields[0] == KIND_NDARRAY || fields[0] == KIND_SHADOW) continue;
        int64_t owner = target_owner(&targets, obj);   /* a list grown in place is its own array, no other */
        const int64_t *grower = owner >= 0 ? plan + MG_PLAN_HEADER + owner * MG_ARRAY_FIELDS : NULL;
        if ((grower != NULL && !(grower[1] == 0 && grower[4] == k))
                || (fields[1] >= 2 && PyList_CheckExact(obj) && holds_any(obj, (int)fields[1] - 1, &targets))) {
            result = MG_GUARD_APPENDED;
            goto done;
        }
    }
    result = store_scalars(scalars, entry, ints, floats);
    if (result) goto done;
    if (mode_slot >= 0) {   /* the prologue alone: the boxes the loop touches */
        ints[mode_slot] = 1;
        result = ((mg_kernel_fn)kernel)(pointers, ints, floats);
        ints[mode_slot] = 0;
        if (result) goto done;
    }
    entry = plan + MG_PLAN_HEADER;
    for (int64_t k = 0; k < n_arrays; k++, entry += MG_ARRAY_FIELDS) {
        int kind = (int)entry[0], rank = (int)entry[1];
        if (kind == KIND_NDARRAY || kind == KIND_SHADOW || kind == KIND_GROWING) continue;
        visited[k] = choose_box(shapes[k], rank, entry[5], ints, lows[k], counts[k], &gaps[k]);
        boxed_back[alias[k] >= 0 ? alias[k] : k] |= entry[3] != 0;
        if (alias[k] >= 0) {   /* each element of either box, one gap apart */
            int first = alias[k];
            shared[first] = 1;
            union_box(rank, lows[first], counts[first], lows[k], counts[k]);
            gaps[first] = 1;
            visited[first] = 1;
            for (int d = 0; d < rank; d++) visited[first] *= counts[first][d];
        }
    }
    entry = plan + MG_PLAN_HEADER;
    for (int64_t k = 0; k < n_arrays; k++, entry += MG_ARRAY_FIELDS) {
        int kind = (int)entry[0], rank = (int)entry[1];
        if (kind == KIND_NDARRAY || kind == KIND_SHADOW || kind == KIND_GROWING) continue;
        int first = alias[k] >= 0 ? alias[k] : (int)k;
        int64_t *strides = ints + entry[4] + rank, stride = 1, offset = 0, size = 1, held = 1;
        for (int d = rank - 1; d >= 0; d--) {   /* row-major over the box */
            strides[d] = stride;
            offset += lows[first][d] * stride;
            stride *= counts[first][d] ? counts[first][d] : 1;
            size *= counts[first][d];
            held *= shapes[k][d];
        }
        if (alias[k] >= 0) {
            written[first] |= (int)(entry[3] & ~MG_NOT_BOXED_BACK);
            kept[first] |= KEPT(entry[3]);
            pointers[k] = pointers[first];
            continue;
        }
        written[k] = (int)(entry[3] & ~MG_NOT_BOXED_BACK);
        kept[k] |= KEPT(entry[3]);
        seconds[3] += (double)visited[k];
        seconds[4] += (double)held;
        if (size == 0) { pointers[k] = (char *)mg_empty; continue; }
        PyObject *obj = PyTuple_GET_ITEM(arrays, k);
        mg_box box = {shapes[k], lows[k], counts[k], rank, kind, gaps[k], !boxed_back[k]};
        mg_snapshot *snapshot = snapshots != NULL && !written[k] && !shared[k] && PyList_CheckExact(obj)
                                ? &snapshots[k] : NULL;   /* an array.array is copied: nothing to spare */
        char *buffer = snapshot != NULL ? reuse(snapshot, obj, &box) : NULL;
        if (buffer != NULL) {
            seconds[5] += (double)visited[k];
        } else if ((entry[3] & ~MG_NOT_BOXED_BACK) == MG_WRITTEN_WHOLE && alias[k] < 0 && !shared[k]) {
            /* Every element is written before any is read (a comprehension's fresh output): its
             * old values are never needed, and boxing back compares with them. */
            owned_bytes[k] = (size_t)size * element_size(kind);
            buffer = owned[k] = take_buffer(owned_bytes[k]);
            if (buffer == NULL) { PyErr_NoMemory(); result = MG_PYERROR; goto done; }
            seconds[3] -= (double)visited[k];
        } else {
            owned_bytes[k] = (size_t)size * element_size(kind);
            buffer = owned[k] = take_buffer(owned_bytes[k]);
            if (buffer == NULL) { PyErr_NoMemory(); result = MG_PYERROR; goto done; }
            int64_t position = 0;
            int unboxed = unbox_list(obj, &box, buffer, &position, visited[k]);
            if (unboxed) { result = unboxed == MIXED_CLASSES ? MG_GUARD_MIXED - (int)k : MG_GUARD; goto done; }
            if (snapshot != NULL && remember(snapshot, obj, &box, buffer, visited[k])) owned[k] = NULL;
        }
        /* The kernel indexes the whole list's coordinates: its base sits before the box. */
        pointers[k] = buffer - offset * element_size(kind);
    }
    for (int64_t k = 0; k < n_arrays; k++)   /* aliases share the first name's buffer */
        if (alias[k] >= 0) pointers[k] = pointers[alias[k]];
    middle = now();
    seconds[0] += middle - started;
    result = ((mg_kernel_fn)kernel)(pointers, ints, floats);
    started = now();
    seconds[1] += started - middle;
    if (result) goto done;
    entry = plan + MG_PLAN_HEADER;
    for (int64_t k = 0; growing && k < n_arrays; k++, entry += MG_ARRAY_FIELDS)
        if (entry[0] == KIND_GROWING && entry[1] == 0 && entry[5] >= 0
                && !references_hold(PyTuple_GET_ITEM(arrays, entry[5]), &grown[k], (int)entry[3])) {
            result = MG_GUARD;   /* (a kernel and its plan disagree: nothing changed yet) */
            goto done;
        }
    entry = plan + MG_PLAN_HEADER;
    for (int64_t k = 0; k < n_arrays; k++, entry += MG_ARRAY_FIELDS) {
        if (owned[k] == NULL || !kept[k]) continue;  /* not an unboxed list, read only, or scratch */
        int64_t position = 0;
        mg_box box = {shapes[k], lows[k], counts[k], (int)entry[1], (int)entry[0], gaps[k], 0};
        if (box_level(PyTuple_GET_ITEM(arrays, k), 0, &box, owned[k], &position)) { result = MG_PYERROR; goto done; }
        seconds[6] += (double)visited[k];
    }
    entry = plan + MG_PLAN_HEADER;
    for (int64_t k = 0; growing && k < n_arrays; k++, entry += MG_ARRAY_FIELDS) {
        PyObject *list = PyTuple_GET_ITEM(arrays, k);
        if (entry[0] != KIND_GROWING || list == Py_None) continue;
        int failed = entry[1] == 3 ? order_rows(list, &grown[k])
                   : entry[1] == 2 ? append_keyed(list, &grown[k], arrays, plan + MG_PLAN_HEADER
                                                   + entry[3] * MG_ARRAY_FIELDS, &grown[entry[3]])
                   : entry[1] ? append_rows(list, &grown[k], entry[3] >= 0 ? &grown[entry[3]] : NULL, (int)entry[2])
                   : append_collected(list, arrays, entry, &grown[k]);
        if (failed) {
            result = MG_PYERROR;
            goto done;
        }
    }
    seconds[2] += now() - started;
done:
    for (int64_t k = 0; k < n_arrays; k++) {
        give_buffer(owned[k], owned_bytes[k]);
        free(grown[k].data);
    }
    free(targets.items);
    if (result == MG_PYERROR) PyErr_Clear();
    return result;
}

/* mg_enter as a built-in function of Python (METH_FASTCALL), what kernel.py calls at each
 * entry: a ctypes call of its eight arguments costs about 1 us, more than a small loop's
 * kernel.  The addresses come as ints, None (NULL) or objects with a buffer (ctypes arrays,
 * which keep their memory while the call holds them). */
static int address_of(PyObject *obj, void **address) {
    if (obj == Py_None) { *address = NULL; return 0; }
    if (PyLong_CheckExact(obj)) {
        *address = PyLong_AsVoidPtr(obj);
        return *address == NULL && PyErr_Occurred() ? -1 : 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) return -1;
    *address = view.buf;
    PyBuffer_Release(&view);
    return 0;
}

static PyObject *enter_call(PyObject *unused, PyObject *const *args, Py_ssize_t nargs) {
    void *at[6];
    (void)unused;
    if (nargs != 8 || !PyTuple_CheckExact(args[0]) || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "mg_enter(arrays, scalars, plan, kernel, ints, floats, seconds, snapshots)");
        return NULL;
    }
    for (int k = 0; k < 6; k++)
        if (address_of(args[2 + k], &at[k])) return NULL;
    int answer = mg_enter(args[0], args[1], (const int64_t *)at[0], at[1], (int64_t *)at[2], (double *)at[3],
                          (double *)at[4], (mg_snapshot *)at[5]);
    return PyErr_Occurred() ? NULL : PyLong_FromLong(answer);   /* raised, as ctypes.PyDLL would */
}

static PyMethodDef enter_definition = {"mg_enter", (PyCFunction)(void (*)(void))enter_call, METH_FASTCALL,
                                       "marshal.c's mg_enter, called as a built-in"};

/* A new reference to that function (ctypes, restype py_object, takes its own: one object
 * kept for the process's life). */
PyObject *mg_enter_function(void) {
    return PyCFunction_New(&enter_definition, NULL);
}

/* The whole of a list of this shape (the GPU path's and the benchmarks' unboxing; ``tuples``:
 * its rows may be tuples, for a list only read). */
static int whole(PyObject *list, int rank, int kind, const int64_t *shape, char *buffer, int boxing, int tuples) {
    int64_t low[MAX_RANK] = {0}, position = 0, size = 1;
    mg_box box = {shape, low, shape, rank, kind, 1, tuples && !boxing};
    for (int d = 0; d < rank; d++) size *= shape[d];
    return boxing ? box_level(list, 0, &box, buffer, &position) : unbox_list(list, &box, buffer, &position, size);
}

/* Unboxing alone (benchmarks and tests): a list of floats into a buffer of n doubles. */
int mg_unbox_floats(PyObject *list, double *out, int64_t n) {
    int64_t shape[1] = {n};
    return whole(list, 1, KIND_FLOAT, shape, (char *)out, 0, 0);
}

/* GPU path: unbox one list into a C-contiguous NumPy buffer of its shape (0, or 1 if
 * the list is not rectangular / homogeneous), and box a buffer back into the list. */
int mg_unbox_into(PyObject *list, int rank, int kind, PyObject *buffer, int tuples) {
    mg_ndarray *array = (mg_ndarray *)buffer;
    int64_t shape[MAX_RANK];
    if (rank > MAX_RANK || array->nd != rank) return MG_GUARD;
    for (int d = 0; d < rank; d++) shape[d] = array->dimensions[d];
    return whole(list, rank, kind, shape, array->data, 0, tuples) ? MG_GUARD : 0;
}

/* GPU path: a list the kernel overwrites whole is not unboxed, only checked to have the
 * buffer's shape (every row a list of its length: boxing the results back then cannot stop
 * halfway); its old elements are never read.  0, or MG_GUARD. */
static int shape_level(PyObject *obj, int depth, int rank, const int64_t *shape) {
    if (!PyList_CheckExact(obj) || PyList_GET_SIZE(obj) != shape[depth]) return 1;
    if (depth + 1 == rank) return 0;
    PyObject **items = ((PyListObject *)obj)->ob_item;
    for (Py_ssize_t i = 0; i < shape[depth]; i++)
        if (shape_level(items[i], depth + 1, rank, shape)) return 1;
    return 0;
}

int mg_list_shape(PyObject *list, int rank, const int64_t *shape) {
    if (rank > MAX_RANK) return MG_GUARD;
    return shape_level(list, 0, rank, shape) ? MG_GUARD : 0;
}

int mg_box_from(PyObject *list, int rank, int kind, PyObject *buffer) {
    mg_ndarray *array = (mg_ndarray *)buffer;
    int64_t shape[MAX_RANK];
    if (rank > MAX_RANK || array->nd != rank) return MG_GUARD;
    for (int d = 0; d < rank; d++) shape[d] = array->dimensions[d];
    if (whole(list, rank, kind, shape, array->data, 1, 0)) { PyErr_Clear(); return MG_PYERROR; }
    return 0;
}

/* GPU path: the host's ordered fold of a float reduction's operands (runtime/cuda.py):
 * the scalar's steps s = s + v, s - v, v + s, s * v or v * s (``form`` 0 to 4, the order of
 * analysis/parallel.FOLD_FORMS, operands as written: NaN operands keep CPython's choice) over
 * v[0], v[1] ... in iteration order; present[i] == 0 skips v[i] (NULL: every one is there).
 * *raised: the IEEE flags the fold raised, as analysis/floatstatus.py's bits. */
double mg_fold(const double *values, const unsigned char *present, int64_t n, double start, int form,
               int *raised) {
    double s = start;
    feclearexcept(FE_ALL_EXCEPT);
    for (int64_t i = 0; i < n; i++) {
        if (present && !present[i]) continue;
        const double v = values[i];
        switch (form) {
            case 0: s = s + v; break;
            case 1: s = s - v; break;
            case 2: s = v + s; break;
            case 3: s = s * v; break;
            default: s = v * s; break;
        }
    }
    int flags = fetestexcept(FE_ALL_EXCEPT);
    *raised = (flags & FE_OVERFLOW ? 1 : 0) | (flags & FE_INVALID ? 2 : 0) | (flags & FE_DIVBYZERO ? 4 : 0)
            | (flags & FE_UNDERFLOW ? 8 : 0);
    return s;
}
