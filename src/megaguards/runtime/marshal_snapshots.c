/* Snapshots of read-only lists (a part of marshal.c, included there after marshal_lists.c,
 * whose boxes and level_items it uses): an unboxing reused while the list holds the same
 * element objects. */

/* A read-only list's box as last unboxed, for the entries that find the same element
 * objects there (a matrix read again at each entry of a time loop): the objects (references
 * kept, so that no other object can take their addresses: ints and floats are immutable, the
 * same objects are the same values) and the buffer unboxed from them, reused without reading
 * an object.  Made at the second entry with the same box; given up after two misses in a row,
 * and made again after 1, 2, 4 ... (at most MAX_SNAPSHOT_WAIT) more entries: a time loop whose
 * list changes at each step misses once a step, but CPython's runs of the site in between
 * (keep-the-faster's probes) can make two misses of two steps. */
#define MAX_SNAPSHOT_WAIT 1024
typedef struct {
    PyObject **items;          /* the box's elements in buffer order, references held (NULL: none) */
    char *buffer;              /* the buffer unboxed from them, owned */
    int64_t size;              /* elements in items */
    int64_t kind, gap, entries, misses;
    int64_t wait, waited;      /* entries left before a snapshot is made again; the last wait */
    int64_t low[MAX_RANK], count[MAX_RANK];
} mg_snapshot;

static int same_box(const mg_snapshot *s, const mg_box *box) {
    if (s->kind != box->kind || s->gap != box->gap) return 0;
    for (int d = 0; d < box->rank; d++)
        if (s->low[d] != box->low[d] || s->count[d] != box->count[d]) return 0;
    return 1;
}

/* Does the list hold the snapshot's objects in its box (0 also for another shape: the
 * unboxing then says why)?  ``keep`` instead: record them, references taken. */
static int match_items(PyObject *obj, int depth, const mg_box *box, PyObject **items, int64_t *position, int keep) {
    PyObject **own = level_items(obj, depth, box);
    if (own == NULL) return 0;
    Py_ssize_t n = box->count[depth];
    own += box->low[depth];
    if (depth + 1 < box->rank) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (!match_items(own[i], depth + 1, box, items, position, keep)) return 0;
        return 1;
    }
    int64_t p = *position;
    for (Py_ssize_t i = 0; i < n; i += box->gap, p++) {
        if (keep) { Py_INCREF(own[i]); items[p] = own[i]; }
        else if (items[p] != own[i]) return 0;
    }
    *position = p;
    return 1;
}

static void forget(mg_snapshot *s) {
    for (int64_t i = 0; s->items != NULL && i < s->size; i++) Py_DECREF(s->items[i]);
    free(s->items);
    free(s->buffer);
    s->items = NULL;
    s->buffer = NULL;
    s->size = 0;
}

/* The snapshot's buffer if the list's box holds its objects, else NULL (counted as a miss). */
static char *reuse(mg_snapshot *s, PyObject *obj, const mg_box *box) {
    int64_t position = 0;
    if (s->items == NULL) return NULL;
    if (same_box(s, box) && match_items(obj, 0, box, s->items, &position, 0)) {
        s->misses = s->waited = 0;
        return s->buffer;
    }
    if (++s->misses == 2) {
        s->waited = s->waited ? (s->waited < MAX_SNAPSHOT_WAIT ? 2 * s->waited : MAX_SNAPSHOT_WAIT) : 1;
        s->wait = s->waited;
    }
    forget(s);
    return NULL;
}

/* ``s`` describes ``box`` (the shape a later entry's box is compared with). */
static void take_shape(mg_snapshot *s, const mg_box *box) {
    s->kind = box->kind;
    s->gap = box->gap;
    for (int d = 0; d < box->rank; d++) { s->low[d] = box->low[d]; s->count[d] = box->count[d]; }
}

/* ``s`` holds the objects of the list's box (``size`` of them, references taken): 1; 0 with
 * nothing held when memory is short or the list is not of the box's shape. */
static int hold_items(mg_snapshot *s, PyObject *obj, const mg_box *box, int64_t size) {
    int64_t position = 0;
    if (size == 0 || (s->items = malloc((size_t)size * sizeof(PyObject *))) == NULL) return 0;
    int matched = match_items(obj, 0, box, s->items, &position, 1);
    s->size = position;   /* the references taken, all released below if the shape is not the box's */
    if (!matched) forget(s);
    return matched;
}

/* After an unboxing into ``buffer`` (``size`` elements visited): keep it as the snapshot if
 * the entry before had the same box; 1 if the snapshot took the buffer. */
static int remember(mg_snapshot *s, PyObject *obj, const mg_box *box, char *buffer, int64_t size) {
    int repeated = s->entries > 0 && same_box(s, box);
    s->entries++;
    take_shape(s, box);
    if (!repeated || size < 64) return 0;
    if (s->misses >= 2) {   /* given up: made again once the wait is over */
        if (s->wait-- > 0) return 0;
        s->misses = 0;
    }
    if (!hold_items(s, obj, box, size)) return 0;   /* (the unboxing just checked the shape) */
    s->buffer = buffer;
    return 1;
}

/* GPU path (runtime/data.py's DeviceCopies): does a read-only list, whole, of this shape
 * and kind still hold the objects of the snapshot ``s`` (its device copy is then still the
 * list's values: 1)?  Otherwise 0, and with ``record`` ``s`` records the list's objects now
 * (references held) for the next entry, else holds nothing; the caller drops the device copy
 * it kept. */
int64_t mg_still_holds(PyObject *list, int rank, int kind, const int64_t *shape, mg_snapshot *s, int tuples,
                       int record) {
    int64_t low[MAX_RANK] = {0}, position = 0, size = 1;
    if (rank > MAX_RANK) return 0;
    mg_box box = {shape, low, shape, rank, kind, 1, tuples};
    for (int d = 0; d < rank; d++) size *= shape[d];
    if (s->items != NULL && s->size == size && same_box(s, &box) && match_items(list, 0, &box, s->items, &position, 0))
        return 1;
    forget(s);
    if (record) {
        take_shape(s, &box);
        hold_items(s, list, &box, size);
    }
    return 0;
}

/* The snapshots of a kernel's arrays: made zeroed by the caller, released here. */
void mg_release(mg_snapshot *snapshots, int64_t n) {
    for (int64_t k = 0; k < n; k++) forget(&snapshots[k]);
}

int64_t mg_snapshot_bytes(void) { return (int64_t)sizeof(mg_snapshot); }
