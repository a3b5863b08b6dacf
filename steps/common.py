"""What every step shares: the session state (step, language, page mode), the step titles
and one translator per language. The component kit is in `steps/ui/`; the steps themselves
are listed in `steps/registry.py` (STEP_TITLES, END and END_TITLE come from there)."""
from __future__ import annotations

from functools import lru_cache

import param

from explainer.i18n import LANGS, Translator

from .registry import END, END_TITLE, STEP_TITLES

__all__ = ["END", "END_TITLE", "STEP_TITLES", "AppState", "translator"]


@lru_cache(maxsize=None)
def translator(lang: str) -> Translator:
    """Translators are immutable: one per language, shared by the sessions that use it."""
    return Translator(lang)


class AppState(param.Parameterized):
    """One per session: the current step and language (both synced with the URL), and the
    page mode (embedded in a course page, or presented in a lecture hall; embedded with
    `figure`, only the figure, its controls and the lead sentence)."""

    step = param.Integer(default=1, bounds=(1, END))   # END: the key-ideas page
    embed = param.Boolean(default=False)
    figure = param.Boolean(default=False)              # figure-only (implies embed)
    present = param.Boolean(default=False)
    speaker = param.Boolean(default=False)             # presenter's speaker view (implies present)
    copy = param.Boolean(default=False)                # the projected page's copy in the speaker
                                                       # view (implies present)
    lang = param.Selector(default="en", objects=list(LANGS))

    @property
    def tr(self) -> Translator:
        return translator(self.lang)
