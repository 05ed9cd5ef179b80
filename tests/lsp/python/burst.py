def burst() -> int:
    return 1
