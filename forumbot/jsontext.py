"""JSON text as the store writes it. Only the Mafia state's parts still import it; the store itself calls
json.dumps directly."""

from __future__ import annotations

import json
from typing import Any


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
