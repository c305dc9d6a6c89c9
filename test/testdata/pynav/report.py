"""Reports that call total from two places."""

from shapes import Circle, Shape, Square, total


def report(shapes: list[Shape]) -> str:
    """Describe the total area of shapes."""
    greeting = "héllo 😀"; n = total(shapes)
    return f"{greeting} {n:.2f}"


def summary() -> float:
    """The total area of a unit circle and a square of side 2."""
    return total([Square(2), Circle(1)])
