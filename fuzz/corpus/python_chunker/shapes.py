"""Shapes and their areas."""
import math

PI = math.pi


# Squares a number.
# Kept with its definition.
@functools.cache
@trace(level=2)
def square(x):
    """Return x squared."""
    return x * x


# Not attached: a blank line separates it from the class.

class Circle(Shape):
    """A circle."""

    sides = 0

    def __init__(self, r):
        self.r = r

    # Area of the circle.
    @property
    def area(self):
        return PI * self.r ** 2

    class Style:
        color = "red"

        def css(self):
            return "color: " + self.color


REGISTRY = {"circle": Circle}

if __name__ == "__main__":
    print(square(3))
