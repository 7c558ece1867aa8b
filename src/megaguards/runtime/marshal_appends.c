/* Lists a run appends to (a part of marshal.c, included there after marshal_lists.c, whose
 * boxing it uses): the growing buffers the kernel fills, the lists they fill (targets, checked
 * to be no array the kernel reads, nor filled twice), and the values joined to them after a
 * clean run. */

/* A list the loop appends to (prelude's mg_growing, filled by the kernel): its values join the
 * list after a clean run, each boxed with its kind's class (int-or-float: its own class). */
typedef struct { char *data; int64_t length, capacity; } mg_growing;

/* The lists a run appends to: each list appended to, and each row of a table that
 * ``table[k].append(v)`` appends to, with the buffer that fills it (its owner: a table's rows
 * may repeat within it, in order, but no list may be filled by two buffers). */
typedef struct { PyObject *list; int64_t owner; } mg_target;
typedef struct { mg_target *items; int64_t count, capacity; int sorted; } mg_targets;

static int add_target(mg_targets *targets, PyObject *list, int64_t owner) {
    if (targets->count == targets->capacity) {
        int64_t capacity = targets->capacity ? 2 * targets->capacity : 16;
        mg_target *items = (mg_target *)realloc(targets->items, (size_t)capacity * sizeof(mg_target));
        if (items == NULL) return -1;
        targets->items = items;
        targets->capacity = capacity;
    }
    targets->items[targets->count].list = list;
    targets->items[targets->count++].owner = owner;
    return 0;
}

static int target_order(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const mg_target *)a)->list, y = (uintptr_t)((const mg_target *)b)->list;
    return x < y ? -1 : x > y;
}

/* Sort the targets (a binary search then finds one); 1 if two buffers fill one list. */
static int seal_targets(mg_targets *targets) {
    qsort(targets->items, (size_t)targets->count, sizeof(mg_target), target_order);
    targets->sorted = 1;
    for (int64_t i = 1; i < targets->count; i++)
        if (targets->items[i].list == targets->items[i - 1].list && targets->items[i].owner != targets->items[i - 1].owner)
            return 1;
    return 0;
}

/* The buffer that fills ``obj`` (its owner), or -1 where it is no target. */
static int64_t target_owner(const mg_targets *targets, PyObject *obj) {
    mg_target key = {obj, 0};
    const mg_target *found = targets->count ? bsearch(&key, targets->items, (size_t)targets->count,
                                                      sizeof(mg_target), target_order) : NULL;
    return found != NULL ? found->owner : -1;
}

static int is_target(const mg_targets *targets, PyObject *obj) {
    return target_owner(targets, obj) >= 0;
}

/* Is one of ``targets`` a row of ``list`` (``levels`` deep)?  CPython would see that row grow
 * while the loop reads its len() or its elements. */
static int holds_any(PyObject *list, int levels, const mg_targets *targets) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *row = PyList_GET_ITEM(list, i);
        if (is_target(targets, row)) return 1;
        if (levels > 1 && PyList_CheckExact(row) && holds_any(row, levels - 1, targets)) return 1;
    }
    return 0;
}

/* A table of ``table[k].append(v)``: a list of lists, or a dict of lists whose keys are the ints
 * 0 .. m-1 (CPython's lookups then find exactly the keys the kernel lets through).  Its rows
 * join the targets under ``owner``; 1 where the table is not such. */
static int table_rows(PyObject *table, mg_targets *targets, int64_t owner) {
    if (PyList_CheckExact(table)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(table); i++) {
            PyObject *row = PyList_GET_ITEM(table, i);
            if (!PyList_CheckExact(row) || row == table) return 1;
            if (add_target(targets, row, owner)) return -1;
        }
        return 0;
    }
    if (!PyDict_CheckExact(table)) return 1;
    Py_ssize_t position = 0, count = PyDict_GET_SIZE(table);
    PyObject *key, *row;
    while (PyDict_Next(table, &position, &key, &row)) {
        if (!PyLong_CheckExact(key) || !PyList_CheckExact(row)) return 1;
        int overflow = 0;
        long long k = PyLong_AsLongLongAndOverflow(key, &overflow);
        if (overflow || k < 0 || k >= count) return 1;   /* count distinct ints in 0 .. m-1: all of them */
        if (add_target(targets, row, owner)) return -1;
    }
    return 0;
}

/* The i-th value collected, boxed with its kind's class (a new reference; NULL: memory). */
static PyObject *collected_item(const mg_growing *grown, int64_t i, int kind) {
    if (kind == KIND_FLOAT) return PyFloat_FromDouble(((const double *)grown->data)[i]);
    if (kind == KIND_INT) return PyLong_FromLongLong(((const int64_t *)grown->data)[i]);
    if (kind == KIND_INT_OR_FLOAT) {
        const double *pair = (const double *)grown->data + 2 * i;
        return pair[1] != 0.0 ? PyFloat_FromDouble(pair[0]) : PyLong_FromLongLong((int64_t)pair[0]);
    }
    PyObject *item = ((const uint8_t *)grown->data)[i] ? Py_True : Py_False;
    Py_INCREF(item);
    return item;
}

/* The element of ``source`` at ``count`` indices (a row: fewer than its rank), through lists
 * and tuples: a borrowed reference, NULL where an index is out of range. */
static PyObject *element_at(PyObject *source, const int64_t *at, int count) {
    PyObject *item = source;
    for (int d = 0; d < count; d++) {
        int list = PyList_CheckExact(item);
        Py_ssize_t size = list ? PyList_GET_SIZE(item) : PyTuple_CheckExact(item) ? PyTuple_GET_SIZE(item) : -1;
        if (at[d] < 0 || at[d] >= size) return NULL;
        item = list ? PyList_GET_ITEM(item, at[d]) : PyTuple_GET_ITEM(item, at[d]);
    }
    return item;
}

/* Do all the indices a buffer of elements holds (TypedLoop.references) name elements of
 * ``source``?  (Checked before anything is boxed back: a run whose buffers could not all be
 * appended changes nothing.) */
static int references_hold(PyObject *source, const mg_growing *grown, int count) {
    for (int64_t i = 0; i < grown->length; i++)
        if (element_at(source, (const int64_t *)grown->data + i * count, count) == NULL) return 0;
    return 1;
}

/* The i-th value of a buffer whose values are elements of ``source``: the object itself, as
 * CPython appended it (a new reference; references_hold has checked the indices). */
static PyObject *referenced_item(PyObject *source, const mg_growing *grown, int64_t i, int count) {
    PyObject *item = element_at(source, (const int64_t *)grown->data + i * count, count);
    if (item == NULL) {
        PyErr_SetString(PyExc_SystemError, "megaguards: an appended element is gone");
        return NULL;
    }
    Py_INCREF(item);
    return item;
}

/* The i-th value of the growing buffer of plan entry ``entry`` (a new reference; NULL: memory). */
static PyObject *appended_value(PyObject *arrays, const int64_t *entry, const mg_growing *grown, int64_t i) {
    return entry[5] >= 0 ? referenced_item(PyTuple_GET_ITEM(arrays, entry[5]), grown, i, (int)entry[3])
                         : collected_item(grown, i, (int)entry[2]);
}

static int append_collected(PyObject *list, PyObject *arrays, const int64_t *entry, const mg_growing *grown) {
    for (int64_t i = 0; i < grown->length; i++) {
        PyObject *item = appended_value(arrays, entry, grown, i);
        if (item == NULL) return -1;
        int failed = PyList_Append(list, item);
        Py_DECREF(item);
        if (failed) return -1;
    }
    return 0;
}

/* Rows the loop built (ir.AppendRow): ``ends`` holds where each row ends among ``values``
 * (NULL: every row is empty); each becomes a new list of its values, appended to ``list``. */
static int append_rows(PyObject *list, const mg_growing *ends, const mg_growing *values, int kind) {
    int64_t start = 0;
    for (int64_t r = 0; r < ends->length; r++) {
        int64_t end = ((const int64_t *)ends->data)[r];
        PyObject *row = PyList_New((Py_ssize_t)(end - start));
        if (row == NULL) return -1;
        for (int64_t i = start; i < end; i++) {
            PyObject *item = collected_item(values, i, kind);
            if (item == NULL) { Py_DECREF(row); return -1; }
            PyList_SET_ITEM(row, (Py_ssize_t)(i - start), item);
        }
        int failed = PyList_Append(list, row);
        Py_DECREF(row);
        if (failed) return -1;
        start = end;
    }
    return 0;
}

/* Values ``table[k].append(v)`` collected (ir.AppendAt): ``keys`` holds each one's key (checked
 * by the kernel, a list's wrapped), ``values`` the values (plan entry ``entry``: numbers, or
 * elements or rows of an array); each joins its row, in order. */
static int append_keyed(PyObject *table, const mg_growing *keys, PyObject *arrays, const int64_t *entry,
                        const mg_growing *values) {
    for (int64_t i = 0; i < keys->length; i++) {
        int64_t key = ((const int64_t *)keys->data)[i];
        PyObject *row, *item;
        if (PyDict_CheckExact(table)) {
            PyObject *boxed = PyLong_FromLongLong(key);
            if (boxed == NULL) return -1;
            row = PyDict_GetItemWithError(table, boxed);
            Py_DECREF(boxed);
        } else {
            row = key >= 0 && key < PyList_GET_SIZE(table) ? PyList_GET_ITEM(table, key) : NULL;
        }
        if (row == NULL || !PyList_CheckExact(row)) {   /* checked before the kernel ran */
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "megaguards: a keyed row is gone");
            return -1;
        }
        item = appended_value(arrays, entry, values, i);
        if (item == NULL) return -1;
        int failed = PyList_Append(row, item);
        Py_DECREF(item);
        if (failed) return -1;
    }
    return 0;
}

/* A table whose rows the loop swapped (ir.RowSwap): row r becomes the row object that was at
 * ``map[r]``, each object itself unchanged (its elements were boxed back in place), as
 * CPython's swaps leave them.  -1 where the map does not fit the table (nothing changed). */
static int order_rows(PyObject *table, const mg_growing *map) {
    Py_ssize_t rows = PyList_GET_SIZE(table);
    const int64_t *order = (const int64_t *)map->data;
    if (!PyList_CheckExact(table) || map->length != rows) return -1;
    for (Py_ssize_t r = 0; r < rows; r++)
        if (order[r] < 0 || order[r] >= rows) return -1;
    PyObject **held = (PyObject **)malloc((size_t)(rows ? rows : 1) * sizeof(PyObject *));
    if (held == NULL) return -1;
    PyObject **items = ((PyListObject *)table)->ob_item;
    memcpy(held, items, (size_t)rows * sizeof(PyObject *));
    for (Py_ssize_t r = 0; r < rows; r++) items[r] = held[order[r]];
    free(held);
    return 0;
}
