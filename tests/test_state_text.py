"""The Mafia state's own shortcuts: with_ (a C copy of the fields' dict) makes what dataclasses.replace makes,
and a vote entry's JSON written out is the store's encoder's text for any entry."""

from dataclasses import replace

from helpers import new_game
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.games.mafia.state import VoteEntry, _entry_json, _entry_text, new_entry
from forumbot.jsontext import dumps
from forumbot.model import filled

_CHARS = ["a", "Я", "ё", '"', "\\", "\n", "\x00", "\u2028", "\ud800", "😀", " ", "é"]
_TEXT = st.text(st.sampled_from(_CHARS), max_size=6)


class _Name(str):
    """A text of a str subclass: the encoder writes it as the text it is."""


# A text field's value: text, a str subclass's, or (a state read from odd JSON) no text at all, which _entry_text
# leaves to the encoder (its TypeError).
_VALUE = _TEXT | _TEXT.map(_Name) | st.none() | st.integers(0, 3)


@settings(max_examples=300, deadline=None)
@given(_VALUE, _VALUE, st.integers(-5, 10**20) | st.booleans(), _VALUE, _VALUE, _VALUE,
       st.booleans() | st.integers(0, 2), st.booleans() | st.none())
def test_an_entry_text_is_the_encoders_text(voter, target, seq, at, post, url, final, withdrawn):
    for entry in (new_entry(voter, target, seq, at, post, url, final, withdrawn),
                  VoteEntry(voter, target, seq, at, post, url, final, withdrawn),
                  filled(VoteEntry, withdrawn=withdrawn, final=final, url=url, post=post, at=at, seq=seq,
                         target=target, voter=voter)):
        assert _entry_text(entry) == dumps(_entry_json(entry))


def test_with_makes_what_replace_makes_with_its_own_fields():
    state = new_game(7)
    for changes in ({"seq": 3}, {"seq": 4, "changes": 2, "current": {"a": "b"}}, {}):
        made = state.with_(**changes)
        assert made == replace(state, **changes) and list(vars(made)) == list(vars(replace(state, **changes)))
        assert vars(made) is not vars(state) and made is not state and type(made) is type(state)
        assert all(getattr(made, key) is value for key, value in changes.items())
    assert vars(state.with_(seq=9))["seq"] == 9 and state.seq != 9     # the original is left as it was
