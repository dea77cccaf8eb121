"""A very secure vault."""

_DATA = [89, 94, 95, 78, 67, 69, 81, 88, 79, 75, 78, 117, 94, 66, 79, 117, 89, 69, 95, 88, 73, 79, 117, 70, 95, 65, 79, 87]
_KEY = 42


def reveal():
    return bytes(b ^ _KEY for b in _DATA).decode()


def check(password):
    return False


if __name__ == "__main__":
    import sys
    if check(sys.argv[1] if len(sys.argv) > 1 else ""):
        print(reveal())
    else:
        print("Access denied.")
