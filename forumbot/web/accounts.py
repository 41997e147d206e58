"""People's accounts on the web forum, kept beside the local forum's tables in its SQLite file.

Passwords are stored only as scrypt hashes (hashlib, salted, n=2**14, r=8, p=1). The host creates every
account (`forumbot forum add-user NAME`), which prints a generated password once. Sign-ins are
rate-limited per account name from an address and per address (sign_in_keys).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from forumbot.errors import ConfigError, StoreError
from forumbot.model import format_time
from forumbot.seating import same_name
from forumbot.storage.sqlite import open_database

account_migrations = Migrations("webforum")
SCRYPT = {"n": 2**14, "r": 8, "p": 1}


@account_migrations()
def m001_users(db: Database) -> None:
    db.table("web_users").create({"name": str, "password": str, "created": str}, pk="name")
    db.table("web_settings").create({"key": str, "value": str}, pk="key")


@account_migrations()
def m002_time_zones(db: Database) -> None:
    """Each account's time zone, chosen once (deadlines are shown in it)."""
    db.table("web_time_zones").create({"name": str, "zone": str}, pk="name")


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${salt.hex()}${digest.hex()}"


def check_password(stored: str, password: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        found = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                               dklen=len(digest) // 2)
    except ValueError:
        return False
    return hmac.compare_digest(found.hex(), digest)


# A hash to check against when the account does not exist, so a wrong name takes as long as a wrong password.
_DUMMY = hash_password(secrets.token_urlsafe(16))


class Accounts:
    """The accounts table and the forum's settings (the session-signing secret)."""

    def __init__(self, path: str | Path) -> None:
        try:
            self.db = open_database(path)
            account_migrations.apply(self.db)
        except (sqlite3.Error, OSError) as err:
            raise StoreError(f"cannot open the web forum's accounts in {path}: {err}") from err

    def add_user(self, name: str, *, password: str | None = None, reserved: tuple[str, ...] = ()) -> str:
        """Create an account (or give an existing one a new password, which ends its sessions); returns the
        password. A name that is or looks like one of `reserved` (the bot, the hosts) or like another account
        is refused."""
        name = name.strip()
        if not name or len(name) > 60 or any(c in name for c in "/\\<>\n\r\t"):
            raise ConfigError(f"'{name}' cannot be an account name",
                              fix="use the player's name as in the roster: 1-60 characters, no / \\ < >")
        if any(same_name(name, other) for other in reserved):
            raise ConfigError(f"'{name}' is or looks like the bot's account or a host's",
                              fix="choose a name nobody can take for the bot or a host")
        lookalike = next((other for other in self.names() if other != name and same_name(name, other)), None)
        if lookalike is not None:
            raise ConfigError(f"'{name}' looks like the account '{lookalike}'",
                              fix=f"give {lookalike} a new password under that very name, or choose another name")
        password = password or secrets.token_urlsafe(12)
        existed = self.exists(name)
        with self.db.atomic():
            self.db.execute("INSERT INTO web_users (name, password, created) VALUES (?, ?, ?) "
                            "ON CONFLICT(name) DO UPDATE SET password = excluded.password",
                            [name, hash_password(password), format_time(datetime.now(UTC))])
        if existed:   # a new password: every session signed in with the old one ends
            self.end_sessions(f"user:{name}")
        return password

    def add_mask(self, mask: str, owner: str, previous: str | None = None) -> str | None:
        """The account of `owner`'s mask (the bot makes it at the deal), with a one-time password, returned:
        the first sign-in with it must set the account's own password ("": the mask's account is in its
        player's hands already). `previous`: the account it was made for before (the seat was handed over: a
        new password, and that account's sessions end). An account of that name that is neither's is left as
        it is (None)."""
        made_for = self.setting(f"mask:{mask}")
        if self.exists(mask) and (made_for is None or made_for not in (owner, previous)):
            return None
        if self.exists(mask) and made_for == owner and not self.one_time(mask):
            return ""   # made before, and its player has set its password: it is theirs already
        # letters and digits only: the password goes in a PM in any markup as it is
        alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
        try:
            password = self.add_user(mask, password="".join(secrets.choice(alphabet) for _ in range(16)))
        except ConfigError:
            return None   # a lookalike of another account
        with self.db.atomic():
            for key, value in ((f"mask:{mask}", owner), (f"once:{mask}", "1")):
                self.db.execute("INSERT INTO web_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                                "SET value = excluded.value", [key, value])
        return password

    def holder_of(self, name: str, claimant: str) -> str | None:
        """The account `name` is or looks like that is not `claimant`'s (their own, or a mask's account made
        for them), or None: what a sign-up's mask may not be."""
        return next((other for other in self.names() if same_name(name, other) and other != claimant
                     and self.setting(f"mask:{other}") != claimant), None)

    def setting(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM web_settings WHERE key = ?", [key]).fetchone()
        return str(row[0]) if row else None

    def one_time(self, name: str) -> bool:
        """Whether the account's password is a one-time one (a mask's, as the bot sent it)."""
        return self.setting(f"once:{name}") == "1"

    def use_once(self, name: str) -> None:
        """A one-time password was used: it signs in no more (the account gets an unknown password until
        its player sets one)."""
        with self.db.atomic():
            self.db.execute("UPDATE web_users SET password = ? WHERE name = ?",
                            [hash_password(secrets.token_urlsafe(24)), name])
            self.db.execute("DELETE FROM web_settings WHERE key = ?", [f"once:{name}"])

    def set_password(self, name: str, password: str) -> None:
        """The account's own password (its player chose it): a one-time one it had is gone."""
        with self.db.atomic():
            self.db.execute("UPDATE web_users SET password = ? WHERE name = ?", [hash_password(password), name])
            self.db.execute("DELETE FROM web_settings WHERE key = ?", [f"once:{name}"])

    def verify(self, name: str, password: str) -> bool:
        row = self.db.execute("SELECT password FROM web_users WHERE name = ?", [name]).fetchone()
        ok = check_password(row[0] if row else _DUMMY, password)
        return ok and row is not None

    def time_zone(self, who: str) -> str | None:
        """The IANA time zone `who` chose ("user:NAME" or "host:NAME"), or None."""
        row = self.db.execute("SELECT zone FROM web_time_zones WHERE name = ?", [who]).fetchone()
        return str(row[0]) if row else None

    def set_time_zone(self, who: str, zone: str) -> None:
        with self.db.atomic():
            self.db.execute("INSERT INTO web_time_zones (name, zone) VALUES (?, ?) "
                            "ON CONFLICT(name) DO UPDATE SET zone = excluded.zone", [who, zone])

    def exists(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM web_users WHERE name = ?", [name]).fetchone() is not None

    def names(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM web_users ORDER BY name")]

    def stamp(self, who: str) -> str:
        """The mark every signed-in session of `who` ("user:NAME", "host:NAME") carries. Sessions live in signed
        cookies: without it, a cookie copied before a sign-out stayed signed in."""
        row = self.db.execute("SELECT value FROM web_settings WHERE key = ?", [f"stamp:{who}"]).fetchone()
        return str(row[0]) if row else ""

    def end_sessions(self, who: str) -> str:
        """A new mark for `who`: every session signed in before ends (signing out ends them all). Returns it."""
        new = secrets.token_hex(16)
        with self.db.atomic():
            self.db.execute("INSERT INTO web_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                            "value = excluded.value", [f"stamp:{who}", new])
        return new

    def secret(self) -> str:
        """The key that signs session cookies: made once, kept in the file so sessions survive a restart."""
        with self.db.atomic():
            self.db.execute("INSERT OR IGNORE INTO web_settings (key, value) VALUES ('secret', ?)",
                            [secrets.token_hex(32)])
            return str(self.db.execute("SELECT value FROM web_settings WHERE key = 'secret'").fetchone()[0])


class RateLimiter:
    """At most so many attempts per key within `window` seconds (each key's limit given with it). An attempt
    is counted when it is taken, before the work it guards (a password check takes a while): ten attempts at
    once against a limit of 5 take 5."""

    def __init__(self, window: float = 300.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.window, self.clock = window, clock
        self.attempts: dict[str, deque[float]] = {}
        self.lock = threading.Lock()

    def _recent(self, key: str) -> deque[float]:
        times = self.attempts.setdefault(key, deque())
        while times and times[0] <= self.clock() - self.window:
            times.popleft()
        return times

    def take(self, *keys: tuple[str, int]) -> float:
        """One attempt against each (key, limit), all or none: 0 when every key had room (the attempt is
        counted), else the seconds until the fullest key has room again (nothing counted)."""
        with self.lock:
            waits = [self.window - (self.clock() - t[0]) for key, limit in keys
                     if len(t := self._recent(key)) >= limit]
            if waits:
                return max(waits)
            now = self.clock()
            for key, _ in keys:
                self._recent(key).append(now)
            if len(self.attempts) > 10_000:   # a flood of made-up names: forget the keys whose window has passed
                for key in [k for k in self.attempts if not self._recent(k)]:
                    del self.attempts[key]
            return 0.0

    def give_back(self, *keys: tuple[str, int]) -> None:
        """Uncount the latest attempt of each key (a sign-in that succeeded is no failure)."""
        with self.lock:
            for key, _ in keys:
                times = self._recent(key)
                if times:
                    times.pop()


def sign_in_keys(kind: str, name: str, address: str | None) -> tuple[tuple[str, int], ...]:
    """What a sign-in counts against: the account name from this address (5 in 5 minutes), and the address
    (30 in 5 minutes, whatever the names). Never the name alone: failures from elsewhere lock nobody out."""
    return (f"{kind}:{name.casefold()}@{address}", 5), (f"{kind}-address:{address}", 30)
