"""CRLF line endings."""
import os


# Joins paths.
def join(a, b):
    return os.path.join(a, b)


class Walker:
    def walk(self, root):
        for entry in os.scandir(root):
            yield entry
