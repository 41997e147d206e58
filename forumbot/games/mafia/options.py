"""The rules a Mafia host can set, with the defaults of the Body Snatchers rules (seed 002, section 6).

Each choice the rule text leaves open is an option here, set in config/rulesets/*.toml and overridable in
a game's [game.options]. The README's rules section says why each default was chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.calendar import weekday_numbers, zone
from forumbot.games.mafia.modifiers import VOTE_PASSIVES
from forumbot.games.mafia.roles import RoleDef, roles_from
from forumbot.games.options import options_from

CHOICES: dict[str, tuple[str, ...]] = {
    "final_votes": ("simple_only", "always", "never"),
    "no_lynch_after_limit": ("reject", "allow"),
    "unresolved_vote": ("withdraw", "keep"),
    "notes_scope": ("night", "game"),
    "thief_revisit": ("steal", "any"),
    "stolen_action": ("tonight", "role"),
    "mafia_wins": ("parity", "alone"),
    "inspector_meets": ("both", "inspector"),
    "best_player_start": ("host", "auto"),
    "check_result": ("status", "team"),
    "best_player_negative": ("zero", "allow"),
    "best_player_empty": ("decline", "refuse"),
    "self_hammer": ("allow", "reject"),
    "tie": ("all", "no_lynch", "random", "earliest", "host"),
}


def pairs(value: Any, source: str) -> tuple[tuple[str, Any], ...]:
    """A table {key = value} (from TOML) or its stored form [[key, value], ...], as sorted pairs: options must
    stay hashable."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)) and all(isinstance(v, (list, tuple)) and len(v) == 2 for v in value):
        items = [tuple(v) for v in value]
    else:
        raise ConfigError(f"{value!r} must be a table of key = value", path=source,
                          fix='write it as a table, like { "1" = "inspector" }')
    for key, item in items:
        if isinstance(item, (dict, list)):
            raise ConfigError(f"the value of '{key}' must be a number or a string", path=source)
    return tuple(sorted((str(k), v) for k, v in items))


@dataclass(frozen=True)
class MafiaOptions:
    day_hours: float = 48.0
    night_hours: float = 24.0
    # How many no-lynch results a game may have (6.1: "лишь дважды за игру"). After that the simple rule.
    no_lynch_limit: int = 2
    # A lynch under the absolute rule ends the day the moment someone reaches 50% + 1 (6.2).
    early_end: bool = True
    # An absolute majority voting no-lynch also ends the day early, as a no-lynch.
    early_no_lynch: bool = True
    # When "Окончательно против X" locks a vote: only under the simple rule (6.2), always, or never.
    final_votes: str = "simple_only"
    # A no-lynch vote once the limit is used up: refused with a flag, or allowed (shown, counts for nothing).
    no_lynch_after_limit: str = "reject"
    # A vote whose name is unknown or ambiguous counts as no vote: withdraw the old vote, or keep it.
    unresolved_vote: str = "withdraw"
    self_votes: bool = True
    # A vote on oneself that would bring one's own wagon to a lynch: "allow" it, or "reject" it.
    self_hammer: str = "allow"
    # Whether no-lynch votes exist at all (false: "no lynch" is refused with a flag).
    no_lynch_votes: bool = True
    # Who hangs when the most-voted players tie at the deadline (or several reach their majority): "all"
    # of them, nobody ("no_lynch"), one drawn by the game's seeded generator ("random"), the one that
    # reached its count first ("earliest"), or the one the host names by PM ("host": the day waits).
    tie: str = "all"
    # Vote modifiers per player for a game whose host keeps the roles: { "Alice" = "hated" }
    # (modifiers.py); roles of the ruleset list them in their passives.
    vote_modifiers: tuple[tuple[str, Any], ...] = ()
    # A vote count names loved/hated players' modifiers and marks double votes ("x2").
    show_modifiers: bool = True
    # ---- the deadline calendar (forumbot/games/calendar.py, schedule.phase_end) ------------------------
    skip_weekdays: tuple[str, ...] = ()   # weekdays whose hours do not count toward a phase: ["sat", "sun"]
    calendar_tz: str = "UTC"            # the time zone those weekdays are in (an IANA name)
    untimed_days: bool = False          # days have no deadline: the host ends each ("end day")
    # A majority under the absolute rule ends the day this many hours later (if it still stands then)
    # instead of at once; 0: at once (early_end).
    majority_countdown_hours: float = 0.0
    # ---- activity (activity.py) ---------------------------------------------------------------------
    prod_hours: float = 0.0             # a private prod after this many hours without a post by day (0: off)
    post_minimum: int = 0               # posts a living player must make each day (0: none)
    activity_in_count: bool = False     # the count's "Not voting" line gives posts today and the last post
    # Where votes count (6: "в отдельной теме для голосования") and where phase posts go.
    vote_threads: tuple[str, ...] = ("votes",)
    # Keep the day's vote count in one post, edited as votes change, instead of a new post each time.
    vote_count_edit: bool = False
    # Reminders this many hours before a phase ends: by day in the voting thread, naming who has not voted
    # (and by PM to each of them with remind_by_pm); by night by PM to whoever has not sent an action.
    remind_hours: tuple[float, ...] = ()
    remind_by_pm: bool = False
    game_thread: str = "game"
    # A vote count after every N changes of the votes (0: only at the end of the day).
    vote_count_every: int = 1
    # How many vote errors a vote count lists (the newest); the total is always given.
    vote_errors_shown: int = 10
    reveal_roles: bool = False
    # A game where the bot only counts votes and runs the phases, and the host keeps the roles and says who
    # won. Without it, a game whose players do not all have a role of the ruleset is refused: it could
    # never end (forumbot/engine/loading.py check_game).
    votes_only: bool = False
    # ---- nights (the night rules; config/rulesets/bodysnatchers.toml says why for each) ----------
    roles: tuple[RoleDef, ...] = ()
    notes_per_night: int = 2
    notes_scope: str = "night"
    # Which protections the maniac's "protection" bypass ignores: protect (policeman/thief), heal, shield.
    maniac_protect_bypass: tuple[str, ...] = ("protect",)
    taxi_free_below: int = 5
    thief_revisit: str = "steal"
    stolen_action: str = "tonight"
    mafia_wins: str = "parity"
    maniac_wins_at: int = 2
    inspector_meets: str = "both"
    shuffle_notes: bool = True
    seed: int = 0
    # What a check learns: the target's "status" (positive/negative, Body Snatchers) or its "team" (mafia or
    # not mafia: the classic detective).
    check_result: str = "status"
    # ---- before the game (sections 1-3; signup.py) -----------------------------------------------
    signup_hours: float = 72.0          # how long sign-ups are open (a game that starts in phase "signup")
    signup_extend_hours: float = 24.0   # sign-ups not full at the deadline: open this much longer
    signup_slots: int = 12              # numbers 1..N (section 1: 12 players)
    role_table: tuple[tuple[str, Any], ...] = ()   # the host's secret table: number → role (never posted)
    forums: tuple[tuple[str, Any], ...] = ()       # account (or player) → their home forum
    confirm_hours: float = 24.0         # role confirmation: reminders and a word to the host this often
    # ---- warnings and penalties (section 8; ledger.py, moderation.py) ------------------------------
    moderate: bool = False              # check the game thread and count 8.2.7 by itself
    slang: tuple[str, ...] = ()         # a community's slang that reveals a mask (8.2.8)
    penalties: tuple[tuple[str, Any], ...] = ()    # rule ("8.2.1") → penalty points to the player's forum
    warning_points: tuple[float, ...] = (1.0, 6.0, 12.0)   # the 1st, 2nd, 3rd warning (8.1)
    exclude_after: int = 3              # the warning that excludes the player (a modkill, 8.1.3)
    exclude_rules: tuple[str, ...] = ("8.2.9",)    # violations that exclude at once
    silent_rules: tuple[str, ...] = ("8.2.7",)     # violations without a warning or a PM (8.2.7)
    modkill_points: int = 12            # an exclusion costs the forum at least this (8.2, last paragraph)
    # ---- the best-player vote (section 9; bestplayer.py) -----------------------------------------
    best_player_start: str = "host"     # "host": the host's command opens it; "auto": at the game's end
    best_player_hours: float = 168.0    # one week
    best_player_negative: str = "zero"  # a total after deductions below zero: shown as 0, or "allow"
    best_player_empty: str = "decline"  # an empty ballot ("best:"): declines (withdraws any earlier one), or "refuse"
    # Votes each modkilled member costs every player of their forum (config/rulesets/bodysnatchers.toml says
    # why 1: "не могут голосовать ..., поэтому ... ещё минус 1 голос"; 2 reads it as on top of a non-voter's).
    best_player_modkill_votes: int = 1

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "options") -> MafiaOptions:
        """Options from a ruleset/overrides table. Raises ConfigError for an unknown key or a wrong type."""
        converters: dict[str, Callable[[Any, str], Any]] = {"roles": roles_from, "role_table": pairs,
                                                             "forums": pairs, "penalties": pairs,
                                                             "vote_modifiers": pairs}
        options = options_from(cls, data, source, "Mafia", choices=CHOICES, converters=converters)
        if options.day_hours <= 0 or options.night_hours <= 0:
            raise ConfigError("day_hours and night_hours must be positive", path=source)
        ids = [r.id for r in options.roles]
        if len(set(ids)) != len(ids):
            raise ConfigError("two roles share an id", path=source)
        weekday_numbers(options.skip_weekdays, source)
        zone(options.calendar_tz)
        if options.majority_countdown_hours < 0:
            raise ConfigError("majority_countdown_hours cannot be negative", path=source)
        if options.prod_hours < 0 or options.post_minimum < 0:
            raise ConfigError("prod_hours and post_minimum cannot be negative", path=source)
        if options.no_lynch_limit < 0 or options.vote_count_every < 0 or options.notes_per_night < 0:
            raise ConfigError("no_lynch_limit, vote_count_every and notes_per_night cannot be negative", path=source)
        for player, text in options.vote_modifiers:
            bad = [w.strip() for w in str(text).split(",") if w.strip() not in VOTE_PASSIVES]
            if bad:
                raise ConfigError(f"vote_modifiers: '{bad[0]}' for {player} is not a vote modifier", path=source,
                                  fix="vote modifiers: " + ", ".join(VOTE_PASSIVES))
        return options

    def role(self, role_id: str | None) -> RoleDef | None:
        return next((r for r in self.roles if r.id == role_id), None)
