"""Reading TOML files so that every error names the file, the line and the fix."""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forumbot.errors import ConfigError

_TOML_LINE = re.compile(r"line (\d+)")


@dataclass(frozen=True)
class TomlFile:
    """A parsed TOML document with its text kept, to point at lines in later errors."""

    path: str
    text: str
    data: dict[str, Any]

    def line_of(self, *needles: str) -> int | None:
        """The first line that contains every needle (a key, a value), or None."""
        for number, line in enumerate(self.text.splitlines(), start=1):
            if all(needle in line for needle in needles):
                return number
        return None

    def table(self, value: Any, known: tuple[str, ...], where: str) -> dict[str, Any]:
        """`value` as a table with only `known` keys. Raises ConfigError at the line of a bad one."""
        if not isinstance(value, dict):
            raise self.error(f"[{where}] must be a table", where)
        for key in value:
            if key not in known:
                raise self.error(f"unknown key '{key}' in [{where}]", key, fix=unknown_key_fix(key, known))
        return value

    def error(self, message: str, *needles: str, fix: str | None = None) -> ConfigError:
        """A ConfigError pointing at the line that holds `needles`."""
        return ConfigError(message, path=self.path, line=self.line_of(*needles) if needles else None, fix=fix)


def load_toml(path: str | Path) -> TomlFile:
    """Read and parse a TOML file.

    Raises ConfigError naming the file (and the line, for a syntax error) when it cannot be read or parsed.
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")   # a BOM (Windows editors) is not part of the text
    except FileNotFoundError:
        raise ConfigError("file not found", path=name, fix="check the path") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read the file: {err}", path=name, fix="save it as UTF-8 text") from None
    return parse_toml(text, name)


def parse_toml(text: str, name: str = "<text>") -> TomlFile:
    """Parse TOML text. Raises ConfigError with the line of a syntax error."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = _TOML_LINE.search(str(err))
        raise ConfigError(f"not valid TOML: {err}", path=name, line=int(found.group(1)) if found else None,
                          fix="see https://toml.io for the syntax; strings need quotes") from None
    except RecursionError:      # tomllib reads nested arrays and inline tables by recursion
        raise ConfigError("arrays or inline tables nested hundreds deep", path=name,
                          fix="write the value flat: no setting of forumbot nests more than a few levels") from None
    return TomlFile(name, text, data)


def unknown_key_fix(key: str, known: list[str] | tuple[str, ...]) -> str:
    """A fix line for an unknown key: the closest known key, or the list of known ones."""
    close = difflib.get_close_matches(key, list(known), n=1)
    if close:
        return f"did you mean '{close[0]}'?"
    return "known keys: " + ", ".join(sorted(known))
