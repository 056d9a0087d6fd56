"""PerWorld: one value per key, built once, the oldest key dropped past the limit."""

from searchgym.per_world import PerWorld


def test_one_value_per_key_built_once_and_the_oldest_dropped_past_the_limit():
    built = []
    memo = PerWorld(lambda key: built.append(key) or [key], limit=2)
    first = memo.get("a")
    assert memo.get("a") is first and built == ["a"]
    memo.get("b")
    memo.get("c")  # a third key drops the oldest, "a"
    assert built == ["a", "b", "c"] and memo.values() == [["b"], ["c"]]
    assert memo.get("a") is not first and built[-1] == "a"
