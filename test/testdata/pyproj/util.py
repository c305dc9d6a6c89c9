def helper(x: int) -> int:
    return x + 1
