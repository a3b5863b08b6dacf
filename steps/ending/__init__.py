"""After the last step: the key ideas of the course on one printable page (`?step=end`)."""


def __getattr__(name):
    if name == "KeyIdeas":
        from .view import KeyIdeas
        return KeyIdeas
    raise AttributeError(name)
