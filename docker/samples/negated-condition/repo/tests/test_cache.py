"""Checks of keys, the expiring store and the caching loader."""
import pytest

from cachekit import CachedLoader, TTLStore, make_key


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_make_key():
    assert make_key("user", 7) == "user:7"
    with pytest.raises(ValueError):
        make_key()


def test_store_set_and_get():
    store = TTLStore(ttl=10, clock=FakeClock())
    store.set("a", 1)
    assert store.has("a")
    assert store.get("a") == 1


def test_store_entries_expire():
    clock = FakeClock()
    store = TTLStore(ttl=10, clock=clock)
    store.set("a", 1)
    clock.now += 10
    assert not store.has("a")
    with pytest.raises(KeyError):
        store.get("a")
    assert store.purge() == 1


def test_loader_fetches_once_then_hits():
    calls = []
    loader = CachedLoader(lambda *parts: calls.append(parts) or len(calls), ttl=30, clock=FakeClock())
    assert loader.load("user", 7) == 1
    assert loader.load("user", 7) == 1
    assert calls == [("user", 7)]
    assert (loader.hits, loader.misses) == (1, 1)


def test_loader_fetches_again_after_expiry():
    clock = FakeClock()
    loader = CachedLoader(lambda name: name.upper(), ttl=5, clock=clock)
    assert loader.load("ann") == "ANN"
    clock.now += 6
    assert loader.load("ann") == "ANN"
    assert loader.misses == 2
