"""The JSON text the store writes (state parts, events, intents, flags): json.dumps's, made cheaper."""

from __future__ import annotations

import json
from typing import Any


def dumps(value: Any) -> str:
    """json.dumps(value, ensure_ascii=False), byte for byte, by one C encoder made once: json.dumps and
    JSONEncoder.encode make an encoder at every call (json.encoder.iterencode), which costs more than the text
    of a vote entry or of an event. The store writes every part, event, intent and flag with it."""
    return "".join(_ENCODE(value, 0)) if _ENCODE is not None else json.dumps(value, ensure_ascii=False)


# What json.dumps(ensure_ascii=False) encodes with (json.encoder.JSONEncoder.iterencode, one shot), but for
# the check of circular references: what is stored is trees of plain data (a cycle still raises, as
# RecursionError).
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)   # None where Python was built without _json
_ENCODE = None if _C_ENCODER is None else _C_ENCODER(
    None, json.JSONEncoder().default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
