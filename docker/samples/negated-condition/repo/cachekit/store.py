"""A small in-memory store whose entries expire a fixed time after they are set."""
import time


class TTLStore:
    """Keys mapped to values, each kept for `ttl` seconds of `clock` time."""

    def __init__(self, ttl, clock=time.monotonic):
        self.ttl = ttl
        self._clock = clock
        self._entries = {}

    def set(self, key, value):
        self._entries[key] = (value, self._clock() + self.ttl)

    def has(self, key):
        """Whether `key` holds a value that has not expired yet."""
        entry = self._entries.get(key)
        return entry is not None and entry[1] > self._clock()

    def get(self, key):
        """The value of `key`; KeyError when it is missing or has expired."""
        if not self.has(key):
            raise KeyError(key)
        return self._entries[key][0]

    def purge(self):
        """Drop the expired entries; returns how many were dropped."""
        expired = [key for key in self._entries if not self.has(key)]
        for key in expired:
            del self._entries[key]
        return len(expired)
