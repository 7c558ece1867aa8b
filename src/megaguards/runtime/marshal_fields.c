/* Fields of a list's objects kept in __slots__ (a part of marshal.c, included there): read and
 * set at the member's offset, as CPython's member descriptor does, without a call per object
 * (guards/fields.py's FieldReader; a field in the objects' __dict__ is read by Python code).
 * guards/fields.py checked first that the class reads and sets attributes the plain way (no
 * __getattribute__, __getattr__ or __setattr__ of its own) and that every object is of it. */
#include <structmember.h>

/* The offset of the member ``descriptor`` (found in the MRO of ``cls``) where objects of
 * ``cls`` hold the field, when reading and setting it is a plain load and store: a member of
 * objects (T_OBJECT_EX: unset reads raise AttributeError), not read-only, of a base of
 * ``cls`` (a descriptor copied into an unrelated class raises TypeError in CPython);
 * -1 otherwise. */
Py_ssize_t mg_slot_offset(PyObject *descriptor, PyObject *cls) {
    if (!Py_IS_TYPE(descriptor, &PyMemberDescr_Type) || !PyType_Check(cls)) return -1;
    PyMemberDescrObject *member = (PyMemberDescrObject *)descriptor;
    PyMemberDef *definition = member->d_member;
    if (definition->type != T_OBJECT_EX || (definition->flags & READONLY)) return -1;
    if (!PyType_IsSubtype((PyTypeObject *)cls, member->d_common.d_type)) return -1;
    if (definition->offset < (Py_ssize_t)sizeof(PyObject)) return -1;
    return definition->offset;
}

#define SLOT(item, offset) ((PyObject **)((char *)(item) + (offset)))

/* A new list of the field values of ``row``'s objects (NULL with AttributeError where one
 * object has none set: CPython's read raises the same). */
PyObject *mg_slot_values(PyObject *row, Py_ssize_t offset) {
    Py_ssize_t count = PyList_GET_SIZE(row);
    PyObject *values = PyList_New(count);
    if (values == NULL) return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *value = *SLOT(PyList_GET_ITEM(row, k), offset);
        if (value == NULL) {
            Py_DECREF(values);
            PyErr_SetString(PyExc_AttributeError, "a __slots__ field is not set");
            return NULL;
        }
        Py_INCREF(value);
        PyList_SET_ITEM(values, k, value);
    }
    return values;
}

/* Set each object's field to its value (``values`` as long as ``row``): a value that is the
 * object the field holds (the boxing keeps an unchanged one) is left.  The values replaced
 * are released once every field is set, so that no code a release may run (a __del__) sees
 * the row half set or changes it under the stores. */
int mg_set_slots(PyObject *row, Py_ssize_t offset, PyObject *values) {
    Py_ssize_t count = PyList_GET_SIZE(row);
    if (!PyList_Check(values) || PyList_GET_SIZE(values) != count) return -1;
    PyObject **replaced = PyMem_Malloc((count ? count : 1) * sizeof *replaced);
    if (replaced == NULL) return -1;
    Py_ssize_t released = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject **slot = SLOT(PyList_GET_ITEM(row, k), offset);
        PyObject *value = PyList_GET_ITEM(values, k);
        if (value == *slot) continue;
        Py_INCREF(value);
        replaced[released++] = *slot;
        *slot = value;
    }
    for (Py_ssize_t k = 0; k < released; k++) Py_XDECREF(replaced[k]);
    PyMem_Free(replaced);
    return 0;
}
