"""Step 5's controller without Panel: the state it gives the page (blocks, controls, the
question and what waits for it, the one still frame), its two parts (A, the bill: three
controls and four cards; B, planning a server: the planner, the precisions, the GPUs, your
model), the links that open part B, the learner's moves as messages, and the “your model”
box: one Read message with the text and the count, read again on request, never in the link,
kept across a visit, its words plain text in the session's language."""
import json

import pytest

from explainer.hfconfig import MAX_CONFIG_CHARS
from steps.shell import App
from steps.step5.model import CUSTOM
from steps.step5.view import Step5
from steps.ui.state import columns, check_page, check_step

LLAMA = ('{"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32, '
         '"num_key_value_heads": 8, "hidden_size": 4096, "intermediate_size": 14336, '
         '"vocab_size": 128256, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}')
FALCON = ('{"model_type": "falcon", "num_hidden_layers": 32, "num_attention_heads": 71, '
          '"multi_query": true, "hidden_size": 4544}')


def norm(s: str) -> str:
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def frame(state: dict) -> dict:
    frames = json.loads(state["frames"])
    assert len(frames) == 1                     # one still frame
    return frames[0]


def cards(state: dict) -> dict:
    return {c["key"]: c for c in frame(state)["cards"]}


def texts(blocks: list) -> str:
    out = []
    for b in blocks:
        out += [b.get("heading", "")] + list(b.get("items", []))
    return " ".join(str(t) for t in out)


def read(step, config, params_b=None):
    step.handle({"custom": {"config": config, "params_b": params_b}})


def shown(state: dict) -> list[str]:
    """The controls the page draws (those of the part shown)."""
    return [c["name"] for c in state["controls"] if not c.get("hidden")]


def part_b_cards(state: dict) -> dict:
    """Part B's cards (a region of their own: part B has no stage)."""
    block = next(b for b in columns(state)["right"] if b["kind"] == "metrics")
    return {c["key"]: c for c in block["cards"]}


def planner_blocks(state: dict) -> list:
    return [b for side in ("left", "right") for b in columns(state)[side]
            if b["kind"] == "html" and b["cls"] == "planner"]


PART_B = ["context", "model", "weights", "precision", "gpu", "gpus", "share"]

def test_the_state_of_the_default_page():
    step = Step5()
    s = check_step(step.state())
    assert s["number"] == 5 and "step-5" in s["classes"]
    assert "question" in [b["name"] for b in columns(s)["left"] if b["kind"] == "slot"]
    # no box of your own until "your model" is chosen
    assert [b["name"] for b in columns(s)["right"] if b["kind"] == "slot"] == ["controls", "stage"]
    classes = [b.get("cls") for b in columns(s)["left"] + columns(s)["right"] if b["kind"] != "slot"]
    assert {"step-lead", "live-facts", "narration", "deeper deeper-why", "deeper deeper-live",
            "formula-headline"} <= set(classes)
    live = next(b for b in columns(s)["left"] if b.get("cls") == "deeper deeper-live")["blocks"]
    assert [b["cls"] for b in live] == ["live-facts live-cache"]
    formula = next(b for b in columns(s)["right"] if b.get("cls") == "formula-headline")
    assert norm(formula["items"][0]) == "2 × 32 layers × 32 KV heads × 128 × 2 B = 512 KiB per token"
    assert formula["heading"] == "Cache formula"
    assert any(b["kind"] == "legend" for b in columns(s)["right"])
    assert "The live model on this server" in texts(live)
    assert [c["name"] for c in s["controls"]] == ["part", "context", "batch", "model",
                                                  "weights", "precision", "gpu", "gpus", "share"]
    # part A, the bill: a newcomer meets three controls; the rest are part B's
    assert shown(s) == ["context", "batch", "model"]
    assert s["tabs"] == {"name": "part", "label": "The memory bill", "active": "a",
                         "items": [["a", "A. The bill"], ["b", "B. Plan a server"]]}
    spec = {c["name"]: c for c in s["controls"]}
    assert spec["context"]["kind"] == "range" and spec["context"]["step"] == 256
    assert spec["gpu"]["label"] == "GPU for “how many fit”"
    assert CUSTOM not in [o[0] for o in spec["model"]["options"]]     # pasted in part B
    assert s["values"] == {"part": "a", "context": 4096, "batch": 1, "model": "llama2-7b",
                           "gpu": "a100-80", "gpus": 1, "share": 90, "precision": "fp16",
                           "weights": "released"}
    assert s["custom"] is None                          # the box waits for “your model”
    assert s["stage"]["figure"] == "bill" and s["stage"]["player"] is False
    assert s["stage"]["text"]["figure"] == "The memory bill"
    c = cards(s)
    assert norm(c["per_token"]["value"]) == "512 KiB" and norm(c["weights"]["value"]) == "13.5 GB"
    assert {"kv_cache", "total", "fits", "max_sequences", "live_measured", "live_formula",
            "live_weights"} <= set(c)
    # at most four cards shown; the rest under the collapsed “All numbers”
    assert [k for k, v in c.items() if not v["more"]] == ["kv_cache", "weights", "total",
                                                          "max_sequences"]
    assert planner_blocks(s) == [] and not s["part"]          # no planner, no part title
    assert step.url_state() == {"part": "a", "context": 4096, "batch": 1, "model": "llama2-7b",
                                "gpu": "a100-80", "gpus": 1, "share": 90, "custom": "",
                                "precision": "fp16", "weights": "released"}


def test_the_answer_waits_for_the_question():
    step = Step5()
    s = step.state()
    assert s["concealed"] and s["question"]["answer"] is None
    assert "13.5" in norm(s["question"]["prompt"])
    assert cards(s)["crossover"]["hidden"]              # “?” in the page until answered
    for junk in ({"answer": -1}, {"answer": 9}, {"answer": True}, {"answer": "1"},
                 {"shown": 1}):
        step.handle(junk)
        assert step.state()["concealed"]
    step.handle({"answer": 1})
    s = step.state()
    assert not s["concealed"] and s["question"]["answer"] == 1
    step.handle({"set": "model", "value": "llama3.1-8b", "seq": 1})
    s = step.state()                                    # a new question: hidden again
    assert s["concealed"] and s["question"]["answer"] is None


def test_the_controls_move_the_bill():
    step = Step5()
    step.handle({"set": "context", "value": 8192, "seq": 1})
    s = step.state()
    assert s["values"]["context"] == 8192
    assert norm(cards(s)["kv_cache"]["value"]) == "4.3 GB (4 GiB)"
    assert frame(s)["fig"]["curve"]["now"]["x"] == 8192
    step.handle({"set": "context", "value": 1000, "seq": 1})     # older than the last: dropped
    assert step.state()["values"]["context"] == 8192
    step.handle({"set": "context", "value": 8400, "seq": 2})     # snapped to the slider's step
    assert step.model.context == 8448
    step.handle({"set": "gpu", "value": "no-such-gpu", "seq": 1})
    step.handle({"set": "batch", "value": 8, "seq": 1})
    assert (step.model.gpu, step.model.batch) == ("a100-80", 8)
    step.lang = "pl"
    step.model.lang = "pl"
    assert norm(cards(step.state())["kv_cache"]["value"]) == "35,4 GB (33 GiB)"


def test_your_model_reads_a_config_in_one_message():
    step = Step5()
    step.handle({"set": "model", "value": CUSTOM, "seq": 1})
    assert step.model.part == "b"                       # its box is part B's
    s = step.state()
    box = s["custom"]
    assert box["widget"] == "config" and box["value"] == "" and box["params_value"] is None
    assert (box["label"], box["read"]) == ("config.json of your model", "Read this config")
    assert box["params_label"] == "Parameters in billions (if the config cannot give them)"
    assert box["placeholder"].startswith('{"num_hidden_layers": 32')
    assert box["max_length"] == MAX_CONFIG_CHARS + 1
    assert box["problems"] == [] and box["fields"] == []
    assert any("No model of yours yet" in n for b in columns(s)["left"] if b["kind"] == "notices"
               for n in b["items"])
    read(step, '{"num_hidden_layers": 3')
    box = step.state()["custom"]
    assert "not valid JSON" in box["problems"][0] and step.model.custom == ""
    read(step, LLAMA)
    s = step.state()
    box = s["custom"]
    assert box["problems"] == [] and box["value"] == LLAMA
    assert box["fields"][0].startswith("Read from your config.json")
    assert "131,072" in box["fields"][-1]
    assert step.model.custom.startswith("layers-32") and s["values"]["model"] == CUSTOM
    assert norm(part_b_cards(s)["per_token"]["value"]) == "128 KiB"
    assert "custom" in step.url_state() and "config" not in step.url_state()
    # the same text read again shows it again
    step.handle({"set": "model", "value": "llama2-7b", "seq": 2})
    assert step.state()["custom"] is None
    read(step, LLAMA)
    assert step.model.model == CUSTOM and step.state()["custom"]["fields"]


def test_the_parameter_count_travels_with_the_text():
    step = Step5(saved={"model": {"model": CUSTOM, "part": "b"}})
    read(step, FALCON)                        # Falcon's config cannot give its weights
    assert "enter the parameter count" in step.state()["custom"]["problems"][0]
    read(step, FALCON, 6.922)                 # the count and the text: one message, no race
    box = step.state()["custom"]
    assert box["problems"] == [] and box["params_value"] == 6.922
    assert step.model.spec.kind == "MQA"
    read(step, FALCON, 0)                     # zero (or empty): count them from the config
    assert step.model.params_b is None
    assert "enter the parameter count" in step.state()["custom"]["problems"][0]
    read(step, FALCON, -2)
    assert "must be a positive number, not -2" in step.state()["custom"]["problems"][0]


def test_a_read_message_that_is_not_one_is_ignored():
    step = Step5(saved={"model": {"model": CUSTOM, "part": "b"}})
    for junk in ({"config": 3}, {"config": None}, {"params_b": 7}, {"config": LLAMA,
                 "params_b": "7"}, {"config": LLAMA, "params_b": True},
                 {"config": LLAMA, "params_b": float("nan")}, "text", None, 3):
        step.handle({"custom": junk})
        assert step.model.config == "" and step.model.custom == ""


def test_the_server_keeps_the_config_short():
    step = Step5(saved={"model": {"model": CUSTOM, "part": "b"}})
    read(step, "x" * 250_000)                 # a page that skipped the text box's limit
    assert len(step.model.config) == MAX_CONFIG_CHARS + 1
    assert "too long" in step.state()["custom"]["problems"][0]


def test_markup_never_reaches_the_page_as_markup():
    """The learner's words travel as plain text (the box draws them with textContent); no
    html block of the page carries them."""
    step = Step5(saved={"model": {"model": CUSTOM, "part": "b"}})
    read(step, "<img src=x onerror=alert(1)>")
    assert "web page (HTML)" in step.state()["custom"]["problems"][0]
    read(step, '{"model_type": "<img src=x onerror=alert(1)>", "num_hidden_layers": 2}')
    s = step.state()
    assert "<img src=x onerror=alert(1)>" in s["custom"]["problems"][0]     # as text
    html = " ".join(b["html"] for b in columns(s)["left"] + columns(s)["right"] if b["kind"] == "html")
    assert "<img" not in html


def test_your_model_in_polish():
    step = Step5(lang="pl", saved={"model": {"model": CUSTOM, "part": "b"}})
    read(step, '{"num_hidden_layers": 32,')
    box = step.state()["custom"]
    assert box["label"] != "config.json of your model" and box["problems"]
    assert "not valid JSON" not in box["problems"][0]


def test_deep_links_through_the_shell():
    from urllib.parse import parse_qs
    app = App(query={"step": [b"5"], "model": [b"opt-13b"], "context": [b"2048"],
                     "batch": [b"8"], "gpu": [b"a100-40"]})
    state = app.state()
    check_page(state)
    # a link made before the step had parts: its GPU is part B's, which it opens
    assert state["values"] == {"part": "b", "context": 2048, "batch": 8, "model": "opt-13b",
                               "gpu": "a100-40", "gpus": 1, "share": 90, "precision": "fp16",
                               "weights": "released"}
    assert state["shell"]["notices"] == []
    assert parse_qs(state["query"][1:]) == {
        "step": ["5"], "lang": ["en"], "part": ["b"], "context": ["2048"], "batch": ["8"],
        "model": ["opt-13b"], "gpu": ["a100-40"], "gpus": ["1"], "share": ["90"],
        "precision": ["fp16"], "weights": ["released"]}
    app = App(query={"step": [b"5"], "config": [b"{}"]})     # the config is never in a link
    assert len(app.view_model()["notices"]) == 1 and app.step.model.config == ""


def test_a_pasted_config_is_kept_across_a_visit_never_in_the_link():
    app = App(query={"step": [b"5"]})
    app.handle({"set": "model", "value": CUSTOM, "seq": 1})
    app.handle({"custom": {"config": FALCON, "params_b": 6.922}})
    assert "custom=layers-32" in app.url_query() and "falcon" not in app.url_query()
    app.handle({"nav": 1})
    app.handle({"nav": -1})
    m = app.step.model
    assert (m.model, m.config, m.params_b, m.part) == (CUSTOM, FALCON, 6.922, "b")
    assert m.spec.kind == "MQA"
    box = app.state()["custom"]
    assert (box["value"], box["params_value"]) == (FALCON, 6.922)
    assert box["fields"][0].startswith("Read from your config.json")      # read as it was
    assert box["problems"] == []


# -- the planner's questions and the layer map (issue 28) ------------------------------------

def cells_of(state: dict) -> dict:
    """The planner's table as the page gets it (autoescaped markup): data-metric key ->
    (value, note, the row's badge), and "_heading"."""
    import html
    import re
    block = next(b for b in columns(state)["right"] if b["kind"] == "html" and b["cls"] == "planner")
    out = {"_heading": html.unescape(re.search(r'<h3 class="planner-heading">(.*?)</h3>',
                                               block["html"]).group(1))}
    for row in re.findall(r'<tr class="plan-(\w+)">(.*?)</tr>', block["html"], re.S):
        for key, value, note in re.findall(
                r'data-metric="(\w+)"><span class="metric-value">(.*?)</span>'
                r'(?:<span class="metric-note">(.*?)</span>)?</td>', row[1]):
            out[key] = (norm(html.unescape(value)), norm(html.unescape(note)), row[0])
    return out


def test_the_planner_answers_in_one_table_ideal_and_engine():
    step = Step5("en")
    for i, (k, v) in enumerate((("part", "b"), ("model", "llama3.1-8b"), ("gpu", "l4"),
                                ("context", 32768)), 1):
        step.handle({"set": k, "value": v, "seq": i})
    s = check_step(step.state())
    c = cells_of(s)
    assert c["_heading"] == ("The planner's questions on 1 × L4 (weights: 16-bit (fp16/bf16); "
                              "cache: fp16)")
    block = next(b for b in columns(s)["right"] if b["kind"] == "html" and b["cls"] == "planner")
    assert "Largest batch at context length 32,768" in block["html"]
    # every value is a number with its unit; the qualifier is the note under it
    # by hand: 24 GiB - 16.06 GB = 9.7 GB; / 131,072 B = 74,079 tokens; 2 sequences of 32,768
    assert c["plan_context"] == ("74,079 tokens", "memory binds", "computed")
    assert c["plan_batch"] == ("2 sequences", "", "computed")
    assert c["plan_free"][0] == "9.7 GB" and c["plan_free"][2] == "computed"
    # the engine: 0.9 x 23,034 MiB - 16.06 GB = 2,707 blocks of 16 tokens
    assert c["engine_context"] == ("43,312 tokens", "memory binds", "illustrative")
    assert c["engine_batch"] == ("1 sequence", "", "illustrative")
    assert c["engine_pool"][1] == "43,312 tokens, cut into blocks of 16 tokens"
    assert c["engine_pool"][2] == "illustrative"
    assert "90% of the memory the driver reports" in block["html"]
    # the share and the GPUs move the estimate
    step.handle({"set": "share", "value": 50, "seq": 9})
    assert cells_of(step.state())["engine_context"] == \
        ("none", "the weights do not fit", "illustrative")       # 0.5 x 22.5 GiB < 16.06 GB
    step.handle({"set": "gpus", "value": 2, "seq": 10})
    c = cells_of(step.state())
    assert c["_heading"].startswith("The planner's questions on 2 × L4 (")
    assert c["plan_context"] == ("131,072 tokens", "the model's limit", "computed")
    # the assumptions are in Go deeper, not in the visible prose
    why = next(b for b in columns(step.state())["left"] if "deeper-why" in b.get("cls", ""))
    said = " ".join(p for blk in why["blocks"] for p in blk.get("items", []))
    assert "blocks of 16 tokens" in said and "50%" in said and "activations" in said


def test_the_planner_escapes_what_it_shows_and_speaks_every_language():
    for lang in ("en", "id", "pl", "nl"):
        step = Step5(lang)
        step.handle({"set": "part", "value": "b", "seq": 1})
        step.handle({"set": "model", "value": "gemma3-27b", "seq": 1})
        c = cells_of(check_step(step.state()))
        assert {"plan_free", "plan_context", "plan_batch", "engine_pool", "engine_context",
                "engine_batch"} <= set(c)
        assert all(v[0] for k, v in c.items() if k != "_heading")


PHI4 = ('{"model_type": "phi3", "num_hidden_layers": 40, "num_attention_heads": 40, '
        '"num_key_value_heads": 10, "hidden_size": 5120, "intermediate_size": 17920, '
        '"vocab_size": 100352, "max_position_embeddings": 16384, "torch_dtype": "bfloat16"}')


def test_the_engine_refuses_kv_heads_that_do_not_split_over_the_gpus():
    """phi-4's 10 KV heads: 2 GPUs keep 5 each; 4 do not (vLLM stops; truth3 N11)."""
    step = Step5("en")
    step.handle({"set": "part", "value": "b", "seq": 1})
    read(step, PHI4)
    step.handle({"set": "gpus", "value": 4, "seq": 2})
    s = check_step(step.state())
    c = cells_of(s)
    assert c["engine_context"] == ("not possible", "the KV heads do not split", "illustrative")
    assert c["engine_batch"] == ("not possible", "", "illustrative")
    assert c["engine_pool"][1] == "but no split of the KV heads"
    assert c["plan_batch"][0].endswith("sequences")             # the ideal answer stays
    block = next(b for b in columns(s)["right"] if b["kind"] == "html" and b["cls"] == "planner")
    assert ("with 10 KV heads, the number of GPUs must divide 10 or be a multiple of it, "
            "and 4 is neither.") in block["html"]
    step.handle({"set": "gpus", "value": 2, "seq": 3})
    assert cells_of(step.state())["engine_batch"][0] != "not possible"
    for lang in ("id", "pl", "nl"):
        other = Step5(lang)
        other.handle({"set": "part", "value": "b", "seq": 1})
        read(other, PHI4)
        other.handle({"set": "gpus", "value": 8, "seq": 2})
        c = cells_of(check_step(other.state()))
        assert "not possible" not in c["engine_context"][0] and c["engine_context"][0]


def test_the_layer_map_of_gemma_and_its_text_twin():
    step = Step5("en")
    step.handle({"set": "model", "value": "gemma3-27b", "seq": 1})
    step.handle({"set": "context", "value": 32768, "seq": 2})
    s = check_step(step.state())
    fig = json.loads(s["frames"])[0]["fig"]["layers"]
    assert len(fig["kinds"]) == 62 and fig["kinds"][:6] == ["sliding"] * 5 + ["full"]
    assert fig["kept"].count(1024) == 52 and fig["kept"].count(32768) == 10
    assert [norm(x["text"]) for x in fig["legend"]] == [
        "10 layers, full attention: 32,768 tokens each",
        "52 layers, sliding window of 1,024: 1,024 tokens each"]
    # the strip's text twin is in the stage's collapsed “Show as table”, not open on the page
    assert not any(b["kind"] == "table" for b in columns(s)["right"])
    table = json.loads(s["frames"])[0]["tables"][0]
    assert table["cls"] == "layer-table"
    assert [r[:3] for r in table["rows"]] == [["10", "full attention", "32,768 tokens"],
                                             ["52", "sliding window of 1,024", "1,024 tokens"]]
    formula = next(b for b in columns(s)["right"] if "formula-headline" in b.get("cls", ""))
    assert norm(formula["items"][1]).startswith(
        "× (10 full-attention layers × 32,768 tokens + 52 sliding-window layers × 1,024 "
        "tokens) × 1 sequence")
    # a model whose layers are all alike: one sentence under the charts, no map and no table
    # of 32 identical bars; the one-line formula
    step.handle({"set": "model", "value": "llama2-7b", "seq": 3})
    frame = json.loads(step.state()["frames"])[0]
    assert frame["fig"]["layers"] is None and frame["tables"] == []
    assert norm(frame["lines"][-1]) == ("Every layer keeps the same (32 layers in all): "
                                        "32,768 tokens each (full attention).")


@pytest.mark.parametrize("query,notice", [
    ({"gpus": [b"3"]}, "“3” of “gpus”"), ({"share": [b"120"]}, "“120” of “share”"),
    ({"share": [b"nan"]}, "“nan” of “share”"), ({"share": [b"0.9"]}, "“0.9” of “share”"),
    ({"precision": [b"int3"]}, "“int3” of “precision”"),
    ({"weights": [b"<b>"]}, "“<b>” of “weights”")])
def test_bad_planner_links_fall_back_with_a_notice(query, notice):
    app = App(query={"step": [b"5"], **query})
    m = app.step.model
    assert (m.gpus, m.share, m.precision, m.weights) == (1, 90, "fp16", "released")
    assert any(notice in n for n in app.state()["shell"]["notices"])


def test_the_precisions_are_controls_in_the_link_and_in_every_word():
    app = App(query={"step": [b"5"], "model": [b"deepseek-v3"], "gpu": [b"h200"],
                     "gpus": [b"8"], "precision": [b"fp8"], "weights": [b"int4"]})
    m = app.step.model
    assert (m.precision, m.weights) == ("fp8", "int4")
    q = app.url_query()
    assert "precision=fp8" in q and "weights=int4" in q
    s = check_step(app.step.state())
    controls = {c["name"]: c for c in s["controls"]}
    assert controls["precision"]["options"] == [["fp16", "fp16"], ["fp8", "fp8"]]
    assert controls["weights"]["options"] == [
        ["released", "as released"], ["fp16", "fp16/bf16"], ["fp8", "fp8"], ["int4", "int4"]]
    assert controls["weights"]["label"] == "Weight precision"
    assert controls["precision"]["label"] == "Cache precision"
    assert app.step.model.part == "b" and shown(s) == PART_B     # the link opened part B
    c = cells_of(s)
    assert c["_heading"] == ("The planner's questions on 8 × H200 SXM (weights: 4-bit (int4); "
                             "cache: fp8)")
    k = part_b_cards(s)
    # (671e9 - 1,853,358,080) x 0.51953125 B + 1,853,358,080 x 2 B = 351,349,307,470 B: the
    # embedding and head (2 x 129,280 x 7,168) at 16 bits, 4 bits + scales for the rest
    assert norm(k["weights"]["value"]) == "351.3 GB"
    assert norm(k["weights"]["label"]) == "Weights: 4-bit (int4)"
    assert norm(k["per_token"]["value"]) == "34.3 KiB"           # 61 × 576 × 1 B
    why = next(b for b in columns(s)["left"] if "deeper-why" in b.get("cls", ""))
    assert "half a byte per weight" in texts(columns(s)["left"])             # beside the figure
    assert "--kv-cache-dtype fp8" in texts(why["blocks"])           # in Go deeper
    # part A counts with the same precisions: the bill, its formula and its question
    app.step.handle({"set": "part", "value": "a", "seq": 1})
    s = app.step.state()
    assert norm(cards(s)["weights"]["value"]) == "351.3 GB"
    formula = next(b for b in columns(s)["right"] if "formula-headline" in b.get("cls", ""))
    assert "× 1 B = 34.3 KiB per token" in norm(formula["items"][0])   # 61 × 576 × 1 B
    assert "(Your model" not in frame(s)["desc"] and "DeepSeek-V3, fp8)" in frame(s)["desc"]
    assert "DeepSeek-V3: its weights take 351.3 GB at 4 bits (int4)" in norm(
        s["question"]["prompt"])
    # back to the defaults: the release's fp8, a 16-bit cache
    app.step.handle({"set": "part", "value": "b", "seq": 2})
    app.step.handle({"set": "weights", "value": "released", "seq": 1})
    app.step.handle({"set": "precision", "value": "fp16", "seq": 2})
    s = app.step.state()
    assert norm(part_b_cards(s)["weights"]["value"]) == "672.9 GB"
    assert cells_of(s)["_heading"].endswith("(weights: fp8 as released; cache: fp16)")
    assert "precision=fp16" in app.url_query() and "weights=released" in app.url_query()


def test_a_chosen_weight_precision_overrides_a_config_quantization():
    step = Step5("en", saved={"model": {"part": "b"}})
    quant = LLAMA[:-1] + ', "quantization_config": {"quant_method": "fp8"}}'
    step.custom({"config": quant, "params_b": None})
    step.handle({"set": "weights", "value": "int4", "seq": 1})
    box = step.state()["custom"]
    said = " ".join(box["fields"])
    # (8,030,261,248 - 1,050,673,152) x 0.51953125 + 1,050,673,152 x 2 = 5,727,460,432 B
    assert "quantization_config: “fp8”. The bill counts the weights at the precision you " \
           "chose: 5.7 GB." in norm(said)


def test_planner_link_round_trip():
    app = App(query={"step": [b"5"], "gpus": [b"4"], "share": [b"80"], "gpu": [b"h100"]})
    m = app.step.model
    assert (m.gpus, m.share, m.gpu) == (4, 80, "h100") and m.plan.gpus == 4
    assert "gpus=4" in app.url_query() and "share=80" in app.url_query()
    assert "part=b" in app.url_query()


# -- two parts: A teaches the bill, B plans a server (issue 35) --------------------------------

def test_part_b_plans_a_server():
    """Part B: its title and one idea, the planner's table as its figure, three cards, seven
    controls (the planner's, the model and the context), your model among the models; no
    stage and no question of its own; the precisions' and the engine's words in Go deeper."""
    step = Step5()
    a = step.state()
    step.handle({"set": "part", "value": "b", "seq": 1})
    s = check_step(step.state())
    assert s["tabs"]["active"] == "b" and "part-b" in s["classes"]
    assert shown(s) == PART_B
    assert [CUSTOM, "Your model: paste a config.json"] in \
        {c["name"]: c for c in s["controls"]}["model"]["options"]
    assert s["part"][0]["heading"].startswith("B. Plan a server")
    assert s["stage"] is None and json.loads(s["frames"] or "[]") == [] and s["question"] is None
    assert [b["cls"] for b in planner_blocks(s)] == ["planner"]
    assert list(part_b_cards(s)) == ["per_token", "weights", "gpu_memory"]
    why = lambda st: texts(next(b for b in columns(st)["left"]      # noqa: E731
                                if "deeper-why" in b.get("cls", ""))["blocks"])
    assert "--kv-cache-dtype fp8" in why(s) and "inverts the bill" in why(s)
    assert "--kv-cache-dtype fp8" not in why(a) and "inverts the bill" not in why(a)
    assert step.url_state()["part"] == "b"


def test_the_answer_given_in_part_a_is_kept_across_the_tabs():
    step = Step5()
    step.handle({"answer": 1})
    step.handle({"set": "part", "value": "b", "seq": 1})
    assert step.state()["question"] is None
    step.handle({"set": "part", "value": "a", "seq": 2})
    s = step.state()
    assert s["question"]["answer"] == 1 and not s["concealed"]


def test_choosing_your_model_in_part_a_opens_part_b():
    step = Step5()
    step.handle({"set": "model", "value": "llama3.1-8b", "seq": 1})
    assert step.model.part == "a"
    step.handle({"set": "model", "value": CUSTOM, "seq": 2})
    s = step.state()
    assert step.model.part == "b" and s["custom"]["widget"] == "config"
    # your model read in B is the bill's in A too; its box stays B's, and A lists it only
    # while it is the model shown
    read(step, LLAMA)
    step.handle({"set": "part", "value": "a", "seq": 3})
    s = step.state()
    assert s["custom"] is None and norm(cards(s)["per_token"]["value"]) == "128 KiB"
    assert CUSTOM in [o[0] for o in {c["name"]: c for c in s["controls"]}["model"]["options"]]


def test_your_model_waiting_in_part_a_points_to_part_b():
    app = App(query={"step": "5", "part": "a", "model": CUSTOM})
    s = app.state()
    assert app.step.model.part == "a" and s["custom"] is None
    said = [n for b in columns(s)["left"] if b["kind"] == "notices" for n in b["items"]]
    assert any("in part B, “Plan a server”" in n for n in said), said


@pytest.mark.parametrize("query,part", [
    ({}, "a"),
    ({"context": "8192", "batch": "4", "model": "llama3.1-8b"}, "a"),   # part A's inputs
    ({"gpu": "a100-80", "gpus": "1", "share": "90", "precision": "fp16",
      "weights": "released"}, "a"),                   # part B's, at their defaults: nothing hidden
    ({"gpu": "h100"}, "b"), ({"gpus": "2"}, "b"), ({"share": "80"}, "b"),
    ({"precision": "fp8"}, "b"), ({"weights": "int4"}, "b"), ({"model": "custom"}, "b"),
    ({"model": "custom", "custom": "layers-32_heads-32_kv-8_hd-128_params-8030261248"}, "b"),
    ({"part": "a", "gpu": "h100"}, "a"),              # a link that names its part gets it
    ({"part": "b"}, "b"),
    ({"gpus": "3"}, "a"),                              # not valid: the default, and a notice
])
def test_a_link_that_sets_a_planning_input_opens_part_b(query, part):
    """Every link made before the step had parts still shows what it says: one that sets an
    input of part B to other than its default opens part B."""
    app = App(query={"step": "5", **query})
    assert app.step.model.part == part
    assert f"part={part}" in app.url_query()
    s = app.state()
    for name, value in query.items():
        if "part" in query or name == "custom" or (name, value) == ("gpus", "3"):
            continue
        assert name in shown(s) or str(s["values"][name]) == str(
            app.step.model.param[name].default), (name, shown(s))


def test_an_embed_that_asks_for_a_planning_control_opens_part_b():
    app = App(query={"step": "5", "embed": "1", "controls": "gpu,gpus"})
    assert app.step.model.part == "b" and shown(app.state()) == ["gpu", "gpus"]
    app = App(query={"step": "5", "embed": "1", "controls": "batch,model"})
    assert app.step.model.part == "a" and shown(app.state()) == ["batch", "model"]
    # a figure-only embed: part A's growth curve and its two main controls; one of part B
    # (a link that sets the GPU) shows the planner and the context
    app = App(query={"step": "5", "figure": "1"})
    assert shown(app.state()) == ["context", "batch"] and app.state()["stage"]["figure"] == "bill"
    app = App(query={"step": "5", "figure": "1", "gpu": "h100"})
    s = app.state()
    assert shown(s) == ["context"] and planner_blocks(s)
