"""After the last step: the key ideas of the course on one printable page (`?step=end`).
Below, its speaker notes (what the lecturer says aloud; steps/registry.py `notes`)."""
from explainer.i18n import N_

NOTES = N_("Sum up with the key ideas on this page. Ask someone to explain in one sentence why "
           "decoding with a cache waits on memory, and hand out the printed page.")
MINUTES = 5            # about how long a 90-minute lecture spends here (the speaker's clock)


def __getattr__(name):
    if name == "KeyIdeas":
        from .view import KeyIdeas
        return KeyIdeas
    raise AttributeError(name)
