"""Reading a game's options (a ruleset's [options] merged with a game's [game.options]) into its frozen
options dataclass: unknown keys and wrong types are ConfigErrors that name the option and the fix. Each
game keeps its own dataclass and range checks; the type checks live here once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields
from typing import Any, TypeVar

from forumbot.config.tomlfile import unknown_key_fix
from forumbot.errors import ConfigError

T = TypeVar("T")
Converter = Callable[[Any, str], Any]


def _default(field: Any) -> Any:
    if field.default is not MISSING:
        return field.default
    if field.default_factory is not MISSING:
        return field.default_factory()
    return None


def check_option(key: str, value: Any, default: Any, source: str) -> Any:
    """`value` converted to the type of `default`. Raises ConfigError saying what to write instead."""
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        want = "true or false"
    elif isinstance(default, float):
        if is_int(value) or isinstance(value, float):
            return float(value)
        want = "a number"
    elif isinstance(default, int):
        if is_int(value):
            return value
        want = "a whole number"
    elif isinstance(default, tuple):
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        if isinstance(value, list) and all(is_int(v) or isinstance(v, float) for v in value):
            return tuple(float(v) for v in value)
        want = 'a list, like ["votes"] or [12, 2]'
    elif isinstance(default, dict):
        if isinstance(value, dict) and all(is_int(v) for v in value.values()):
            return dict(value)
        want = "a table of name = whole number"
    else:
        if isinstance(value, str):
            return value
        want = "a string"
    raise ConfigError(f"option {key} = {value!r} has the wrong type", path=source, fix=f"write {want}")


def options_from(cls: type[T], data: Mapping[str, Any], source: str, game: str, *,
                 choices: Mapping[str, tuple[str, ...]] = {}, converters: Mapping[str, Converter] = {}) -> T:
    """An options dataclass from a table. `converters` read options of their own shape (role tables...);
    `choices` are the allowed words of string options. Raises ConfigError."""
    known = {f.name: f for f in fields(cls)}   # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"unknown {game} option '{key}'", path=source, fix=unknown_key_fix(key, tuple(known)))
        convert = converters.get(key)
        values[key] = convert(value, source) if convert else check_option(key, value, _default(known[key]), source)
    for key, allowed in choices.items():
        chosen = values.get(key, _default(known[key]))
        if chosen not in allowed:
            raise ConfigError(f"option {key} = '{chosen}' is not allowed", path=source,
                              fix="use one of: " + ", ".join(allowed))
    return cls(**values)


def seed_text(value: Any, source: str) -> str:
    """The `seed` option of a game with random draws: any string, or a whole number taken as its text."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ConfigError(f"option seed = {value!r} has the wrong type", path=source, fix="write a string")
    return str(value)


def options_json(options: Any) -> dict[str, Any]:
    """An options dataclass as JSON keeps it (tuples as lists), for a game's stored state."""
    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return list(value) if isinstance(value, tuple) else value
    return {f.name: plain(getattr(options, f.name)) for f in fields(options)}

