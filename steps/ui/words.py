"""What every step's words are made of, without Panel: provenance badges, number cards, the
question's and the player's fixed labels, and the blocks of text a page is written in.

A block is a small JSON-serialisable dict that the browser draws with `textContent` (see
`steps/ui/js/blocks.js`); only `html` blocks carry markup, and those come from the autoescaped
templates in `render`. The shapes are named in `steps/ui/state.py`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jinja2

from explainer.i18n import N_, Translator

from .state import (Badges, Block, CardState, DetailsBlock, HtmlBlock, LegendBlock, MetricsBlock,
                    NoticesBlock, ParagraphsBlock, PlayerText, TableBlock)

STEPS_DIR = Path(__file__).resolve().parent.parent

# one template environment for the whole app: the kit's templates and each step's own folder
TEMPLATES = jinja2.Environment(
    loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(STEPS_DIR / "ui" / "templates")] + [
        jinja2.PrefixLoader({p.parent.name: jinja2.FileSystemLoader(p)})
        for p in sorted(STEPS_DIR.glob("*/templates")) if p.parent.name != "ui"]),
    autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render(template: str, **context) -> str:
    """An autoescaped template: `"faq.html.j2"` from the kit, `"step6/bars.html.j2"` from a
    step's own folder."""
    return TEMPLATES.get_template(template).render(**context)


# provenance badges: label and tooltip (msgids, translated by `badges`)
BADGES = {
    "measured": (N_("measured"), N_("Measured on this server by the live model")),
    "computed": (N_("computed"), N_("Computed from a formula on the named model configuration")),
    "illustrative": (N_("illustrative"), N_("Illustrative: not measured, not exact")),
}
KINDS = tuple(BADGES)


def badges(tr: Translator) -> Badges:
    """{kind: [label, tooltip]} in the session's language."""
    return {k: [tr._(label), tr._(tip)] for k, (label, tip) in BADGES.items()}


@dataclass(frozen=True)
class Card:
    """One number card: `key` is the data-metric hook, `label` a msgid, `kind` the badge
    (None for inputs and categories: badges go on results only). `hidden`: the card answers
    the step's question, so its value waits until the learner has answered: the state sends
    it as “?” until then (`steps.ui.conceal`). `more`: not a headline number: shown under a
    collapsed “All numbers”."""
    key: str
    label: str
    kind: str | None = "computed"
    hidden: bool = False
    more: bool = False


def card_dicts(specs, values: dict, tr: Translator,
               labels: dict | None = None) -> list[CardState]:
    """Specs + {key: formatted value} -> the cards the browser draws. `labels` overrides a
    spec's label with an already translated text (labels with numbers)."""
    labels = labels or {}
    return [dict(key=c.key, label=labels.get(c.key) or tr._(c.label), value=values[c.key],
                 kind=c.kind, hidden=c.hidden, more=c.more) for c in specs if c.key in values]


def question_labels(tr: Translator) -> dict:
    """The question's fixed words in the session's language."""
    return dict(lead=tr._("Predict first"), right=tr._("Right."), wrong=tr._("Not quite."),
                show=tr._("Show me"), mark=tr._("the right answer"))


def player_text(tr: Translator) -> PlayerText:
    """The player's labels (shared by every stage)."""
    return dict(reset=tr._("Reset"), back=tr._("Step back"), next=tr._("Step forward"),
                play=tr._("Play"), pause=tr._("Pause"), table=tr._("Show as table"),
                more=tr._("All numbers"), badges=badges(tr),
                screen=tr._("Chart {i} of {n}", i="{i}", n="{n}"),
                next_screen=tr._("Next chart"), prev_screen=tr._("Previous chart"))


# -- blocks: the browser draws each kind (steps/ui/js/blocks.js) -------------------------------

def paragraphs(items: list[str], heading: str = "", cls: str = "") -> ParagraphsBlock:
    """Paragraphs of plain text under an optional heading."""
    return {"kind": "paragraphs", "items": list(items), "heading": heading, "cls": cls}


def notices(items: list[str], cls: str = "") -> NoticesBlock:
    """Short notices (announced politely to screen readers)."""
    return {"kind": "notices", "items": list(items), "cls": cls}


def legend(items: list[tuple[str, str]], cls: str = "") -> LegendBlock:
    """Colour chips with their names: items are (palette key, label)."""
    return {"kind": "legend", "items": [list(i) for i in items], "cls": cls}


def metrics(cards: list[CardState], label: str = "", cls: str = "") -> MetricsBlock:
    """A row of number cards; answer-bearing ones show “?” until the question is answered."""
    return {"kind": "metrics", "cards": list(cards), "label": label, "cls": cls}


def table(head: list[str], rows: list[list[str]], caption: str = "",
          cls: str = "") -> TableBlock:
    return {"kind": "table", "head": list(head), "rows": [list(r) for r in rows],
            "caption": caption, "cls": cls}


def details(summary: str, blocks: list[Block], cls: str = "") -> DetailsBlock:
    """A collapsed section: its summary, and blocks inside."""
    return {"kind": "details", "summary": summary, "blocks": list(blocks), "cls": cls}


# the collapsed “Go deeper” sections: every step has the ones it has content for, always in
# this order and under these titles (derivations; the live model's details and the caveats of
# its measurements; papers and real systems)
DEEPER = (("why", N_("Go deeper: why it works")),
          ("live", N_("Go deeper: the live model")),
          ("literature", N_("Go deeper: in the literature")))


def deeper(tr: Translator, **sections) -> list[DetailsBlock]:
    """The “Go deeper” sections of a step, collapsed: `sections` maps a name of DEEPER to its
    blocks (a plain string is a paragraph of the class "narration"). A section with nothing in
    it is left out; the rest come in DEEPER's order."""
    unknown = set(sections) - {name for name, _ in DEEPER}
    assert not unknown, f"unknown Go deeper sections: {sorted(unknown)}"
    out = []
    for name, title in DEEPER:
        blocks = [paragraphs([b], cls="narration") if isinstance(b, str) else b
                  for b in sections.get(name) or () if b]
        blocks = [b for b in blocks if b.get("kind") != "paragraphs" or any(b["items"])]
        if blocks:
            out.append(details(tr._(title), blocks, cls=f"deeper deeper-{name}"))
    return out


def html(template: str, cls: str = "", **context) -> HtmlBlock:
    """Markup from an autoescaped template (`render`)."""
    return {"kind": "html", "html": render(template, **context), "cls": cls}


def lead(sentence: str) -> ParagraphsBlock:
    """The step's lead sentence (the `lead` region)."""
    return paragraphs([sentence], cls="step-lead")


def part_title(title: str) -> ParagraphsBlock:
    """A step in parts: the part's title (the `part` region; projected, it stands for the
    step's lead)."""
    return paragraphs([], heading=title, cls="part-title")
