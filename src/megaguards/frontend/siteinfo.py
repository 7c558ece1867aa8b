"""What the rewrite tells the runtime about each site, and the names rewritten code calls.

The rewrite (``rewrite.py``, ``comprehension.py``) registers one ``SiteInfo`` per loop site
and one ``ExpressionInfo`` per expression site.  This module is light on purpose (no
``ast`` walking, no desugaring): a module loaded from the rewrite cache registers its
sites from here without importing the rewrite.

A cached site's info is kept as a *record* (``site_record``): its kind, file, line and
function as plain values, the rest (the loop's ``ast``, live-ins, live-outs ...) pickled.
``restored_info`` turns a record back into an info of the same class (a subclass that
unpickles the rest on first use), so a module with 2000 loops costs no 2000 unpickled
loops at import: only the loops that are entered.
"""
from __future__ import annotations

TYPE_CHECKING = False   # as typing's (not imported: about 2 ms at every start-up)
if TYPE_CHECKING:
    import ast

SITE_FUNCTION = "__megaguards_site__"
UNSET_NAME = "__megaguards_unset__"
IN_NAME = "__megaguards_in__"
OUT_NAME = "__megaguards_out__"
EXPRESSION_FUNCTION = "__megaguards_expr__"
NEXT_NAME = "__megaguards_next__"         # builtins.next, under a name no user code shadows
PROBING_NAME = "__megaguards_probing__"   # the keys of the loop sites whose CPython run is timed
TIMED_FUNCTION = "__megaguards_timed__"   # called after that run (runtime/probe.py)
# A site loop that returns: the flag its ``return``s set and the value they give, its last
# two live-outs (frontend/rewrite.py: the rewritten code returns it, nothing is assigned).
RETURNED, RETURN_VALUE = "mg_returned", "mg_return_value"


def skip_name(site_key) -> str:
    """The built-in name of a site's skip iterator (runtime/backoff.py), read by the rewritten
    code's test on entry: a name of its own per site, so that the test is one global load
    (a table indexed by the key cost about 15 ns more an entry, paid by every entry of a small
    site in a hot function): ``__megaguards_skip_<the key's letters and digits>__``."""
    return "__megaguards_skip_" + "".join(c if c.isalnum() else "_" for c in str(site_key)) + "__"


class Record:
    """A frozen record of named fields, compared and shown by them: what a frozen dataclass
    gives, written out because importing ``dataclasses`` (and ``inspect`` with it) costs
    about 8 ms, paid by every process that imports a rewritten module otherwise."""

    _fields: tuple[str, ...] = ()
    _defaults: dict = {}

    def __init__(self, *values, **named) -> None:
        if len(values) > len(self._fields):
            raise TypeError(f"{type(self).__name__}() takes {len(self._fields)} fields, not {len(values)}")
        fields = dict(zip(self._fields, values))
        for name, value in named.items():
            if name not in self._fields or name in fields:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated field {name!r}")
            fields[name] = value
        for name in self._fields:
            if name not in fields:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__}() missing field {name!r}")
                fields[name] = self._defaults[name]
        self.__dict__.update(fields)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._fields)})"


class SiteInfo(Record):
    """Static facts about one loop site, fixed at rewrite time: ``filename``, ``line``,
    ``function`` (the enclosing scopes, dotted; None at module level), ``loop`` (the
    original ``ast.For``, untouched), ``live_ins`` and ``live_outs`` (names)."""

    _fields = ("filename", "line", "function", "loop", "live_ins", "live_outs", "work", "rejected", "scratch")
    _defaults = {"work": None, "rejected": None, "scratch": ()}
    filename: str
    line: int
    function: str | None
    loop: ast.For
    live_ins: tuple[str, ...]
    live_outs: tuple[str, ...]
    work: tuple | None   # frontend/work.py's formula of an entry (None: no rewrite read it)
    rejected: tuple | None      # (reason, line, col): the lowering refused the loop at rewrite time,
                                # whatever the values (frontend/static_lowering.py)
    scratch: tuple[str, ...]    # lists nothing reads once the loop ends (frontend/scratch.py)


class Source(Record):
    """One iterable: a pre-evaluated argument (by index), or an inner iterable read from
    live-ins at run time (a name, or ``range(...)`` of names, ints and ``len(name)``);
    ``columns``: the argument is the table ``rows`` of ``zip(*rows)``, iterated by columns."""

    _fields = ("argument", "expression", "columns")
    _defaults = {"expression": None, "columns": False}
    argument: int | None
    expression: ast.expr | None
    columns: bool


class Level(Record):
    """One loop level; several sources are iterated together (``map(f, xs, ys)``)."""

    _fields = ("targets", "sources", "conditions")
    _defaults = {"conditions": ()}
    targets: tuple[str, ...]       # the name each source's element is bound to
    sources: tuple[Source, ...]
    conditions: tuple[ast.expr, ...]   # ``if`` clauses (reductions only)


class ExpressionInfo(Record):
    """Static facts about one expression site, fixed at rewrite time."""

    _fields = ("filename", "line", "function", "kind", "expression", "live_ins", "levels", "element",
               "callee", "reducer", "start", "work")
    _defaults = {"callee": None, "reducer": (), "start": None, "work": None}
    filename: str
    line: int
    function: str | None
    kind: str                  # "list" (a comprehension), "map", "sum", "min", "max", "reduce"
    expression: ast.expr       # as written
    live_ins: tuple[str, ...]  # the names the thunk returns
    levels: tuple[Level, ...]
    element: ast.expr          # one element (list/sum) or the reduced value's right operand
    callee: int | None         # map/reduce: argument index of a named function
    reducer: tuple             # reduce with a lambda: ("op", "+") | ("call", "max") | ("lambda", a, b, body);
                               # min/max: ("call", "min") | ("key", "min", parameter or None, body or None)
    start: int | None          # sum/reduce: argument index of the start value; min/max: of default=
    work: tuple | bool | None  # as SiteInfo's, over the arguments then the live-ins


# -- records: a site's info as the rewrite cache keeps it ------------------------------------

_PLAIN = ("filename", "line", "function", "work", "rejected")   # read at registration, by reports, at entry
_KINDS = (SiteInfo, ExpressionInfo)         # a record's first item: the index of its class


def site_record(info) -> tuple:
    """``(kind, filename, line, function, work, rejected, pickled rest)``: plain values ``marshal``
    holds (the work formula is tuples of ints and strings: a site's entries are estimated
    without unpickling its ``ast``)."""
    import pickle

    rest = {name: getattr(info, name) for name in info._fields if name not in _PLAIN}
    return (_KINDS.index(type(info)), info.filename, info.line, info.function, info.work,
            getattr(info, "rejected", None), pickle.dumps(rest, protocol=pickle.HIGHEST_PROTOCOL))


class _Restored:
    """An info read back from a record: the plain fields at once, the pickled rest on the
    first read of one of its fields (then it is an ordinary instance of its class)."""

    def __getattr__(self, name: str):
        pending = self.__dict__.get("_pending")
        if pending is None or name.startswith("__"):
            raise AttributeError(name)
        try:
            from _pickle import loads   # without the pickle module's Python part: about 4 ms to import
        except ImportError:
            from pickle import loads
        self.__dict__.update(loads(pending))   # two threads may both load: the same values
        self.__dict__.pop("_pending", None)
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(name) from None


class RestoredSiteInfo(_Restored, SiteInfo):
    """A ``SiteInfo`` from the rewrite cache."""


class RestoredExpressionInfo(_Restored, ExpressionInfo):
    """An ``ExpressionInfo`` from the rewrite cache."""


_RESTORED = (RestoredSiteInfo, RestoredExpressionInfo)


def restored_info(record) -> SiteInfo | ExpressionInfo:
    """The info a ``site_record`` was made of (ValueError for a record that is not one)."""
    try:
        kind, filename, line, function, work, rejected, rest = record
        info = object.__new__(_RESTORED[kind])
    except (TypeError, ValueError, IndexError):
        raise ValueError("not a site record") from None
    if not (type(filename) is str and type(line) is int and (function is None or type(function) is str)
            and (work is None or work is False or (type(work) is tuple and len(work) == 5)) and type(rest) is bytes
            and (rejected is None or (type(rejected) is tuple and len(rejected) == 3 and type(rejected[0]) is str
                                      and type(rejected[1]) is int and type(rejected[2]) is int))):
        raise ValueError("not a site record")
    info.__dict__.update(filename=filename, line=line, function=function, work=work, _pending=rest)
    if kind == 0:
        info.__dict__["rejected"] = rejected
    return info
