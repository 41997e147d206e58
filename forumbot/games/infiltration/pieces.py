"""The pieces of Infiltration and the battle table (the rules' "priority of battle")."""

from __future__ import annotations

from dataclasses import dataclass, replace

KINDS = ("J", "MT", "S", "D", "M", "T", "DT")
NAMES = {"J": "Jewel", "MT": "Master Thief", "S": "Spy", "D": "Defuser", "M": "Mimic", "T": "Thug",
         "DT": "Deadly Trap"}
# How many of each a player places: 14 pieces on 18 squares, so 4 blanks.
COUNTS = {"J": 1, "MT": 1, "S": 2, "D": 2, "M": 2, "T": 3, "DT": 3}
PIECES_PER_PLAYER = sum(COUNTS.values())
FIXED = frozenset({"J", "DT"})             # "can never move" / "may not move from their initial positions"
NO_CLAIM = frozenset({"J", "DT", "T"})     # inanimate, or too dim to read an information point
# Strength of the pieces that fight by strength (Deadly Traps and Jewels have special rules).
# Equal strength destroys both: Spy against Mimic, or any two of the same kind.
RANK = {"T": 4, "MT": 3, "D": 2, "S": 1, "M": 1}

# Words a player may use for a piece ("mimic C2 into master thief").
ALIASES = {
    "j": "J", "jewel": "J", "mt": "MT", "master thief": "MT", "thief": "MT", "master": "MT",
    "s": "S", "spy": "S", "d": "D", "defuser": "D", "m": "M", "mimic": "M", "t": "T", "thug": "T",
    "dt": "DT", "deadly trap": "DT", "trap": "DT",
    "драгоценность": "J", "мастер-вор": "MT", "мастер-вора": "MT", "вор": "MT", "вора": "MT", "шпион": "S",
    "шпиона": "S", "сапёр": "D", "сапер": "D", "сапёра": "D", "сапера": "D", "мимик": "M", "громила": "T",
    "громилу": "T", "смертельная ловушка": "DT", "смертельную ловушку": "DT", "ловушка": "DT", "ловушку": "DT",
}


def kind_of(text: str) -> str | None:
    """The piece code a player's word names ("Thug", "dt", "(MT)"), or None."""
    word = " ".join(text.strip().strip("().,!").lower().split())
    if word.endswith("s") and word[:-1] in ALIASES and len(word) > 2:
        word = word[:-1]
    return ALIASES.get(word)


@dataclass(frozen=True)
class Piece:
    owner: str
    kind: str                      # the piece as placed: one of KINDS
    revealed: bool = False         # seen by both players; stays so for the rest of the game
    became: str | None = None      # what a transformed Mimic became
    used: bool = False             # a Spy that has used its reveal

    @property
    def acts(self) -> str:
        """What the piece fights and moves as: a transformed Mimic takes on what it became."""
        return self.became or self.kind

    @property
    def code(self) -> str:
        return f"M:{self.became}" if self.became else self.kind

    @property
    def name(self) -> str:
        return f"Mimic as {NAMES[self.became]}" if self.became else NAMES[self.kind]

    def shown(self) -> Piece:
        return self if self.revealed else replace(self, revealed=True)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"owner": self.owner, "piece": self.kind, "revealed": self.revealed}
        if self.became:
            out["became"] = self.became
        if self.used:
            out["used"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Piece:
        became = data.get("became")
        return cls(str(data["owner"]), str(data["piece"]), bool(data.get("revealed")),
                   str(became) if became else None, bool(data.get("used")))


# Outcomes of a battle.
ATTACKER, DEFENDER, BOTH, BOUNCE, JEWEL = "attacker", "defender", "both", "bounce", "jewel"


def battle(attacker: str, defender: str) -> str:
    """Who survives when a piece acting as `attacker` moves onto one acting as `defender`:
    ATTACKER, DEFENDER, BOTH (both destroyed), BOUNCE (a Jewel attacked by anything but a Master Thief:
    both survive, revealed, in place) or JEWEL (a Master Thief steals the Jewel: the game is won)."""
    if defender == "J":
        return JEWEL if attacker == "MT" else BOUNCE
    if defender == "DT":
        if attacker == "DT":
            return BOTH
        return ATTACKER if attacker == "D" else DEFENDER
    if attacker == "DT":            # cannot happen (traps never move), kept total for a mimicked trap
        return ATTACKER if defender != "D" else DEFENDER
    if attacker == defender or RANK[attacker] == RANK[defender]:
        return BOTH
    return ATTACKER if RANK[attacker] > RANK[defender] else DEFENDER
