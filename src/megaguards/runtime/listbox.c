/* Unboxing nested Python lists into contiguous buffers, and boxing results back.
 * One pass checks shape (rectangular), element class (exactly bool / int / float,
 * ints within int64) and copies.  Compiled like the kernels, loaded with PyDLL. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { KIND_BOOL = 1, KIND_INT = 2, KIND_FLOAT = 3 };

static int kind_of(PyObject *item) {
    if (PyBool_Check(item)) return KIND_BOOL;
    if (PyLong_CheckExact(item)) return KIND_INT;
    if (PyFloat_CheckExact(item)) return KIND_FLOAT;
    return 0;
}

/* Shape along first elements; returns the leaf kind, 0 if the leaf is not a number,
 * -1 if some level is not a list, -2 if some level is empty. */
int mg_list_probe(PyObject *obj, int rank, int64_t *shape) {
    for (int d = 0; d < rank; d++) {
        if (!PyList_CheckExact(obj)) return -1;
        shape[d] = PyList_GET_SIZE(obj);
        if (shape[d] == 0) {
            for (int e = d + 1; e < rank; e++) shape[e] = 0;
            return -2;
        }
        obj = PyList_GET_ITEM(obj, 0);
    }
    return kind_of(obj);
}

static int unbox_level(PyObject *obj, int depth, int rank, const int64_t *shape, int kind,
                       char *out, int64_t *position) {
    if (!PyList_CheckExact(obj) || PyList_GET_SIZE(obj) != shape[depth]) return 1;
    Py_ssize_t n = PyList_GET_SIZE(obj);
    PyObject **items = ((PyListObject *)obj)->ob_item;
    if (depth + 1 < rank) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (unbox_level(items[i], depth + 1, rank, shape, kind, out, position)) return 1;
        return 0;
    }
    int64_t p = *position;
    if (kind == KIND_FLOAT) {
        double *dst = (double *)out + p;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = items[i];
            if (Py_TYPE(item) != &PyFloat_Type) return 1;
            dst[i] = PyFloat_AS_DOUBLE(item);
        }
    } else if (kind == KIND_INT) {
        int64_t *dst = (int64_t *)out + p;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = items[i];
            int overflow = 0;
            if (Py_TYPE(item) != &PyLong_Type) return 1;
            long long value = PyLong_AsLongLongAndOverflow(item, &overflow);
            if (overflow) return 1;
            dst[i] = value;
        }
    } else {
        uint8_t *dst = (uint8_t *)out + p;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = items[i];
            if (item == Py_True) dst[i] = 1;
            else if (item == Py_False) dst[i] = 0;
            else return 1;
        }
    }
    *position = p + n;
    return 0;
}

/* 0: unboxed; 1: not rectangular or not homogeneous (the guard fails). */
int mg_list_unbox(PyObject *obj, int rank, const int64_t *shape, int kind, char *out) {
    int64_t position = 0;
    return unbox_level(obj, 0, rank, shape, kind, out, &position);
}

static int box_level(PyObject *obj, int depth, int rank, const int64_t *shape, int kind,
                     const char *buffer, int64_t *position) {
    if (!PyList_CheckExact(obj) || PyList_GET_SIZE(obj) != shape[depth]) return -1;
    Py_ssize_t n = PyList_GET_SIZE(obj);
    PyObject **items = ((PyListObject *)obj)->ob_item;
    if (depth + 1 < rank) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (box_level(items[i], depth + 1, rank, shape, kind, buffer, position)) return -1;
        return 0;
    }
    int64_t p = *position;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *old = items[i], *fresh = NULL;
        if (kind == KIND_FLOAT) {
            double value = ((const double *)buffer)[p + i];
            double previous = PyFloat_CheckExact(old) ? PyFloat_AS_DOUBLE(old) : -value;
            if (memcmp(&value, &previous, sizeof value) == 0) continue;
            fresh = PyFloat_FromDouble(value);
        } else if (kind == KIND_INT) {
            int64_t value = ((const int64_t *)buffer)[p + i];
            if (PyLong_CheckExact(old) && PyLong_AsLongLong(old) == value) continue;
            PyErr_Clear();
            fresh = PyLong_FromLongLong(value);
        } else {
            fresh = ((const uint8_t *)buffer)[p + i] ? Py_True : Py_False;
            if (fresh == old) continue;
            Py_INCREF(fresh);
        }
        if (fresh == NULL) return -1;
        items[i] = fresh;
        Py_DECREF(old);
    }
    *position = p + n;
    return 0;
}

/* Replace the elements whose value changed; the shape was checked when unboxing. */
int mg_list_box(PyObject *obj, int rank, const int64_t *shape, int kind, const char *buffer) {
    int64_t position = 0;
    return box_level(obj, 0, rank, shape, kind, buffer, &position);
}
