"""Step 4's words per language from fixed numbers (the 7B reference figures in every locale's
format), decode against the batch in words and on the chart, the question built from the
state on screen and the measured numbers' three states (the controller and its live
measurement: test_step4_view.py)."""
import pytest

import explainer.runtime as rt
from explainer.presets import ALL_MODELS
from explainer.i18n import LANGS, Translator
from steps.step4 import text
from steps.step4.model import batching_of, live_facts, plan_of, roofline_of

FAKE = rt.Throughput(512, 255, 0.05, 0.004, 10_240.0, 250.0, "cpu")


def norm(s: str) -> str:
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def values(prompt=512, output=256, gpu="illustrative", lang="en", model="llama2-7b", batch=1):
    r = roofline_of(prompt, output, gpu, model, batch)
    b = batching_of(r.last_ctx, gpu, model)
    return {k: norm(v) for k, v in text.values(r, Translator(lang), b).items()}


def test_reference_figures_at_defaults():
    v = values()
    assert v["prefill_tokens"] == "512"
    assert v["decode_steps"] == "255"
    assert v["read_per_step"] == "13.9 GB"
    assert v["prefill_intensity"] == "502"
    assert v["decode_intensity"] == "0.97"
    assert v["prefill_time"] == "23 ms"
    assert v["decode_step_time"] == "6.9 ms"
    assert (v["prefill_bound"], v["decode_bound"]) == ("compute-bound", "memory-bound")
    tr = Translator("en")
    r = roofline_of(512, 256, "illustrative")
    note = norm(" ".join(text.model_note(r, tr)))
    for fig in ("13.5 GB", "512 KiB", "300 TFLOP/s", "2 TB/s", "ridge ≈ 150 FLOP/byte",
                "Illustrative GPU", "lower bounds"):
        assert fig in note
    # the paragraph that places both phases carries the same numbers (once revealed)
    said = norm(" ".join(text.narration(r, True, tr)))
    for fig in ("512", "502", "23 ms", "255", "13.9 GB", "6.9 ms", "1.8 s"):
        assert fig in said
    # batching 8 sequences: 8.4 ms per step, 6.7× the tokens per second of one
    r8 = roofline_of(512, 256, "illustrative", batch=8)
    said8 = norm(text.batch_words(r8, tr))
    assert "8.3 ms" in said8 and "6.7×" in said8 and "bound" not in said8
    assert said8 not in norm(" ".join(text.narration(r8, False, tr)))  # its FLOP/byte waits
    assert said8 in norm(" ".join(text.narration(r8, True, tr)))
    assert values(batch=8)["batch_gain"] == "6.7×"


def test_256_outputs_are_1_from_the_prefill_and_255_decode_steps():
    tr = Translator("en")
    assert text.tokens_words(roofline_of(512, 256, "illustrative"), tr).startswith(
        "Output tokens: 256 = 1 from the prefill + 255 decode steps")
    assert "no decode step" in text.tokens_words(roofline_of(512, 1, "illustrative"), tr)
    assert "+ 1 decode step:" in text.tokens_words(roofline_of(512, 2, "illustrative"), tr)


def test_cards_four_headline_numbers_the_rest_under_all_numbers():
    tr = Translator("en")
    cards = text.cards(roofline_of(512, 256, "illustrative"), "ready", FAKE, tr)
    head = [c["key"] for c in cards if not c["more"]]
    assert head == ["prefill_intensity", "decode_intensity", "prefill_time", "decode_step_time"]
    by = {c["key"]: c for c in cards}
    # the bounds answer the question, and so do both FLOP/byte beside the ridge
    assert {k for k, c in by.items() if c["hidden"]} == {
        "prefill_bound", "decode_bound", "prefill_intensity", "decode_intensity"}
    # badges on results only: none on inputs and categories
    assert [by[k]["kind"] for k in ("prefill_tokens", "decode_steps", "prefill_bound",
                                    "decode_bound")] == [None] * 4
    assert by["prefill_time"]["kind"] == by["decode_step_time"]["kind"] == "illustrative"
    assert by["measured_decode"]["kind"] == "measured"
    h100 = {c["key"]: c for c in text.cards(roofline_of(512, 256, "h100"), "ready", FAKE, tr)}
    assert h100["prefill_time"]["kind"] == "computed"


def test_answer_bearing_words_wait_for_the_answer():
    tr = Translator("en")
    r = roofline_of(512, 256, "illustrative")
    before = " ".join(text.narration(r, False, tr))
    # slope, roof and ridge define the two words before the question; none places a phase
    primer = text.primer(r, tr)
    assert primer in before and "memory-bound" in primer and "compute-bound" in primer
    assert "prefill" not in primer.lower() and "decode" not in primer.lower()
    assert before.count("memory-bound") == 1 and before.count("compute-bound") == 1
    assert "255 decode steps" in before and "ridge" in before      # what to look at
    assert "FLOP per byte." not in before and "0.97" not in before  # decode's, beside the ridge
    after = " ".join(text.narration(r, True, tr))
    assert "memory-bound" in after and "compute-bound" in after
    frame = text.frame(r, "ready", FAKE, tr)
    assert "bound" not in frame["desc"] and "bound" not in str(frame["table"])
    assert frame["fig"]["memory"] == "memory-bound"          # drawn only once revealed


def test_the_question_follows_the_state():
    tr = Translator("en")
    q = text.question(roofline_of(512, 256, "illustrative"), tr)
    assert q["options"][q["correct"]] == "One decode step"
    assert "512" in q["prompt"] and "Illustrative GPU" in q["prompt"]
    assert "0.97" in q["explain"] and "502" in q["explain"]
    short = text.question(roofline_of(16, 256, "illustrative"), tr)   # prefill memory-bound
    assert short["options"][short["correct"]] == "Both equally"
    assert short["key"] != q["key"] and "16" in short["prompt"]
    assert text.question(roofline_of(640, 256, "illustrative"), tr)["key"] == q["key"]


def test_gpu_choice():
    tr = Translator("en")
    opts = {norm(k): v for k, v in text.gpu_options(tr).items()}
    assert opts["H100 SXM (989 TFLOP/s, 3.35 TB/s)"] == "h100"
    assert opts["Illustrative GPU (300 TFLOP/s, 2 TB/s)"] == "illustrative"
    assert values(gpu="h100")["decode_step_time"] == "4.1 ms"       # 13.9 GB / 3.35 TB/s
    assert "ridge ≈ 295" in norm(" ".join(text.model_note(roofline_of(512, 256, "h100"), tr)))
    assert "ridge ≈ 403" in norm(" ".join(text.model_note(roofline_of(512, 256, "l4"), tr)))


def test_one_output_token_has_no_decode_point():
    tr = Translator("en")
    v = values(output=1)
    assert v["decode_step_time"] == "–" and v["decode_steps"] == "0"
    frame = text.frame(roofline_of(16, 1, "h200"), "ready", FAKE, tr)
    assert [p["label"] for p in frame["fig"]["points"]] == ["prefill"]
    assert text.frame(roofline_of(16, 1, "h200"), "ready", FAKE, tr,
                      revealed=False)["fig"]["points"] == []           # no dot before the answer
    assert len(frame["table"]["rows"]) == 1


def test_plot_text_and_locale_ticks():
    r = roofline_of(512, 256, "illustrative")
    fig = text.frame(r, "ready", FAKE, Translator("en"))["fig"]
    ticks = dict(fig["xticks"])
    assert ticks[1000] == "1,000" and ticks[0.1] == "0.1"
    assert fig["title"] == "Roofline of Illustrative GPU"
    assert [p["label"] for p in fig["points"]] == ["prefill", "decode"]
    assert (fig["memory"], fig["compute"]) == ("memory-bound", "compute-bound")
    assert fig["ridge"] == 150 and fig["x0"] < 0.1 and fig["x1"] > 10_000
    pl = dict(text.frame(r, "ready", FAKE, Translator("pl"))["fig"]["xticks"])
    assert norm(pl[1000]) == "1 000" and pl[0.1] == "0,1"


def test_polish_and_dutch_numbers():
    v = values(lang="pl")
    assert v["read_per_step"] == "13,9 GB"
    assert v["decode_step_time"] == "6,9 ms"
    assert v["decode_intensity"] == "0,97"
    v = values(8192, 2048, lang="pl")
    assert v["prefill_tokens"] == "8 192" and v["decode_steps"] == "2 047"
    said = norm(" ".join(text.narration(roofline_of(8192, 2048, "illustrative"), True,
                                        Translator("pl"))))
    assert "8 192" in said
    assert values(8192, 2048, lang="nl")["prefill_tokens"] == "8.192"


def test_measured_numbers_in_their_three_states():
    tr = Translator("en")
    ready = text.measured_values("ready", FAKE, tr)
    assert ready["measured_decode"] == tr._("{n} tokens/s", n=text.rate(250.0, tr))
    assert ready["measured_decode"] == "250 tokens/s"
    assert norm(ready["measured_prefill"]) == "10,240 tokens/s"
    assert ready["measured_ratio"] == "41.0×"
    assert set(text.measured_values("pending", None, tr).values()) == {"measuring…"}
    assert set(text.measured_values("failed", None, tr).values()) == {"–"}
    facts = live_facts()
    plan = plan_of(512, 256)
    paras, notes = text.measured_words(plan, 512, 256, "ready", FAKE, facts, tr)
    said = norm(" ".join(paras))
    assert "10,240 tokens/s" in said and "41.0×" in said and notes == []
    assert "Python" in said and "not the GPU roofline" in said        # the CPU caveat
    paras, notes = text.measured_words(plan, 512, 256, "pending", None, facts, tr)
    assert "measuring…" in paras
    paras, notes = text.measured_words(plan, 512, 256, "failed", None, facts, tr)
    assert notes and "measuring…" not in paras
    big = plan_of(8192, 2048)
    _, notes = text.measured_words(big, 8192, 2048, "ready", FAKE, facts, tr)
    assert norm(notes[0]).endswith("measured at 768 and 256 (prompt and output tokens) "
                                   "instead of 8,192 and 2,048.")


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_language_renders_every_string(lang):
    tr = Translator(lang)
    for r in (roofline_of(512, 256, "illustrative"), roofline_of(16, 1, "l4")):
        assert all(text.narration(r, True, tr)) and all(text.model_note(r, tr))
        frame = text.frame(r, "ready", FAKE, tr)
        assert frame["desc"] and frame["fig"]["title"] and frame["cards"]
        q = text.question(r, tr)
        assert tr.int(r.prompt) in q["prompt"] and q["explain"]
    paras, _ = text.measured_words(plan_of(512, 256), 512, 256, "ready", FAKE, live_facts(), tr)
    assert all(paras) and text.legend(tr) and text.gpu_options(tr)


# -- decode against the batch ----------------------------------------------------------------

def words(prompt=4096, output=1, gpu="h100", model="llama2-7b", batch=1, lang="en",
          revealed=True):
    r = roofline_of(prompt, output, gpu, model, batch)
    b = batching_of(r.last_ctx, gpu, model)
    return r, b, norm(" ".join(text.narration(r, revealed, Translator(lang), b)))


def test_the_batch_caveat_and_its_ceiling_in_words():
    """Truth review #4/#26: batching shares the weight reads, not the cache reads; the
    ceiling 2N ÷ (context × KV bytes per token) is stated with its numbers."""
    r, b, said = words(output=2, batch=64)            # last decode step at 4,097 tokens
    assert "Batching shares the weight reads, not the cache reads" in said
    assert "Decode is memory-bound at small batch" in said
    assert "2.1 GB at 4,097 tokens" in said                        # one sequence's cache
    assert "13,476,000,000 ÷ 2,148,007,936 ≈ 6.27 FLOP/byte" in said
    assert "below this GPU's ridge of 295" in said
    assert "continuous batching" in said and "context length" in said
    # where a larger batch stops paying, and what the H100's 80 GiB hold
    assert "stops paying at about 57 sequences" in said and "90%" in said and "11%" in said
    assert "H100 SXM (80 GiB) holds 33 sequences at context length 4,097" in said
    assert f"at most {text.rate(b.stop.max_tokens_per_s, Translator('en'))} tokens per second" \
        in said
    # the answer-bearing paragraphs wait, and so does the batch's: its FLOP per byte, set
    # beside the ridge, answers the question as the concealed cards would
    r, _, before = words(output=2, batch=64, revealed=False)
    before = before.replace(norm(text.primer(r, Translator("en"))), "")   # defines the words
    assert "bound" not in before and "64 tokens, one per sequence" not in before
    assert "64 tokens, one per sequence" in said
    assert "ceiling" not in before


def test_above_the_ridge_with_a_tiny_cache():
    r, b, said = words(prompt=16, output=2, gpu="a100-80", model="falcon-7b", batch=256)
    assert r.decode.bound == "compute" and r.prefill.bound == "memory"
    assert "above this GPU's ridge of 153" in said and "becomes compute-bound" in said
    assert "reaches the ridge and is compute-bound" in said
    q = text.question(r, Translator("en"))
    assert q["options"][q["correct"]] == "Prefill" and "256 sequences" in q["prompt"]
    r2 = roofline_of(512, 2, "a100-80", "falcon-7b", 256)
    q2 = text.question(r2, Translator("en"))
    assert q2["options"][q2["correct"]] == "Neither" and "compute-bound" in q2["explain"]


def test_stop_beyond_the_slider_and_no_room_on_the_gpu():
    tr = Translator("en")
    _, b, said = words(prompt=512, output=256)          # stop at 302 > 256
    assert "beyond this slider's 256" in said
    _, _, said = words(output=2, model="llama2-70b", gpu="h100")
    assert "the weights alone leave no room for a cache" in said
    r = roofline_of(4096, 2, "h100", "llama2-70b", 1)
    notes = text.notices(r, batching_of(4097, "h100", "llama2-70b"), tr)
    assert any("split over several GPUs" in n for n in notes)
    # a batch larger than the memory holds gets a notice; the context beyond the model too
    r = roofline_of(4096, 2, "h100", "llama2-7b", 64)
    notes = [norm(n) for n in text.notices(r, batching_of(4097, "h100"), tr)]
    assert any("at most 33 do" in n for n in notes)
    assert any("at most 4,096 tokens. A context of 4,097 tokens" in n for n in notes)
    assert text.notices(roofline_of(512, 256, "h100"), batching_of(767, "h100"), tr) == []


def test_the_shrink_links_go_to_step_6():
    tr = Translator("en")
    links = text.shrink_links(batching_of(16383, "h100"), "pl", tr)
    hrefs = [i["href"] for i in links["items"]]
    assert hrefs == ["?step=6&lang=pl&heads=8", "?step=6&lang=pl&heads=1",
                     "?step=6&lang=pl&precision=fp8", "?step=6&lang=pl&precision=int4",
                     "?step=6&lang=pl&window=4096", "?step=6&lang=pl&window=1024"]
    texts = [norm(i["text"]) for i in links["items"]]
    assert texts[0] == "8 KV heads (GQA): 6.28 FLOP/byte (4.0×)"     # 4 × 1.57
    assert texts[2].startswith("an fp8 cache:") and texts[2].endswith("(2.0×)")
    assert "1.57 FLOP/byte for Llama 2 7B" in norm(links["intro"])


def test_the_batch_chart_and_the_trail():
    tr = Translator("en")
    r = roofline_of(512, 256, "h100", batch=64)
    b = batching_of(767, "h100")
    fig = text.frame(r, "ready", FAKE, tr, b)["fig"]
    assert len(fig["trail"]) == len(b.curve) and fig["ceiling"]["x"] == b.ceiling
    assert fig["ceiling"]["label"] == "decode ceiling ≈ 33.5"
    assert [p["label"] for p in fig["points"]] == ["prefill", "decode, batch 64"]
    bf = fig["batch"]
    assert bf["now"] == 64 and bf["xs"] == list(b.batches)
    assert [t for t, _ in bf["xticks"]] == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    ai, tps, t = bf["panels"]
    assert ai["ys"] == [c.intensity for c in b.curve] and ai["now"] == r.decode.intensity
    assert [ln["cls"] for ln in ai["lines"]] == ["ceiling", "ridge"]
    assert tps["ys"] == [c.tokens_per_s for c in b.curve]
    assert tps["lines"][0]["y"] == b.stop.max_tokens_per_s
    assert t["ys"] == [c.time_s for c in b.curve] and t["now_label"] == tr.seconds(r.decode.time_s)
    assert [m["cls"] for m in bf["marks"]] == ["fits"] and bf["marks"][0]["x"] == 180
    assert all(p["y0"] < min(p["ys"]) and p["y1"] > max(p["ys"]) for p in bf["panels"])
    # the table twin: the phases, then decode at batch 1, 2, 4, ... 256
    frame = text.frame(r, "ready", FAKE, tr, b)
    rows = frame["table"]["rows"]
    assert [row[0] for row in rows[2:]] == [f"decode, batch {n}" for n in
                                            (1, 2, 4, 8, 16, 32, 64, 128, 256)]
    assert "bound" not in frame["desc"] and "bound" not in str(frame["table"])
    assert "ceiling of 33.5 FLOP/byte" in frame["desc"]
    cards = {c["key"]: c for c in frame["cards"]}
    assert [c["key"] for c in frame["cards"] if not c["more"]] == [
        "prefill_intensity", "decode_intensity", "prefill_time", "decode_step_time"]
    assert norm(cards["intensity_ceiling"]["value"]) == "33.5"
    assert cards["gains_stop"]["value"] == "302 sequences"
    assert cards["memory_limit"]["value"] == "180" and cards["batch"]["kind"] is None


def test_times_are_lower_bounds():
    """Truth review #5: at peak FLOP/s and bandwidth, the times are “at least”."""
    tr = Translator("en")
    r = roofline_of(512, 256, "h100")
    said = norm(text.phases_words(r, tr))
    assert "at least 7.0 ms" in said and "at least 4.1 ms" in said
    assert "about 7.0" not in said and "about 4.1" not in said
    labels = {c["key"]: c["label"] for c in text.cards(r, "ready", FAKE, tr)}
    assert labels["prefill_time"].endswith("at least")
    assert labels["decode_step_time"].endswith("at least")
    assert "lower bounds" in " ".join(text.model_note(r, tr))


def test_the_prefill_paragraph_no_longer_says_always_compute_bound():
    """Truth review #11: prefill is compute-bound only when P is above the ridge."""
    tr = Translator("en")
    said = text.why_words(roofline_of(64, 256, "h100"), tr)
    assert "When P is above the ridge of 295" in said and "even the prefill waits" in said
    assert "at batch 1" in said


def test_the_model_menu_and_its_notes():
    tr = Translator("en")
    opts = {norm(k): v for k, v in text.model_options(tr).items()}
    assert opts["Llama 2 7B (MHA)"] == "llama2-7b" and opts["Gemma 3 27B (GQA)"] == "gemma3-27b"
    assert len(opts) == len(ALL_MODELS)
    note = " ".join(text.model_note(roofline_of(512, 256, "h100", "mixtral-8x7b"), tr))
    assert "Mixtral 8x7B" in note and "mixture of experts" in note
    note = " ".join(text.model_note(roofline_of(512, 256, "h100", "mistral-7b"), tr))
    assert "at most 4,096 tokens" in note


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_batch_words_in_every_language(lang):
    tr = Translator(lang)
    for model, gpu, prompt, batch in (("llama2-7b", "h100", 4096, 64),
                                      ("falcon-7b", "a100-80", 16, 256),
                                      ("llama2-70b", "l4", 512, 1),
                                      ("gemma3-27b", "illustrative", 8192, 200)):
        r = roofline_of(prompt, 2048, gpu, model, batch)
        b = batching_of(r.last_ctx, gpu, model)
        assert all(text.narration(r, True, tr, b)) and all(text.notices(r, b, tr) + ["x"])
        frame = text.frame(r, "ready", FAKE, tr, b)
        assert frame["fig"]["batch"]["title"] and all(frame["table"]["head"])
        assert text.shrink_links(b, lang, tr)["intro"]
        q = text.question(r, tr)
        assert len(q["options"]) == 4 and q["explain"]
    grouped = norm(tr.int(4097))
    assert grouped in norm(" ".join(text.narration(roofline_of(4096, 2, "h100", batch=64),
                                                   True, tr, batching_of(4097, "h100"))))


# -- truth review, round 2: the ceiling's label, MoE prefill, the nits (issue 28 item 4) -----

def test_the_ceiling_says_it_counts_the_weights_flops():
    """Truth2 P2-2: the ceiling is the weights' FLOPs ÷ the cache bytes (the batch curve's
    asymptote, which leaves attention's FLOPs out), and the words say so and give the ceiling
    with attention's FLOPs: n_heads / kv_heads more per byte of cache (MHA +1, GQA-4 +4)."""
    tr = Translator("en")
    r = roofline_of(4096, 2, "h100", "llama2-7b", 64)
    labels = {c["key"]: c["label"] for c in text.cards(r, "ready", FAKE, tr,
                                                       batching_of(r.last_ctx, "h100"))}
    assert labels["intensity_ceiling"] == "Decode ceiling, weight FLOPs per cache byte, any batch"
    b = batching_of(4096, "h100", "llama2-7b")            # 6.3 -> 7.3 (truth2 P2-2)
    assert b.ceiling == pytest.approx(2 * 6.738e9 / (4096 * 524_288))
    assert b.ceiling_attention == pytest.approx(b.ceiling + 1)
    assert round(b.ceiling, 1) == 6.3 and round(b.ceiling_attention, 1) == 7.3
    g = batching_of(4096, "h100", "llama3.1-8b")           # 32 query heads share 8 KV heads
    assert g.ceiling_attention == pytest.approx(g.ceiling + 4)
    said = norm(text.ceiling_words(b, tr))
    assert "the weight FLOPs of one sequence (2 per active parameter)" in said
    assert "query heads ÷ KV heads = 32 ÷ 32 = 1 FLOP per byte of cache, 7.28 FLOP/byte" in said
    ds = norm(text.ceiling_words(batching_of(767, "h100", "deepseek-v3"), tr))
    assert "latent attention" in ds and "true ceiling is higher" in ds
    # the ceiling is drawn dotted, and the legend says so with a dotted sample (review 3)
    assert ("dotted:text", "dotted line: the decode ceiling (weight FLOPs), any batch") in [
        (k, norm(t)) for k, t in text.legend(tr)]


def test_moe_prefill_is_set_by_the_tokens_each_expert_meets():
    """Truth2 P2-1: a MoE expert meets about P × k / E of the prompt's tokens; the answer
    says so, never “with only P prompt tokens”. DeepSeek-V3's fp8 weights at P = 512:
    2 × 37e9 × 512 ÷ (672.9 GB + the prompt's cache) ≈ 56 FLOP/byte."""
    tr = Translator("en")
    r = roofline_of(512, 256, "h100", "deepseek-v3", 1)
    assert r.prefill.intensity == pytest.approx(
        2 * 37e9 * 512 / (671e9 + 1_854_239_744 + 512 * 70_272))
    assert round(r.prefill.intensity) == 56 and r.prefill.bound == "memory"
    q = text.question(r, tr)
    said = norm(q["explain"])
    assert q["options"][q["correct"]] == "Both equally"
    assert said.startswith("Both are memory-bound.")
    assert "only 8 of the 256 experts" in said
    assert "about 16 of the prompt's tokens (512 tokens)" in said
    assert "about 56 FLOP per byte, below this GPU's ridge of 295" in said
    assert "with a prompt this short" not in said
    m = text.question(roofline_of(4096, 256, "h100", "mixtral-8x7b", 1), tr)
    said = norm(m["explain"])
    assert said.startswith("Only the decode step is memory-bound.")
    assert "still meet about 1,024 of the prompt's tokens (4,096 tokens)" in said
    assert "above" in said
    # the prompt length at which the prefill reaches the ridge: ridge × weight bytes ÷ 2A
    assert "when the prompt has about 2,680 tokens" in norm(text.why_words(r, tr))
    assert "when the prompt has about 1,070 tokens" in norm(text.why_words(
        roofline_of(512, 256, "h100", "mixtral-8x7b"), tr))
    # a dense model keeps its words
    dense = text.question(roofline_of(64, 256, "h100"), tr)
    assert "with a prompt this short (64 tokens)" in dense["explain"]


def test_the_weights_are_named_16_bit_or_as_released():
    """Truth2 P2-7 and item 7: “16-bit (fp16/bf16)”; DeepSeek-V3 in fp8 as released."""
    tr = Translator("en")
    note = norm(" ".join(text.model_note(roofline_of(512, 256, "h100"), tr)))
    assert "(13.5 GB of 16-bit (fp16/bf16) weights, 512 KiB cached per token)" in note
    assert "fp16 weights" not in note
    note = norm(" ".join(text.model_note(roofline_of(512, 256, "h100", "deepseek-v3"), tr)))
    assert "672.9 GB of fp8 weights, as released" in note


def test_the_carried_over_nits():
    """Truth round 1 #12 (prefill's attention FLOPs, 16 % at 8,192, said on screen), #17
    (the RTX 4090's 165 TFLOP/s is fp32-accumulate, said on screen) and #25 (bytes moved,
    not only read)."""
    tr = Translator("en")
    said = norm(text.why_words(roofline_of(8192, 256, "h100"), tr))
    assert "add about 16% more at this prompt" in said
    assert "about 1% more" in norm(text.why_words(roofline_of(512, 256, "h100"), tr))
    note = norm(" ".join(text.model_note(roofline_of(512, 256, "rtx4090"), tr)))
    assert ("The RTX 4090's 165 TFLOP/s is its fp16 tensor rate with fp32 accumulation" in note
            and "330 TFLOP/s" in note)
    assert "accumulation" not in " ".join(text.model_note(roofline_of(512, 256, "h100"), tr))
    r = roofline_of(512, 256, "h100")
    assert "per byte it moves to or from memory" in text.primer(r, tr)
    frame = text.frame(r, "ready", FAKE, tr, batching_of(r.last_ctx, "h100"))
    assert "read from memory" not in str(frame)


def test_a_compute_bound_batch_is_one_point_not_every_kernel():
    """truth3 P2-3: the batch where decode reaches the ridge is worked out from one roofline
    point, max(FLOPs ÷ peak, bytes ÷ bandwidth) for the whole step. A real step is a sequence
    of kernels, each as slow as the slower of its own two times (attention over each
    sequence's cache stays memory-bound), so the step's tokens per second are an upper bound,
    and the text says so."""
    b = batching_of(767, "illustrative", "llama2-70b")
    assert b.stop.reason == "ridge"
    tr = Translator("en")
    said = norm(text.stop_words(b, tr))
    top = text.rate(b.stop.max_tokens_per_s, tr)
    assert "compute-bound" in said and "one point" in said
    assert "attention, which reads each sequence's own cache, can stay memory-bound" in said
    assert f"{top} is an upper bound" in said
    for lang in ("id", "pl", "nl"):
        assert text.stop_words(b, Translator(lang)).count(text.rate(
            b.stop.max_tokens_per_s, Translator(lang))) == 2


def test_the_takeaway_does_not_make_every_prefill_compute_bound():
    """truth3 O-4: step 4 shows memory-bound prefills (a short prompt; a mixture of experts at
    512 tokens), so its takeaway and speaker notes say that a long enough prompt keeps the GPU
    computing, and the notes name the ones that still wait on memory (the takeaway is one of
    six projected on one screen: tests/browser/test_present_fit.py)."""
    import steps.step4 as step4
    assert roofline_of(16, 256, "h100").prefill.bound == "memory"
    assert roofline_of(512, 256, "h100", "mixtral-8x7b").prefill.bound == "memory"
    assert roofline_of(4096, 256, "h100").prefill.bound == "compute"
    for words in (step4.TAKEAWAY, step4.NOTES):
        said = norm(words)
        assert "a long enough prompt keeps the GPU busy computing" in said
        assert "at once and keeps the GPU busy computing" not in said
    notes = norm(step4.NOTES)
    assert "short" in notes and "mixture of experts" in notes


def test_continuous_batching_says_which_schedulers_mix_prefill_and_decode():
    """truth3 O-6: a newcomer's prefill runs in the same step as the others' decode steps in
    Orca and in vLLM with chunked prefill (its V1 engine's default), not under vLLM's original
    scheduler, which gave a prefill a step of its own."""
    said = norm(text.continuous_words(Translator("en")))
    assert "its prefill run alongside" not in said
    assert "Orca runs the newcomer's prefill in the same step" in said
    assert "vLLM with chunked prefill" in said
    assert "vLLM's original scheduler gave a prefill a step of its own" in said
    for lang in ("id", "pl", "nl"):
        assert "V1" in text.continuous_words(Translator(lang))
