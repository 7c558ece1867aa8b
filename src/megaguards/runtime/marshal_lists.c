/* Lists element by element, for marshal.c (which includes this file; marshal.py puts it in
 * before compiling): unbox a nested list into a buffer of its element kind, box changed
 * elements back, read its shape.
 *
 * Element kinds: bool (one byte), int (int64), float (double), and int-or-float (prelude's
 * mg_num: the value as a double, then its class, 0.0 an int, 1.0 a float; an int only while
 * |v| < 2**53, where a double holds it exactly). */

static int element_size(int kind) { return kind == KIND_BOOL ? 1 : kind == KIND_INT_OR_FLOAT ? 16 : 8; }

/* unbox_level's answer where a list of ints holds a float, or a list of floats an int: the
 * site then types that list int-or-float (guards/signature.Binder.mixed). */
#define MIXED_CLASSES 2

/* The part of a nested list that is unboxed or boxed back: ``count[d]`` elements of each
 * dimension from ``low[d]`` (the whole list: 0 and its shape), of which the last dimension's
 * every ``gap``-th only (the others keep whatever the buffer holds: the kernel never reads
 * them); each list visited has exactly ``shape[d]`` elements.  ``tuples``: its rows may be
 * tuples (a list the kernel only reads: ``for x, y in pairs``); the list itself is a list. */
typedef struct { const int64_t *shape, *low, *count; int rank, kind; int64_t gap; int tuples; } mg_box;

/* The elements of one level of a nested list: a list's, or at depth > 0 a tuple's where the
 * box allows tuples; NULL for anything else or another length than the box's. */
static PyObject **level_items(PyObject *obj, int depth, const mg_box *box) {
    if (PyList_CheckExact(obj))
        return PyList_GET_SIZE(obj) == box->shape[depth] ? ((PyListObject *)obj)->ob_item : NULL;
    if (depth > 0 && box->tuples && PyTuple_CheckExact(obj))
        return PyTuple_GET_SIZE(obj) == box->shape[depth] ? ((PyTupleObject *)obj)->ob_item : NULL;
    return NULL;
}

/* An exact int's value where it fits in a long long (0 where it does not).  A compact int
 * (one digit: the usual case) is read in place: calling PyLong_AsLongLongAndOverflow for
 * each of 10**7 elements was a third of unboxing them. */
static inline int int_value(PyObject *item, long long *value) {
#if PY_VERSION_HEX >= 0x030C0000
    if (PyUnstable_Long_IsCompact((PyLongObject *)item)) {
        *value = (long long)PyUnstable_Long_CompactValue((PyLongObject *)item);
        return 1;
    }
#else
    Py_ssize_t size = Py_SIZE(item);
    if (size >= -1 && size <= 1) {   /* (a zero's digit may be anything: times 0) */
        *value = (long long)size * (long long)((PyLongObject *)item)->ob_digit[0];
        return 1;
    }
#endif
    int overflow = 0;
    *value = PyLong_AsLongLongAndOverflow(item, &overflow);
    return !overflow;
}

/* An exact int below 2**53 in magnitude as a double; 0 if the object is not one. */
static int exact_int(PyObject *item, double *out) {
    long long value;
    int overflow = !int_value(item, &value);
    if (overflow || value >= (1LL << 53) || value <= -(1LL << 53)) return 0;
    *out = (double)value;
    return 1;
}

/* Elements ``0, gap, 2 gap ...`` below ``n`` of ``items`` into the buffer from element ``p``
 * on (each at its own index: the others keep what the buffer holds).  Reads the objects
 * only: no reference counts, no allocation, no error set, so that threads without the GIL
 * may run it on the parts of one list (``unbox_list``). */
static int unbox_items(PyObject **items, Py_ssize_t n, int64_t gap, int kind, char *out, int64_t p) {
    if (kind == KIND_FLOAT) {
        double *dst = (double *)out + p;
        for (Py_ssize_t i = 0; i < n; i += gap) {
            if (Py_TYPE(items[i]) != &PyFloat_Type) return Py_TYPE(items[i]) == &PyLong_Type ? MIXED_CLASSES : 1;
            dst[i] = PyFloat_AS_DOUBLE(items[i]);
        }
    } else if (kind == KIND_INT) {
        int64_t *dst = (int64_t *)out + p;
        for (Py_ssize_t i = 0; i < n; i += gap) {
            long long value;
            if (Py_TYPE(items[i]) != &PyLong_Type) return Py_TYPE(items[i]) == &PyFloat_Type ? MIXED_CLASSES : 1;
            if (!int_value(items[i], &value)) return 1;
            dst[i] = value;
        }
    } else if (kind == KIND_INT_OR_FLOAT) {
        double *dst = (double *)out + 2 * p;
        for (Py_ssize_t i = 0; i < n; i += gap) {
            PyObject *item = items[i];
            if (Py_TYPE(item) == &PyFloat_Type) {
                dst[2 * i] = PyFloat_AS_DOUBLE(item);
                dst[2 * i + 1] = 1.0;
            } else if (Py_TYPE(item) == &PyLong_Type && exact_int(item, &dst[2 * i])) {
                dst[2 * i + 1] = 0.0;
            } else {
                return 1;
            }
        }
    } else {
        uint8_t *dst = (uint8_t *)out + p;
        for (Py_ssize_t i = 0; i < n; i += gap) {
            if (items[i] == Py_True) dst[i] = 1;
            else if (items[i] == Py_False) dst[i] = 0;
            else return 1;
        }
    }
    return 0;
}

/* The item formats of array.array and memoryview (guards/signature.py's buffer_storage lets
 * only these through): a kind and the bytes of one item. */
enum { ITEM_F = 16, ITEM_I = 32, ITEM_U = 48 };

static int item_format(const Py_buffer *view, int kind) {
    const char *format = view->format == NULL ? "B" : view->format;
    Py_ssize_t size = view->itemsize;
    if (format[0] == '@') format++;
    if (view->ndim != 1 || format[0] == '\0' || format[1] != '\0') return 0;
    if (kind == KIND_FLOAT)
        return (format[0] == 'f' && size == 4) || (format[0] == 'd' && size == 8) ? ITEM_F + (int)size : 0;
    if (kind != KIND_INT || strchr("bBhHiIlLqQ", format[0]) == NULL || (size != 1 && size != 2 && size != 4 && size != 8))
        return 0;
    return (format[0] >= 'a' ? ITEM_I : ITEM_U) + (int)size;
}

/* A buffer's items of this kind, their format (item_format) in ``format``, or NULL (its
 * buffer released at once: the caller holds the GIL, so that nothing can resize it before
 * the copy that follows).  ``count``: its length, -1 if not a buffer. */
static char *buffer_items(PyObject *obj, int kind, int writable, Py_ssize_t *count, int *format) {
    Py_buffer view;
    *count = -1;
    if (PyList_CheckExact(obj) || !PyObject_CheckBuffer(obj)) return NULL;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_ND | (writable ? PyBUF_WRITABLE : 0)) != 0) {
        PyErr_Clear();
        return NULL;
    }
    *format = item_format(&view, kind);
    char *items = *format ? (char *)view.buf : NULL;
    *count = view.len / (view.itemsize ? view.itemsize : 1);
    PyBuffer_Release(&view);
    return items;
}

/* ``n`` items of a buffer of narrower items (or unsigned 8-byte ones) converted into the
 * kernel's doubles or int64s, or with ``boxing`` back: floats where the kernel's value
 * differs from the item's (a float32 NaN the loop never wrote keeps its bits), ints all
 * (the kernel checked each store's range).  1 where an unsigned item exceeds int64. */
static int convert_items(char *theirs, int format, int64_t n, char *mine, int boxing) {
    double *doubles = (double *)mine;
    int64_t *ints = (int64_t *)mine;
    switch (format) {
    case ITEM_F + 4: {
        float *items = (float *)theirs;
        for (int64_t i = 0; i < n; i++) {
            if (!boxing) {
                doubles[i] = items[i];
            } else {
                double was = items[i];
                if (memcmp(&was, doubles + i, sizeof was) != 0) items[i] = (float)doubles[i];
            }
        }
        return 0;
    }
#define MG_INT_ITEMS(CODE, T)                                                               \
    case CODE: {                                                                            \
        T *items = (T *)theirs;                                                             \
        for (int64_t i = 0; i < n; i++) {                                                   \
            if (boxing) items[i] = (T)ints[i]; else ints[i] = (int64_t)items[i];            \
        }                                                                                   \
        return 0;                                                                           \
    }
    MG_INT_ITEMS(ITEM_I + 1, int8_t) MG_INT_ITEMS(ITEM_I + 2, int16_t) MG_INT_ITEMS(ITEM_I + 4, int32_t)
    MG_INT_ITEMS(ITEM_U + 1, uint8_t) MG_INT_ITEMS(ITEM_U + 2, uint16_t) MG_INT_ITEMS(ITEM_U + 4, uint32_t)
#undef MG_INT_ITEMS
    case ITEM_U + 8: {
        uint64_t *items = (uint64_t *)theirs;
        for (int64_t i = 0; i < n; i++) {
            if (boxing) items[i] = (uint64_t)ints[i];
            else if (items[i] > (uint64_t)INT64_MAX) return 1;
            else ints[i] = (int64_t)items[i];
        }
        return 0;
    }
    }
    return 1;
}

/* The box of a str's code points, or of the bytes of bytes or a bytearray, into the int64
 * buffer (guards/signature.py's READ_ONLY: never boxed back); 1 if ``obj`` is none of them,
 * or not of the box's kind and length. */
static int copy_text(PyObject *obj, const mg_box *box, char *buffer, int64_t *position, int boxing) {
    int64_t *out = (int64_t *)buffer + *position;
    Py_ssize_t low = box->low[0], n = box->count[0];
    if (boxing || box->kind != KIND_INT || box->rank != 1) return 1;
    if (PyUnicode_CheckExact(obj)) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(obj) < 0) { PyErr_Clear(); return 1; }
#endif
        if (PyUnicode_GET_LENGTH(obj) != box->shape[0]) return 1;
        int kind = PyUnicode_KIND(obj);
        const void *data = PyUnicode_DATA(obj);
        for (Py_ssize_t i = 0; i < n; i++) out[i] = (int64_t)PyUnicode_READ(kind, data, low + i);
    } else {
        int bytes = PyBytes_CheckExact(obj);
        Py_ssize_t length = bytes ? PyBytes_GET_SIZE(obj) : PyByteArray_GET_SIZE(obj);
        const unsigned char *data = (const unsigned char *)(bytes ? PyBytes_AS_STRING(obj) : PyByteArray_AS_STRING(obj));
        if (length != box->shape[0]) return 1;
        for (Py_ssize_t i = 0; i < n; i++) out[i] = data[low + i];
    }
    *position += n;
    return 0;
}

static int is_text(PyObject *obj) {
    return PyUnicode_CheckExact(obj) || PyBytes_CheckExact(obj) || PyByteArray_CheckExact(obj);
}

/* The box of an array.array copied into the buffer, or back (``boxing``): a memcpy each way,
 * which cannot stop halfway; 1 if it is not one of the box's kind and length.  A str, bytes
 * or bytearray: copy_text. */
static int copy_buffer(PyObject *obj, const mg_box *box, char *buffer, int64_t *position, int boxing) {
    if (is_text(obj)) return copy_text(obj, box, buffer, position, boxing);
    Py_ssize_t count = 0;
    int format = 0;
    char *items = box->rank == 1 ? buffer_items(obj, box->kind, boxing, &count, &format) : NULL;
    if (items == NULL || count != box->shape[0]) return 1;
    int64_t n = box->count[0];
    int size = format % 16;
    char *mine = buffer + (size_t)*position * 8, *theirs = items + (size_t)box->low[0] * size;
    if (format == ITEM_F + 8 || format == ITEM_I + 8)   /* doubles, int64s: as the kernel holds them */
        memcpy(boxing ? theirs : mine, boxing ? mine : theirs, (size_t)n * 8);
    else if (convert_items(theirs, format, n, mine, boxing))
        return 1;
    *position += n;
    return 0;
}

static int unbox_level(PyObject *obj, int depth, const mg_box *box, char *out, int64_t *position) {
    PyObject **items = level_items(obj, depth, box);
    if (items == NULL) return 1;
    Py_ssize_t n = box->count[depth];
    items += box->low[depth];
    if (depth + 1 < box->rank) {
        for (Py_ssize_t i = 0; i < n; i++) {
            int failed = unbox_level(items[i], depth + 1, box, out, position);
            if (failed) return failed;
        }
        return 0;
    }
    int failed = unbox_items(items, n, box->gap, box->kind, out, *position);
    if (!failed) *position += n;
    return failed;
}

/* A list of at least this many elements to visit is unboxed by a team of threads (rows, or
 * contiguous parts of one row): the objects are immutable and the caller holds the GIL, so
 * that no Python code can change the list meanwhile.  Below it, waking the team costs more
 * than it saves.  ``unbox_team``: MEGAGUARDS_THREADS or the cores this process may use
 * (marshal.py); one thread in a child made by fork (compiler.py). */
#define TEAM_ELEMENTS (1 << 17)
static int unbox_team = 1;

void mg_set_unbox_team(int threads) { unbox_team = threads > 1 ? threads : 1; }

/* unbox_level of a whole box, the same answer: the failure of the first element (in the
 * list's order) that fails, the others read but unused. */
static int unbox_list(PyObject *obj, const mg_box *box, char *out, int64_t *position, int64_t visited) {
    if (!PyList_CheckExact(obj)) return copy_buffer(obj, box, out, position, 0);
#ifdef _OPENMP
    int team = unbox_team;
    if (team < 2 || visited < TEAM_ELEMENTS || PyList_GET_SIZE(obj) != box->shape[0])
        return unbox_level(obj, 0, box, out, position);
    Py_ssize_t n = box->count[0];
    PyObject **items = ((PyListObject *)obj)->ob_item + box->low[0];
    int64_t base = *position, per_row = 1, first = INT64_MAX;
    int failure = 0;
    for (int d = 1; d < box->rank; d++) per_row *= box->count[d];
    if (box->rank > 1) {   /* a row each: row i's elements start at base + i * per_row */
#pragma omp parallel for num_threads(team) schedule(static)
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t at = base + i * per_row;
            int failed = unbox_level(items[i], 1, box, out, &at);
            if (failed) {
#pragma omp critical(mg_unbox_failure)
                if (i < first) { first = i; failure = failed; }
            }
        }
    } else {   /* contiguous parts, each starting on an element the gap visits */
        int64_t gap = box->gap, part = (n + team - 1) / team;
        part = (part + gap - 1) / gap * gap;
#pragma omp parallel for num_threads(team) schedule(static)
        for (int t = 0; t < team; t++) {
            int64_t low = (int64_t)t * part, high = low + part < n ? low + part : n;
            int failed = low < high ? unbox_items(items + low, high - low, gap, box->kind, out, base + low) : 0;
            if (failed) {
#pragma omp critical(mg_unbox_failure)
                if (low < first) { first = low; failure = failed; }
            }
        }
    }
    if (failure) return failure;
    *position = base + n * per_row;
    return 0;
#else
    (void)visited;
    return unbox_level(obj, 0, box, out, position);
#endif
}

/* Can the float ``old`` stay where the kernel wrote ``value``?  It can when it holds that
 * value, or when only this list refers to it: nobody else can observe it, so it takes the new
 * value in place instead of a new object being allocated (a list written again and again,
 * each time step, then costs no allocation). */
static int float_stays(PyObject *old, double value) {
    if (!PyFloat_CheckExact(old)) return 0;
    double previous = PyFloat_AS_DOUBLE(old);
    if (memcmp(&value, &previous, sizeof value) == 0) return 1;
#ifndef Py_GIL_DISABLED
    if (Py_REFCNT(old) == 1) {
        ((PyFloatObject *)old)->ob_fval = value;
        return 1;
    }
#endif
    return 0;
}

static int int_stays(PyObject *old, int64_t value) {
    long long was;
    return PyLong_CheckExact(old) && int_value(old, &was) && was == value;
}

/* The int last allocated in a row, given again to the elements that follow with its value:
 * a row of escape counts holds the limit (500) thousands of times between small counts, each
 * a new object that CPython's loop would allocate too; one object serves them (ints are
 * immutable: only ``is`` can tell, as it tells CPython's own cached ints and constants
 * apart).  A small int (-5 to 256) is CPython's one object anyway and leaves the last one
 * in place.  A reference is held: an old element's release may run code. */
typedef struct { PyObject *object; int64_t value; } shared_int;

static PyObject *box_int(shared_int *last, int64_t value) {
    if (last->object != NULL && last->value == value) {
        Py_INCREF(last->object);
        return last->object;
    }
    PyObject *fresh = PyLong_FromLongLong(value);
    if (fresh == NULL || (value >= -5 && value <= 256)) return fresh;
    Py_XDECREF(last->object);
    Py_INCREF(fresh);
    last->object = fresh;
    last->value = value;
    return fresh;
}

static int box_level(PyObject *obj, int depth, const mg_box *box, const char *buffer, int64_t *position) {
    if (depth == 0 && !PyList_CheckExact(obj)) return copy_buffer(obj, box, (char *)buffer, position, 1) ? -1 : 0;
    if (!PyList_CheckExact(obj) || PyList_GET_SIZE(obj) != box->shape[depth]) return -1;
    Py_ssize_t n = box->count[depth];
    PyObject **items = ((PyListObject *)obj)->ob_item + box->low[depth];
    if (depth + 1 < box->rank) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (box_level(items[i], depth + 1, box, buffer, position)) return -1;
        return 0;
    }
    int64_t p = *position, gap = box->gap;
    int kind = box->kind;
    shared_int last = {NULL, 0};
    for (Py_ssize_t i = 0; i < n; i += gap) {
        PyObject *old = items[i], *fresh;
        if (kind == KIND_FLOAT) {
            double value = ((const double *)buffer)[p + i];
            if (float_stays(old, value)) continue;
            fresh = PyFloat_FromDouble(value);
        } else if (kind == KIND_INT) {
            int64_t value = ((const int64_t *)buffer)[p + i];
            if (int_stays(old, value)) continue;
            fresh = box_int(&last, value);
        } else if (kind == KIND_INT_OR_FLOAT) {   /* each element keeps the class the kernel gave it */
            const double *pair = (const double *)buffer + 2 * (p + i);
            if (pair[1] != 0.0) {
                if (float_stays(old, pair[0])) continue;
                fresh = PyFloat_FromDouble(pair[0]);
            } else {
                if (int_stays(old, (int64_t)pair[0])) continue;
                fresh = box_int(&last, (int64_t)pair[0]);
            }
        } else {
            fresh = ((const uint8_t *)buffer)[p + i] ? Py_True : Py_False;
            if (fresh == old) continue;
            Py_INCREF(fresh);
        }
        if (fresh == NULL) { Py_XDECREF(last.object); return -1; }
        items[i] = fresh;
        Py_DECREF(old);
    }
    Py_XDECREF(last.object);
    *position = p + n;
    return 0;
}

/* Shape of a nested list along its first elements (rows may be tuples: the unboxing says
 * which it accepts); 0 on success, 1 if not a list of that rank. */
static int list_shape(PyObject *obj, int rank, int64_t *shape) {
    Py_ssize_t count = 0;
    if (rank == 1 && PyUnicode_CheckExact(obj)) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(obj) < 0) { PyErr_Clear(); return 1; }
#endif
        shape[0] = PyUnicode_GET_LENGTH(obj);
        return 0;
    }
    if (rank == 1 && !PyList_CheckExact(obj) && PyObject_CheckBuffer(obj)) {   /* an array.array, bytes: its */
        int format;
        buffer_items(obj, KIND_FLOAT, 0, &count, &format);   /* length (the unboxing checks its kind) */
        shape[0] = count;
        return count < 0;
    }
    for (int d = 0; d < rank; d++) {
        int tuple = d > 0 && PyTuple_CheckExact(obj);
        if (!PyList_CheckExact(obj) && !tuple) return 1;
        shape[d] = tuple ? PyTuple_GET_SIZE(obj) : PyList_GET_SIZE(obj);
        if (shape[d] == 0) { for (int e = d + 1; e < rank; e++) shape[e] = 0; return 0; }
        obj = tuple ? PyTuple_GET_ITEM(obj, 0) : PyList_GET_ITEM(obj, 0);
    }
    return 0;
}


/* Does each object appear once in ``rows`` (a list of lists of objects, guards/fields.py)?
 * 1 yes, 0 no (or out of memory: the guard then fails, CPython runs the loop).  An open
 * addressing table of the pointers: a few ns an object, where a Python set of ids costs 150. */
int mg_distinct(PyObject *rows) {
    Py_ssize_t total = 0, count = PyList_GET_SIZE(rows);
    for (Py_ssize_t r = 0; r < count; r++) total += PyList_GET_SIZE(PyList_GET_ITEM(rows, r));
    int bits = 4;
    while (((size_t)1 << bits) < 2 * (size_t)total) bits++;
    size_t mask = ((size_t)1 << bits) - 1;
    PyObject **table = calloc(mask + 1, sizeof *table);
    if (table == NULL) return 0;
    int answer = 1;
    for (Py_ssize_t r = 0; r < count && answer; r++) {
        PyObject *row = PyList_GET_ITEM(rows, r);
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(row); i++) {
            PyObject *item = PyList_GET_ITEM(row, i);
            size_t slot = (size_t)(((uint64_t)(uintptr_t)item * 0x9E3779B97F4A7C15ull) >> (64 - bits));
            while (table[slot] != NULL && table[slot] != item) slot = (slot + 1) & mask;
            if (table[slot] == item) { answer = 0; break; }
            table[slot] = item;
        }
    }
    free(table);
    return answer;
}
