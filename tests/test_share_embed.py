"""Sharing a view and the figure-only embed, without a browser or Panel: the copy link's URL
(the page's query without the page modes, as `shell.js` `shareUrl` makes it) restores the
view it was copied from, in every step; the answer is never in it; `embed=1&figure=1` and what
the shell and the step send in that mode."""
from urllib.parse import parse_qs, urlencode

import pytest

from steps.registry import END
from steps.shell import FLAGS, App
from steps.ui.state import check_page, check_shell


def q(**kw):
    return {k: [str(v).encode()] for k, v in kw.items()}


def shared_link(app: App) -> str:
    """The copy link's query: the page's query without the page modes (shell.js shareUrl,
    told them by the shell's state)."""
    modes = app.shell_state()["link"]["modes"]
    assert set(modes) == {*FLAGS, "controls"}           # an embed's `controls=` too
    kept = [(k, v) for k, vs in parse_qs(app.url_query()[1:]).items() for v in vs
            if k not in modes]
    return "?" + urlencode(kept)


def opened(link: str) -> App:
    """A new session opened at `link`, as the server reads a page's query."""
    return App(query={k: [v.encode() for v in vs] for k, vs in parse_qs(link[1:]).items()})


def view(app: App) -> dict:
    """What a learner sees of a view: step, language, every control and the playhead."""
    s = app.step.state()
    return {"step": app.app_state.step, "lang": app.app_state.lang, "values": s["values"],
            "frame": s["frame"], "tabs": s["tabs"], "number": s["number"],
            "stage": s["stage"] and s["stage"]["figure"], "query": app.url_query()}


# every step away from its defaults: controls, part and playhead
VIEWS = [dict(step=1, lang="pl", example=2, frame=4, layer=2, head=3),
         dict(step=1, text="the cat sat", frame=2),
         dict(step=2, lang="nl", tokens=40, prompt=9),
         dict(step=3, lang="id", example=1, frame=3, layer=2, head=2),
         dict(step=4, prompt=2048, output=64, gpu="h100", model="mistral-7b", batch=8),
         dict(step=5, context=16384, batch=4, model="qwen2.5-7b", gpu="h200"),
         dict(step=5, model="custom",
              custom="layers-32_heads-32_kv-8_hd-128_ctx-131072_params-8030261248"),
         dict(step=5, part="a", model="custom",
              custom="layers-32_heads-32_kv-8_hd-128_ctx-131072_params-8030261248"),
         dict(step=5, part="b", gpu="l4", gpus=2, share=80, precision="fp8", weights="int4"),
         dict(step=6, part="a", heads=8, precision="int4", window=4096),
         dict(step=6, part="b", frame=3),
         dict(step=6, part="c", heads=1, precision="int8", lang="nl"),
         dict(step="end", lang="pl")]


@pytest.mark.parametrize("kw", VIEWS, ids=lambda kw: "-".join(f"{k}{v}" for k, v in kw.items()))
def test_the_copy_link_restores_the_view(kw):
    app = App(query=q(**kw))
    assert app.view_model()["notices"] == [], app.view_model()["notices"]
    again = opened(shared_link(app))
    try:
        assert again.view_model()["notices"] == []
        assert view(again) == view(app)
        check_page(again.state())
    finally:
        app.step.close()
        again.step.close()


def test_the_link_carries_part_and_playhead_of_every_step_that_has_them():
    """Steps 5 and 6's part, and the frame of every step with a player, are in the link; the
    shell names the parameter that follows the player (the copy link moves it while
    playing)."""
    expected = {1: "frame", 2: "tokens", 3: "frame", 4: None, 5: None, 6: "frame", END: None}
    for n, name in expected.items():
        app = App(query=q(step="end" if n == END else n))
        link = parse_qs(app.url_query()[1:])
        assert app.shell_state()["link"]["frame"] == name, n
        if name:
            assert name in link, n
        if app.step.figure and app.step.player:
            assert name, f"step {n} plays but its link does not follow the player"
        if n in (5, 6):
            assert link["part"] == ["a"]
        app.step.close()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_the_answer_is_never_in_the_link(n):
    app = App(query=q(step=n))
    before = app.url_query()
    question = app.state()["question"]
    assert question is not None
    right = app.step.page(app.step.tr)["question"]["correct"]     # the server's: not sent yet
    app.handle({"answer": right})
    assert app.step.answer == right == app.state()["question"]["correct"]
    after = app.url_query()
    # the answer itself adds nothing; a step may move its figure to what the answer says
    # (then the link follows the figure), but no parameter names the answer
    names = set(parse_qs(after[1:]))
    assert not names & {"answer", "shown", "answered"}
    again = opened(shared_link(app))
    try:
        assert again.step.answer is None and not again.step.shown
        assert again.state()["concealed"] is True
    finally:
        app.step.close()
        again.step.close()
    assert before.startswith(f"?step={n}")


def test_figure_only_is_an_embed_mode_in_the_state_and_the_url():
    app = App(query=q(step=3, frame=3, embed=1, figure=1))
    st = app.app_state
    assert st.embed and st.figure and not st.present
    s = check_shell(app.shell_state())
    assert s["embed"] and s["figure"] and s["faq"] == "" and s["embed_bar"]
    page = check_page(app.state())
    assert page["question"] is None                 # the course page brings its own text
    assert page["concealed"] is False               # nothing waits for an answer
    assert page["frame"] == 3 and page["stage"]["figure"] == "cache"
    back = parse_qs(page["query"][1:])
    assert back["embed"] == ["1"] and back["figure"] == ["1"] and back["frame"] == ["3"]
    # figure=1 alone implies embed=1; a bad value is a notice
    alone = App(query=q(step=2, figure=1))
    assert alone.app_state.embed and alone.app_state.figure
    assert "embed=1" in alone.url_query()
    bad = App(query=q(step=2, figure="yes"))
    assert not bad.app_state.figure and len(bad.view_model()["notices"]) == 1
    # not figure-only: the question is there and waits
    plain = App(query=q(step=3, embed=1)).state()
    assert plain["question"] is not None and plain["concealed"] is True
    assert plain["shell"]["figure"] is False
    for a in (app, alone, bad):
        a.step.close()


def test_figure_only_keeps_nothing_hidden_through_moves_and_steps():
    """A move that asks a new question (step 6's precision) or a new step keeps every
    number shown: there is no question to answer."""
    app = App(query=q(step=6, embed=1, figure=1))
    assert app.state()["concealed"] is False
    app.handle({"set": "precision", "value": "int4", "seq": 1})
    assert app.state()["concealed"] is False and app.step.model.precision == "int4"
    app.handle({"goto": 1})
    page = app.state()
    assert page["concealed"] is False and page["question"] is None
    assert "figure=1" in page["query"]
    app.step.close()


@pytest.mark.parametrize("modes", [dict(embed=1, controls="tokens"), dict(embed=1),
                                   dict(present=1)])
def test_the_link_of_a_view_in_a_page_mode_opens_the_full_page(modes):
    app = App(query=q(step=2, tokens=40, **modes))
    link = shared_link(app)
    assert not set(parse_qs(link[1:])) & {*FLAGS, "controls"} and "tokens=40" in link
    again = opened(link)
    assert not any(getattr(again.app_state, m) for m in FLAGS)
    assert again.step.model.tokens == 40
    for a in (app, again):
        a.step.close()


def test_the_copy_links_words_are_translated():
    words = {lang: App(query=q(step=1, lang=lang)).shell_state()["link"]
             for lang in ("en", "id", "pl", "nl")}
    assert words["en"]["label"] == "Copy link" and words["en"]["done"] == "Link copied"
    for lang in ("id", "pl", "nl"):
        for key in ("label", "done", "field", "manual"):
            assert words[lang][key] and words[lang][key] != words["en"][key], (lang, key)
        assert "Ctrl+C" in words[lang]["manual"]


def shown_controls(app) -> list[str]:
    return [c["name"] for c in app.state()["controls"] if not c.get("hidden")]


@pytest.mark.parametrize("n, main", [(1, ["example", "head"]), (2, ["tokens", "prompt"]),
                                     (3, ["example", "head"]), (4, ["batch", "model"]),
                                     (5, ["context", "batch"])])
def test_a_figure_only_embed_shows_two_main_controls_and_no_copy_link(n, main):
    app = App(query={"step": str(n), "figure": "1"})
    assert shown_controls(app) == main
    assert app.state()["shell"]["link"] is None                  # the course page links
    check_shell(app.state()["shell"])
    full = App(query={"step": str(n), "embed": "1"})              # a whole embed: all of them
    assert len(shown_controls(full)) >= 2 and full.state()["shell"]["link"]


def test_a_course_page_chooses_the_controls_by_their_link_names():
    app = App(query={"step": "6", "part": "a", "figure": "1", "controls": "precision, heads"})
    assert shown_controls(app) == ["kv_heads", "precision"]       # in the step's order
    assert "controls=precision%2C+heads" in app.url_query() or \
        parse_qs(app.url_query()[1:])["controls"] == ["precision, heads"]
    app.handle({"set": "precision", "value": "int8", "seq": 1})   # a move keeps the choice
    assert shown_controls(app) == ["kv_heads", "precision"]
    whole = App(query={"step": "5", "embed": "1", "controls": "batch"})
    assert shown_controls(whole) == ["batch"] and not whole.state()["shell"]["notices"]


def test_a_control_the_step_does_not_have_is_left_out_with_a_notice():
    app = App(query={"step": "4", "figure": "1", "controls": "batch,<b>nope</b>",
                     "lang": "pl"})
    assert shown_controls(app) == ["batch"]
    notices = app.state()["shell"]["notices"]
    assert len(notices) == 1 and "<b>nope</b>" in notices[0] and "Ten krok" in notices[0]
    page = App(query={"step": "4", "controls": "batch"})          # not embedded: every control
    assert len(shown_controls(page)) == 5
