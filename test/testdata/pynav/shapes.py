"""Shapes with exact answers for navigation tests."""

import math


class Shape:
    """Anything with an area."""

    def area(self) -> float:
        raise NotImplementedError


class Square(Shape):
    """A square with a side."""

    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


class Circle(Shape):
    """A circle with a radius."""

    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return math.pi * self.radius * self.radius


def total(shapes: list[Shape]) -> float:
    """Add up the areas of shapes."""
    return sum(s.area() for s in shapes)
