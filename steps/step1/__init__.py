"""Step 1 — One token at a time: every new query reads all earlier keys.

model.py holds the numbers (one cached live run; its real attention), text.py the words,
view.py binds them; the player runs in the browser over frames computed once. The view is
imported on first use, so that the model can be used (and tested) without Panel.

Below, what steps/registry.py reads of it: the title, the takeaway (the key-ideas page), the
speaker notes (what the lecturer says aloud), the parts of the heading's schematic it is about,
and that the warm-up builds its played frames (`view.warm`). Its exercises are in
exercises.py."""
from explainer.i18n import N_

TITLE = N_("One token at a time")
TAKEAWAY = N_(
    "A decoder writes one token per forward pass. The newest token's query is scored "
    "against the key of every earlier token and its own, and the values are mixed by those "
    "scores.")
NOTES = N_("Ask the question first and let the room vote before anything moves. Then add one "
           "token at a time with PageDown and point at the arcs: the newest token's "
           "query reads the key of every earlier token and its own. The earlier keys come from "
           "the cache; a token never looks ahead, so they never change.")
MINUTES = 10            # about how long a 90-minute lecture spends here (the speaker's clock)
HIGHLIGHT = ("q", "cache", "attn")
WARM_FRAMES = True


def __getattr__(name):
    if name == "Step1":
        from .view import Step1
        return Step1
    raise AttributeError(name)
