"""The page's JavaScript, unit by unit, in headless Chromium (no server): every module loads
(syntax), the player's state machine, the frames as the server writes them,
the blocks, controls and question, and every figure renderer on the frames the steps' presenters
build, in every language, at a phone's width and a projector's, with no two text boxes of a
figure overlapping."""
from __future__ import annotations

import json

import pytest

from explainer.i18n import LANGS
from steps.registry import NUMBERS
from steps.ui import bundle
from steps.ui.frames import frames_json

APP_CSS = (bundle.JS.parents[2] / "assets" / "app.css").read_text(encoding="utf-8")
PAGE = "<!doctype html><html><head><meta charset='utf-8'></head><body><div id='root' style='width:760px'></div></body></html>"


@pytest.fixture(scope="module")
def kv(browser):
    """A page with every module of steps/ui/js loaded (`globalThis.KV[path]`)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content(PAGE)
    page.add_style_tag(content=APP_CSS)         # labels at the sizes learners see
    page.add_script_tag(content=bundle.source(exposing=True), type="module")
    page.wait_for_function("() => globalThis.KV !== undefined")
    assert errors == []
    yield page
    ctx.close()


def test_every_module_is_in_the_bundle():
    reached = {p.relative_to(bundle.JS).as_posix() for p in bundle.modules()}
    on_disk = {p.relative_to(bundle.JS).as_posix() for p in bundle.JS.rglob("*.js")
               if "dist" not in p.parts}
    assert reached == on_disk, "modules nothing imports: " + ", ".join(sorted(on_disk - reached))


def test_the_bundle_exports_render(kv):
    text = bundle.source()
    assert text.rstrip().endswith("export const render = $page.render;")


def test_player_plays_steps_and_settles_only_when_it_stops(kv):
    log = kv.evaluate("""() => {
      const { createPlayer } = KV["player.js"];
      const out = [], settled = [];
      let tick = null;
      const p = createPlayer({ count: 4, index: 0, interval: 10,
        every: (ms, fn) => { tick = fn; return () => { tick = null; }; },
        show: () => out.push(p.index), settle: (i) => settled.push(i) });
      p.play(); tick(); tick();            // 0 -> 1 -> 2, no settle while playing
      const mid = settled.length;
      tick();                              // reaches the last frame: stops and settles
      const playingAtEnd = p.playing;
      p.play();                            // Play at the end starts over
      const restarted = p.index;
      p.toggle();                          // pause: settles
      p.step(-1); p.step(5); p.reset();
      p.setCount(2); p.moveTo(9);
      return { out, settled, mid, playingAtEnd, restarted, last: p.index };
    }""")
    assert log["mid"] == 0
    assert log["playingAtEnd"] is False
    assert log["restarted"] == 0
    assert log["settled"] == [3, 0, 0, 3, 0]
    assert log["last"] == 1


def test_the_stage_reads_the_frames_the_server_writes(kv):
    frames = [{"pos": f"Token {i}", "cards": [{"key": "a", "label": "Sequence length",
                                               "value": str(i)}], "fig": {"rows": [[j] for j in range(i)]}}
              for i in range(6)]
    assert kv.evaluate("(t) => KV['stage.js'].parseFrames(t)", frames_json(frames)) == frames
    assert kv.evaluate("(t) => KV['stage.js'].parseFrames(t)", "") == []


def test_blocks_escape_text_and_fill_slots(kv):
    html = kv.evaluate("""() => {
      const root = document.getElementById("root");
      const slot = document.createElement("i"); slot.className = "the-slot";
      KV["blocks.js"].drawBlocks(root, [
        { kind: "paragraphs", items: ["<b>not bold</b>"], heading: "H", cls: "narration" },
        { kind: "notices", items: [] },
        { kind: "slot", name: "question" },
        { kind: "metrics", cards: [{ key: "k", label: "L", value: "42", kind: "measured",
                                     hidden: true, more: false }] },
        { kind: "details", summary: "More", blocks: [{ kind: "table", head: ["a", "b"],
                                                        rows: [["1", "2"]], caption: "" }] },
      ], { concealed: true, badges: { measured: ["measured", "tip"] },
           slots: { question: slot } });
      return root.innerHTML;
    }""")
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html
    assert 'class="the-slot"' in html
    assert 'data-metric="k"' in html and ">?<" in html and "42" not in html
    assert "notice" not in html            # an empty block leaves nothing
    assert ">More</summary>" in html and "<th scope=\"row\">1</th>" in html


def test_controls_send_one_message_per_change(kv):
    sent = kv.evaluate("""() => {
      const sent = [];
      const c = KV["controls.js"].createControls((m) => sent.push(m));
      document.getElementById("root").replaceChildren(c.el);
      const spec = [{ name: "layer", kind: "select", label: "Layer", options: [[0, "All"], [2, "Two"]] },
                    { name: "tokens", kind: "range", label: "T", start: 1, end: 64, step: 1 }];
      c.update(spec, { layer: 0, tokens: 16 }, "pl");
      const s = c.el.querySelector("select");
      s.selectedIndex = 1; s.dispatchEvent(new Event("change"));
      const r = c.el.querySelector("input[type=range]");
      r.value = "64"; r.dispatchEvent(new Event("input")); r.dispatchEvent(new Event("change"));
      // an older value from the server does not move the control back while a change waits
      c.update(spec, { layer: 0, tokens: 16 }, "pl", { layer: sent[0].seq });
      const waiting = r.value;
      // once the server has handled it, the control shows the server's value (here: snapped)
      c.update(spec, { layer: 2, tokens: 60 }, "pl", { layer: sent[0].seq, tokens: sent[1].seq });
      return { sent, shown: waiting, out: c.el.querySelector("output").textContent,
               handled: r.value };
    }""")
    assert [m["set"] for m in sent["sent"]] == ["layer", "tokens"]
    assert sent["sent"][0]["value"] == 2 and sent["sent"][1]["value"] == 64
    assert sent["sent"][1]["seq"] > sent["sent"][0]["seq"]
    assert sent["shown"] == "64"
    assert sent["handled"] == "60" and sent["out"] == "60"


def test_question_marks_the_pick_and_sends_it(kv):
    got = kv.evaluate("""() => {
      const sent = [];
      const q = KV["question.js"].createQuestion((m) => sent.push(m));
      document.getElementById("root").replaceChildren(q.el);
      const state = { key: ["k", 1], lead: "Predict first", prompt: "How many?",
                      options: ["1", "5", "6"], correct: 2, explain: "Six.", right: "Right.",
                      wrong: "Not quite.", show: "Show me", answer: null, shown: false };
      q.update(state);
      const before = q.el.querySelector(".feedback").textContent;
      q.el.querySelectorAll(".answer button")[1].click();
      const after = q.el.querySelector(".feedback").textContent;
      const wrong = q.el.querySelector(".answer-1 button").className;
      q.update({ ...state, key: ["k", 2] });          // a new question asks again
      return { sent, before, after, wrong, again: q.el.querySelector(".feedback").textContent };
    }""")
    assert got["sent"] == [{"answer": 1}]
    assert got["before"] == "" and got["after"] == "Not quite. Six."
    assert "q-wrong" in got["wrong"]
    assert got["again"] == ""


OVERLAPS = """([stage, frames, width]) => {
  const F = KV["stage.js"].parseFrames(frames);
  const fig = KV["figures.js"].FIGURES[stage.figure];
  const holder = document.createElement("div");
  holder.style.width = width + "px";
  document.getElementById("root").replaceChildren(holder);
  const bad = [];
  F.forEach((f, i) => {
    for (const concealed of [true, false]) {
      const ctx = { text: stage.text, index: i, count: F.length, reduced: true, concealed,
                    badges: stage.text.badges };
      fig.draw(holder, f.fig || {}, ctx);
      const boxes = [...holder.querySelectorAll("text")]
        .filter((t) => t.textContent.trim() && t.getBoundingClientRect().width > 0)
        .map((t) => [t.textContent, t.getBoundingClientRect()]);
      for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
        const [ta, A] = boxes[a], [tb, B] = boxes[b];
        const w = Math.min(A.right, B.right) - Math.max(A.left, B.left);
        const h = Math.min(A.bottom, B.bottom) - Math.max(A.top, B.top);
        if (w > 1 && h > 1) bad.push(`frame ${i}: “${ta}” × “${tb}”`);
      }
    }
  });
  return [...new Set(bad)];
}"""


@pytest.mark.parametrize("width", [360, 760])
@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("n", NUMBERS)
def test_figures_draw_every_frame_without_overlapping_labels(kv, n, lang, width):
    """Each step's stage at its defaults, as the presenter builds it, concealed and not."""
    from steps.shell import step_class
    s = step_class(n)(lang).state()
    if not s["stage"]:
        pytest.skip("no stage")
    bad = kv.evaluate(OVERLAPS, [s["stage"], s["frames"], width])
    assert bad == [], "\n".join(bad[:12])
