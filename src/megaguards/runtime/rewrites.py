"""The rewrite cache: user modules' rewritten code kept on disk, as Python keeps ``.pyc`` files.

Rewriting a module's loops into sites costs about a millisecond a loop (a package with
two thousand loops: seconds in every process).  The rewritten module's code object is
kept in ``<cache dir>/rewrites/`` with the records of its sites (``frontend/siteinfo.py``),
so a later process loads it as Python loads a ``.pyc``: no parsing, no rewriting, no
compiling, and none of the rewrite's modules imported.

* One entry per module: its file's name is a checksum of what says *which* module it is
  (its path, the interpreter's cache tag and optimization level, the rewrite's options),
  so an edited module replaces its entry, as it replaces its ``.pyc``.
* The record inside holds everything the rewritten code depends on, compared exactly: the
  source's bytes, the path, the exact Python version and bytecode magic, megaguards' code
  (``cachefile.code_stamp``: its version, each module's size and time) and the options.
  Any difference is a miss: the module is rewritten, and its entry written again.
* It is a verified record (``cachefile.read_verified``): a private folder, the payload's
  length and CRC-32 checked before ``marshal`` reads it; a damaged file is ignored and
  written again.  Nothing here deletes a file.

How sites are named in rewritten code: a site's number is its place in this process's
registry (``site.REGISTRY``), which another process gives out in another order.  So the
rewrite names each site by a *key* instead, a string constant no program holds (a NUL, a
word, a random nonce kept with the record, the site's index), and the registry maps keys
to sites as they are registered, in the same order as a fresh rewrite registers them.
Loading the same entry twice in one process (``importlib.reload``) would meet keys already
taken: that copy's constants are replaced by plain site numbers instead (``with_site_ids``).
"""
from __future__ import annotations

import os
import sys
import time
from types import CodeType

from ..log_setup import LAZY
from .. import config
from ..frontend.siteinfo import skip_name
from .cachefile import cache_folder, checksum, code_stamp, private_folder, read_verified, usable_cache, write_verified
from .process import current as current_process

log = LAZY   # the "megaguards" logger, logging imported when a record could be shown
FOLDER = "rewrites"
MAGIC = b"megaguards rewrite 1\n"   # the record's format; its length and CRC-32 follow
_KEY = "\0megaguards-site:{}:{}"


def compile_module(source: str | bytes, filename: str, registry, every_loop: bool = False) -> CodeType:
    """The rewritten code of a user module, its sites registered with ``registry``
    (``site.Registry``) in the order a fresh rewrite registers them.  SyntaxError as
    ``compile`` raises it."""
    started = time.perf_counter()
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    use_cache = config.current().rewrite_cache
    path, identity = entry(data, filename, every_loop) if use_cache else (None, None)
    cached = load(path, identity) if use_cache else None
    counts = current_process().rewrites
    if cached is not None:
        code, nonce, infos = cached
        counts["hits"] += 1
    else:
        code, nonce, infos = rewrite(source, filename, every_loop)
        counts["misses"] += 1
        if use_cache:
            store(path, identity, code, nonce, infos)
    keys = [_KEY.format(nonce, index) for index in range(len(infos))]
    if keys and registry.known(keys[0]):   # this entry is loaded again in this process: plain numbers
        code = with_site_ids(code, dict(zip(keys, registry.register_all(infos))))
    elif keys:
        registry.register_all(infos, keys)
    if cached is not None:
        log.debug("rewrite %s: %d site(s) from the rewrite cache in %.1f ms", os.path.basename(filename),
                  len(infos), 1e3 * (time.perf_counter() - started))
    return code


def rewrite(source: str | bytes, filename: str, every_loop: bool) -> tuple[CodeType, str, list]:
    """Parse, rewrite loops to sites named by keys, compile."""
    import ast

    from ..frontend.rewrite import rewrite_module

    tree = ast.parse(source, filename=filename)
    nonce = os.urandom(6).hex()
    infos: list = []

    def key(info) -> str:
        infos.append(info)
        return _KEY.format(nonce, len(infos) - 1)
    tree, _ = rewrite_module(tree, filename, key, every_loop=every_loop)
    return compile(tree, filename, "exec", dont_inherit=True), nonce, infos


def with_site_ids(code: CodeType, ids: dict, renamed: dict | None = None) -> CodeType:
    """``code`` with each key constant replaced by its site's number (``ids``), and each key's
    skip name by that number's (siteinfo.skip_name), nested code too."""
    if renamed is None:
        renamed = {skip_name(key): skip_name(number) for key, number in ids.items()}
    constants = code.co_consts
    replaced = tuple(_constant(value, ids, renamed) for value in constants)
    names = tuple(renamed.get(name, name) for name in code.co_names)
    if all(new is old for new, old in zip(replaced, constants)) and names == code.co_names:
        return code
    return code.replace(co_consts=replaced, co_names=names)


def _constant(value, ids: dict, renamed: dict):
    kind = type(value)
    if kind is str:
        return ids.get(value, value)
    if kind is CodeType:
        return with_site_ids(value, ids, renamed)
    if kind is tuple or kind is frozenset:   # folded constants: no site call is one, but be sure
        items = [_constant(item, ids, renamed) for item in value]
        return kind(items) if any(new is not old for new, old in zip(items, value)) else value
    return value


def entry(data: bytes, filename: str, every_loop: bool) -> tuple[str, tuple]:
    """(the entry's path, what its record must hold to be used)."""
    from importlib.util import MAGIC_NUMBER

    usable_cache()   # the folder is the user's own, or this process's temporary one
    which = (os.fsencode(filename), sys.implementation.cache_tag, sys.flags.optimize, every_loop)
    name = checksum(repr(which).encode())
    return (f"{cache_folder(FOLDER)}/{name}.marshal",
            (*which, sys.version, MAGIC_NUMBER, code_stamp(), data))


def load(path: str, identity: tuple) -> tuple[CodeType, str, list] | None:
    """(code, nonce, site infos) of a valid entry for ``identity``, else None."""
    try:
        if not private_folder(os.path.dirname(path)):
            log.debug("rewrite cache %s: not private (someone else's, or writable by others): not used",
                      os.path.dirname(path))
            return None
        stored, code, nonce, records = read_verified(path, MAGIC)
        if stored != identity:
            return None   # another source, Python or megaguards: rewritten, and the entry replaced
        if type(code) is not CodeType or type(nonce) is not str or type(records) is not tuple:
            raise ValueError("not a rewrite record")
        if not records:
            return code, nonce, []
        from ..frontend.siteinfo import restored_info

        return code, nonce, [restored_info(record) for record in records]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as error:
        current_process().rewrites["damaged"] += 1
        log.debug("rewrite cache %s: ignored (%s: %s); rewriting it", path, type(error).__name__, error)
        return None


def store(path: str, identity: tuple, code: CodeType, nonce: str, infos: list) -> None:
    from ..frontend.siteinfo import site_record

    try:
        if not private_folder(os.path.dirname(path)):
            return
        write_verified(path, (identity, code, nonce, tuple(site_record(info) for info in infos)), MAGIC)
        current_process().rewrites["stored"] += 1
    except Exception as error:  # a read-only cache, a full disk, a site that cannot be pickled: next time
        log.debug("rewrite cache %s: not written (%s: %s)", path, type(error).__name__, error)
