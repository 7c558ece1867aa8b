"""The names megaguards generates, said as the user wrote them: a display-side rewrite of
reasons and descriptions (the analyses keep their own names; ``explain`` and the report
table show these).

The generated names: ``mg_tmp3`` (a temporary of the lowering, the index of a ``for x in
xs``), ``mg_tmp_while`` (the one-trip loop around a ``while`` site), ``mg_tmp_split`` (the
one around the loops a site's own loop was split into), ``mg_tmp_0_4step_r``
(the local ``r`` of the inlined function ``step``), ``mg_tmp_0_4step_return`` (its returned
value), ``mg_returned``/``mg_return_value`` (a ``return`` inside the loop), and those of
the loops an expression site builds (frontend/comprehension.py): ``mg_k0`` (the index of
level 0), ``mg_q0_0`` (the sequence iterated), ``mg_x0_0`` (its element), ``mg_n0`` (the
number of elements), ``mg_s0_0``/``mg_d0_0`` (a range's start and step), ``mg_b0``,
``mg_out`` (the new list), ``mg_acc`` (the running value of a sum or reduce), ``mg_value``
(one element's value), ``mg_f`` (the reducing function).
"""
from __future__ import annotations

import re

from ..ir.nodes import inlined_local

_LOOP = re.compile(r"\bloop '(?:mg_\w+|__mg\w*)' at line (\d+)")
_LOOP_VARIABLE = re.compile(r"\bloop variable '(?:mg_\w+|__mg\w*)'")
_FIXED = {
    "mg_tmp_while": "the while loop's trip",
    "mg_tmp_split": "the split loop's parts",
    "mg_returned": "whether the loop returned",
    "mg_return_value": "the value returned",
    "mg_out": "the new list",
    "mg_acc": "the running value",
    "mg_value": "the element's value",
    "mg_b0": "the first element's position",
    "mg_f": "the reducing function",
}
_NUMBERED = ((re.compile(r"mg_k\d+$"), "the index"), (re.compile(r"mg_q\d+_\d+$"), "the sequence iterated"),
             (re.compile(r"mg_x\d+_\d+$"), "the element"), (re.compile(r"mg_n\d+$"), "the number of elements"),
             (re.compile(r"mg_s\d+_\d+$"), "the range's start"), (re.compile(r"mg_d\d+_\d+$"), "the range's step"),
             (re.compile(r"__mg\d+$"), "an argument"))
_NAME = re.compile(r"'?\b((?:mg_|__mg)\w+)\b'?")


def user_name(name: str) -> str | None:
    """What the user wrote for a generated name (a phrase, or a quoted name of theirs);
    None for a name megaguards did not generate."""
    if name in _FIXED:
        return _FIXED[name]
    inlined = inlined_local(name)
    if inlined:
        function, variable = inlined
        return f"the value returned by '{function}'" if variable == "return" else f"'{variable}' (in '{function}')"
    for pattern, phrase in _NUMBERED:
        if pattern.match(name):
            return phrase
    if name.startswith(("mg_tmp", "__mg")):
        return "a value megaguards introduced"
    return None


def user_names(text: str) -> str:
    """``text`` (a reason, a description of a check or of the parallel plan, a signature)
    with every generated name replaced by what the user wrote: ``loop 'mg_tmp0' at line 35``
    -> ``the loop at line 35``, ``'mg_tmp_0_4step_r'`` -> ``'r' (in 'step')``, ``mg_out`` -> ``the
    new list``.  Names of the user's own are left as they are."""
    text = _LOOP.sub(r"the loop at line \1", text)
    text = _LOOP_VARIABLE.sub("the loop's counter", text)

    def replace(match: re.Match) -> str:
        phrase = user_name(match.group(1))
        return match.group(0) if phrase is None else phrase
    return _NAME.sub(replace, text)
