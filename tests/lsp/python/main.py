from greet import greet


def main() -> None:
    print(greet("world"))
