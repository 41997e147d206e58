"""The one exception tree. Everything forumbot raises on purpose is a ForumbotError."""

from __future__ import annotations


class ForumbotError(Exception):
    """Base of every error forumbot raises on purpose. `str(err)` is a message fit for a user."""


class ConfigError(ForumbotError):
    """A config, scenario, ruleset or grammar file is wrong. Names the file, the line and the fix."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 fix: str | None = None) -> None:
        self.path = path
        self.line = line
        self.fix = fix
        where = ""
        if path:
            where = f"{path}:{line}: " if line else f"{path}: "
        text = f"{where}{message}"
        if fix:
            text += f"\n  fix: {fix}"
        super().__init__(text)


class PlatformError(ForumbotError):
    """A forum or Reddit call failed. `retryable` says whether trying again later may succeed."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        self.retryable = retryable
        super().__init__(message)


class MessageRefused(PlatformError):
    """The platform works but refuses this one message for good (too short for the site, its topic closed):
    the runner tells the host and keeps the message in the outbox."""


class StoreError(ForumbotError):
    """The SQLite store could not be read or written."""


class StaleState(StoreError):
    """A step was about to commit over a game state it had not read (another writer moved the game on)."""


class IntentError(ForumbotError):
    """Base of the errors about one player's or host's command."""


class InvalidIntent(IntentError):
    """The text is not a well-formed command (syntax)."""


class IllegalIntent(IntentError):
    """The command is well formed but the rules do not allow it now (a dead target, a locked vote...)."""


class AmbiguousName(IntentError):
    """A name matches several players, or none. `candidates` lists the closest roster names."""

    def __init__(self, query: str, candidates: tuple[str, ...]) -> None:
        self.query = query
        self.candidates = candidates
        if not candidates:
            text = f"'{query}' matches no player"
        elif len(candidates) == 1:
            text = f"'{query}' is not a player; did you mean {candidates[0]}?"
        else:
            text = f"'{query}' matches {', '.join(candidates[:-1])} and {candidates[-1]}"
        super().__init__(text)


class UnknownName(AmbiguousName):
    """No player matches; `candidates` are the closest roster names, best first."""

    def __init__(self, query: str, candidates: tuple[str, ...]) -> None:
        super().__init__(query, candidates)
        if len(candidates) > 1:
            listed = ", ".join(candidates[:-1]) + f" or {candidates[-1]}"
            self.args = (f"'{query}' is not a player; did you mean {listed}?",)
