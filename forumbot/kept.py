"""Values kept by the identity of the objects they were made from (issue 16): a vote count's parts of a view
that cannot change and their text, a vote's roster as a set, a signed-up roster. A step then redoes only
what changed since the one before; a view remade from the one before by a few edits says so (`REMADE`), so
what was made of the one before is carried over with the same edits. And values kept by a key's value, made
when first asked for (`ByValue`: a name's escape in a count, an hour's text)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
L = TypeVar("L")


class FrozenDict(dict[str, Any]):
    """A dict that cannot be changed, holding only values that cannot change either (str, numbers, None,
    FrozenDicts, FrozenLists, tuples of those): a part of a view shared by several (each vote count shows the
    voters of the one before), so what is made from it may be kept by its identity (the renderer's text of a
    voter, a template loop's text of a wagon: render/codegen.py). No __dict__: it has no attribute but its
    class's (a template reads its items as a plain dict's)."""

    __slots__ = ()

    def _unchangeable(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a FrozenDict cannot be changed")

    __setitem__ = __delitem__ = __ior__ = _unchangeable
    clear = pop = popitem = setdefault = update = _unchangeable

    def __reduce__(self) -> tuple[Any, ...]:   # copied and pickled as a new FrozenDict of the same items
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A list that cannot be changed: a wagon's voters, the same list in every vote count until a vote
    changes the wagon (the renderer keeps its text by the list's identity)."""

    __slots__ = ()

    def _unchangeable(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a FrozenList cannot be changed")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _unchangeable
    append = extend = insert = pop = remove = reverse = sort = clear = _unchangeable

    def __reduce__(self) -> tuple[Any, ...]:   # copied and pickled as a new FrozenList of the same items
        return (FrozenList, (list(self),))


class ByIdentity(Generic[T]):
    """Values made from objects that cannot change, found by the objects' identity, many at a time in C.
    Each object is kept with its value, so its identity cannot pass to another object while it is a key.
    At most `size` values, then it starts afresh (both dicts replaced at once: a reader never sees a value
    without its object)."""

    def __init__(self, size: int) -> None:
        self.size = size
        # (values by the object's id, the objects by their id): a caller may read them for a list of values in
        # C (`of`'s look-up), or put several values itself (each object first, then its value; both dicts
        # replaced at once when full, as `put` does)
        self.dicts: tuple[dict[int, T], dict[int, Any]] = ({}, {})

    def get(self, obj: Any) -> T | None:
        """The value of one object, or None."""
        return self.dicts[0].get(id(obj))

    def made(self, objects: Sequence[Any], make: Callable[[Any], T]) -> list[T]:
        """The value of each object: those kept found in C, only the others made by `make` (one call each)
        and kept. A vote count's wagons or a wagon's voters are all kept but one or two: the work follows
        what changed. The bound may be passed by the values of one call (then the next starts afresh). A value
        is never None (None is what is not kept)."""
        values_by_id, kept = self.dicts
        values: list[Any] = list(map(values_by_id.get, map(id, objects)))
        if None in values:
            if len(values_by_id) >= self.size:
                values_by_id, kept = self.dicts = ({}, {})
            at = values.index(None)            # each one not kept, found in C
            while True:
                obj = objects[at]
                value = values[at] = make(obj)
                key = id(obj)
                kept[key] = obj                  # the object first: then its value
                values_by_id[key] = value
                if None not in values:
                    break
                at = values.index(None, at + 1)
        return values

    def add(self, objects: Sequence[Any], make: Callable[[Any], T]) -> None:
        """Makes (by `make`) and keeps the value of each of `objects` not kept: those a caller will need are
        made first, and a list of their values is then one look-up an object in C (`of`)."""
        values_by_id, kept = self.dicts
        if len(values_by_id) + len(objects) > self.size:
            values_by_id, kept = self.dicts = ({}, {})
        for obj in objects:
            key = id(obj)
            if key not in values_by_id:
                kept[key] = obj                  # the object first: then its value
                values_by_id[key] = make(obj)

    def of(self, objects: Sequence[Any], make: Callable[[Any], T], into: Callable[[Iterable[T]], L]) -> L:
        """The values of `objects`, in order, in a new `into` (list, FrozenList): those not kept are made (the
        KeyError: nothing is looked for in the values, as `made` looks for None)."""
        try:
            return into(map(self.dicts[0].__getitem__, map(id, objects)))
        except KeyError:
            self.add(objects, make)
            return into(map(self.dicts[0].__getitem__, map(id, objects)))

    def put(self, obj: Any, value: T) -> None:
        """Keep the value of one object."""
        values_by_id, kept = self.dicts
        if len(values_by_id) >= self.size:
            values_by_id, kept = self.dicts = ({}, {})
        key = id(obj)
        kept[key] = obj                      # the object first: then its value
        values_by_id[key] = value


class ByValue(dict[Any, T]):
    """Values made by `make` from a key when first asked for, then found by the key in one look-up in C (a
    filter or a time's text in an lru_cache spent twice the rest of its work in the cache's call). Keys as a
    dict's and an lru_cache's (1 and True are one). At most `size`, then started afresh."""

    __slots__ = ("make", "size")

    def __init__(self, make: Callable[[Any], T], size: int) -> None:
        super().__init__()
        self.make, self.size = make, size

    def __missing__(self, key: Any) -> T:
        made = self.make(key)
        if len(self) >= self.size:
            self.clear()
        self[key] = made
        return made


# The views (FrozenDicts) of a list remade from views before by a few edits of their lists of items (a vote
# count's wagons, each wagon's voters after a vote: game._remade_views), by the identity of the list: each
# (the view, the view before or None, the edits), each edit (place, how many items taken out there, what the
# item put there was made from, or None) applied in order; and the items put, by the id of what each was made
# from. What was made of each item of the view before (the renderer's text of a voter) is carried over by the
# same edits (`edited`), not looked up item by item. Written by the game, read by the renderer; a view not in
# it is made afresh. A count's record is read when the count is rendered, in the same step: a few kept are
# enough, and more would keep thousands of containers alive between two resets (the cycle collector counts
# them).
Edits = list[tuple[int, int, Any]]
Remade = list[tuple[FrozenDict, FrozenDict | None, Edits]]
REMADE: ByIdentity[tuple[Remade, dict[int, Any]]] = ByIdentity(16)


def edited(values: list[T], edits: Edits, make: Callable[[Any], T]) -> list[T]:
    """`values`, made of a list's items one each, as a new list with that list's `edits` applied: the value of
    each item put there made by `make`."""
    values = [*values]
    for place, out, item in edits:
        values[place:place + out] = () if item is None else (make(item),)
    return values
