import os


def broken(x):
    return x + * 2


class Fine:
    def ok(self):
        return 1


value = [1, 2,
