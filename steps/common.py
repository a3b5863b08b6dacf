"""What every step shares: the session state (step, language, page mode), the step titles
and one translator per language. The component kit is in `steps/ui/`."""
from __future__ import annotations

from functools import lru_cache

import param

from explainer.i18n import LANGS, N_, Translator

STEP_TITLES = (
    N_("One token at a time"),
    N_("Wasted work"),
    N_("Storing keys and values"),
    N_("Prefill vs decode"),
    N_("The memory bill"),
    N_("Shrinking the cache"),
)


@lru_cache(maxsize=None)
def translator(lang: str) -> Translator:
    """Translators are immutable: one per language, shared by the sessions that use it."""
    return Translator(lang)


END = 7                                  # the key-ideas page after step 6 (`?step=end`)
END_TITLE = N_("Key ideas")


class AppState(param.Parameterized):
    """One per session: the current step and language (both synced with the URL), and the
    page mode (embedded in a course page, or presented in a lecture hall)."""

    step = param.Integer(default=1, bounds=(1, END))
    embed = param.Boolean(default=False)
    present = param.Boolean(default=False)
    lang = param.Selector(default="en", objects=list(LANGS))

    @property
    def tr(self) -> Translator:
        return translator(self.lang)
