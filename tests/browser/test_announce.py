"""Every control says what it changed, in the controls' live region (`.ctl-say`, polite): the
control and its new value, then the number cards on screen that changed with it, once the
server has handled the move (steps/ui/js/controls.js). On the served app: every control of
every step and part, moved once; on the bundle: a run of key presses said once, numbers
written as the server writes them (Polish “4 096”)."""
import pytest
from babel.numbers import format_decimal
from playwright.sync_api import expect

PAGES = ["?step=1", "?step=2", "?step=3", "?step=4", "?step=5", "?step=6&part=a",
         "?step=6&part=c", "?step=6&part=d"]
TYPED = "the capital of Poland is Warsaw and the capital of France is"


def move(page, name: str, kind: str) -> None:
    """Move control `name` once: a slider one step (back at its end), the next option of a
    menu, another radio button, a prompt typed and sent with Enter."""
    ctl = page.locator(f'.step .ctl-row > [data-control="{name}"]').first
    if kind == "range":
        r = ctl.locator("input[type=range]")
        at_end = r.evaluate("(e) => Number(e.value) >= Number(e.max)")
        r.focus()
        page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
    elif kind == "select":
        s = ctl.locator("select")
        n, i = s.evaluate("(e) => [e.options.length, e.selectedIndex]")
        s.select_option(index=(i + 1) % n)
    elif kind == "radio":
        ctl.locator("label.ctl-segment:not(.checked)").first.click()
    else:
        t = ctl.locator("input[type=text]")
        t.fill(TYPED)
        t.press("Enter")


@pytest.mark.parametrize("query", PAGES)
def test_every_control_says_what_it_changed(app, query):
    page = app(query + "&lang=en")
    expect(page.locator(".step .ctl-row > .ctl").first).to_be_visible(timeout=30_000)
    page.wait_for_timeout(1500)                    # the first state and its live values
    controls = page.evaluate("() => KVT.announce.controls()")
    assert controls, query
    for name, kind, label in controls:
        page.evaluate("() => KVT.announce.watch()")
        move(page, name, kind)
        page.wait_for_function("() => KVT.announce.said()", timeout=30_000)
        rec = page.evaluate("() => KVT.announce.record()")
        assert rec["role"] == "status" and rec["live"] == "polite"
        said = rec["after"]
        assert said != rec["before"] and said.startswith(label + ": "), (name, said)
        changed = {k: v for k, v in rec["at"].items() if rec["cards"].get(k) != v}
        for key, (card_label, value) in changed.items():      # a table's cell: its value
            assert (f"{card_label}: {value}" if card_label else value) in said, \
                (name, key, value, said)
        page.wait_for_timeout(300)


CONFIG = ('{"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32, '
          '"num_key_value_heads": 8, "hidden_size": 4096, "max_position_embeddings": 8192, '
          '"torch_dtype": "bfloat16", "vocab_size": 128256, "intermediate_size": 14336}')


def test_reading_your_model_says_what_it_changed(app):
    """Step 5's “your model” box: Read is a control too; its live region says the numbers on
    screen that the config changed."""
    page = app("?step=5&model=custom&lang=en")
    area = page.locator(".your-model textarea")
    expect(area).to_be_visible(timeout=30_000)
    page.wait_for_timeout(1000)
    page.evaluate("() => KVT.announce.watch('.config-say')")
    area.fill(CONFIG)
    page.locator(".your-model .config-params").fill("8")
    page.locator(".your-model .config-read").click()
    page.wait_for_function("() => KVT.announce.said()", timeout=30_000)
    rec = page.evaluate("() => KVT.announce.record()")
    assert rec["role"] == "status" and rec["live"] == "polite"
    changed = {k: v for k, v in rec["at"].items() if rec["cards"].get(k) != v}
    assert changed, rec
    for key, (label, value) in changed.items():
        assert (f"{label}: {value}" if label else value) in rec["after"], (key, rec["after"])


def test_a_slider_writes_its_number_as_the_words_do(app):
    """Polish: the slider's 4 096 as the text's 4 096 (not the browser's own “4096”)."""
    page = app("?step=5&lang=pl")
    out = page.locator(".ctl-context output")
    expect(out).to_have_text(format_decimal(4096, locale="pl"))
    assert page.locator(".ctl-context input[type=range]").get_attribute(
        "aria-valuetext") == format_decimal(4096, locale="pl")


def test_a_run_of_changes_is_said_once_with_the_cards_it_changed(kv):
    got = kv.evaluate("() => KVT.announce.saysWhatAChangeDid()")
    nb = "\u00a0"
    assert got["out"] == f"4{nb}096"                     # as Babel writes it in Polish
    assert got["role"] == "status" and got["live"] == "polite"
    assert got["early"] == 0                             # the last press not handled yet
    assert got["said"][0] == f"Kontekst (tokeny): 4{nb}864. Prefill time: 25 ms"   # not 140
    assert got["said"][1:] == ["GPU: Karta B"]           # no card changed with it
    assert len(got["said"]) == 2
