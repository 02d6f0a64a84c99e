"""Many tiny helpers."""


def one():
    return 1


def two():
    return 2


def three():
    return 3


class Box:
    def get(self):
        return self.v

    def set(self, v):
        self.v = v

    def describe(self):
        """A longer method, well over the minimum size used by the test."""
        parts = []
        for name in ("alpha", "beta", "gamma", "delta"):
            parts.append(name.upper())
        return ", ".join(parts)

    def clear(self):
        self.v = None
