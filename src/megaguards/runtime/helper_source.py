"""The list helper's C source and the key that names a build of it, shared by the package's
build (``setup.py``, which compiles it at install when it can) and the run time
(``marshal.py``, which loads that build when its key is the source's, else compiles the
helper into the kernel cache on first use).  Nothing heavy here: ``setup.py`` imports it
in pip's isolated build environment, where neither NumPy nor islpy is installed."""
from __future__ import annotations

import os

from ..codegen.layout import abi_defines
from .cachefile import sha256   # not hashlib: OpenSSL's import costs a warm run about 4 ms

FOLDER = os.path.dirname(os.path.abspath(__file__))
INSTALLED_NAME = "_marshal"   # runtime/_marshal<the interpreter's extension suffix>
PARTS = ("marshal_lists.c", "marshal_appends.c", "marshal_snapshots.c", "marshal_fields.c")   # the files marshal.c includes


def helper_source() -> str:
    """marshal.c with the parts it includes (``PARTS``) in their places: one translation unit,
    its text whole here, so that the keys cover every file."""
    with open(os.path.join(FOLDER, "marshal.c")) as handle:
        source = handle.read()
    for part in PARTS:
        with open(os.path.join(FOLDER, part)) as handle:
            source = source.replace(f'#include "{part}"\n', handle.read())
    return source


def helper_key(source: str | None = None) -> str:
    """What a build of the helper must have been compiled from: the source and the ABI's
    codes (codegen/layout.py's -D flags)."""
    text = (helper_source() if source is None else source) + "\0" + " ".join(abi_defines())
    return sha256(text.encode()).hexdigest()[:32]
