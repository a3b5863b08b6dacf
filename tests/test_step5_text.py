"""Step 5's words per language from fixed numbers (the reference figures of the memory bill,
in every locale's format), GPU memory in binary units, the model's maximum context, your model
(the fields read, the formula with their values, every problem as a translated sentence that
names the field), the question built from the chosen model, and deep links through the shell
(the step's controller on the page: tests/test_step5_view.py)."""
import pytest

from explainer import presets
from explainer.i18n import LANGS, Translator
from steps.step5 import text
from steps.step5.model import GPU_KEYS, Live, bill_of, curve_of, spec_of

LIVE = Live(n_layers=4, n_kv_heads=4, head_dim=32, device="cpu", prompt_tokens=5, steps=7,
            tokens=12, measured=49_152, formula=49_152, every_step=True, weights=3_305_984,
            per_token=4096, crossover=807.125)


def norm(s: str) -> str:
    """The no-break spaces of units and Polish grouping as plain spaces."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def values(model="llama2-7b", context=4096, batch=1, gpu="a100-80", lang="en", live=LIVE):
    tr = Translator(lang)
    return {k: norm(v) for k, v in text.values(spec_of(model), bill_of(model, context, batch,
                                                                       gpu), live, tr).items()}


def formula(model="llama2-7b", context=4096, batch=1, gpu="a100-80", lang="en"):
    head, tail = text.bill_formula(spec_of(model), bill_of(model, context, batch, gpu),
                                   Translator(lang))
    return norm(head), norm(tail)


def test_reference_figures_at_defaults():
    v = values()
    assert v["per_token"] == "512 KiB"
    assert v["kv_cache"] == "2.1 GB (2 GiB)"
    assert v["weights"] == "13.5 GB"
    assert v["total"] == "15.6 GB"
    assert v["fits"] == "24 GiB GPU (L4, RTX 4090)"         # the vendors' “24 GB” are GiB
    assert v["max_sequences"] == "33"                       # 80 GiB, not 80 × 10⁹ bytes
    assert v["gpu_memory"] == "80 GiB = 85.9 GB"
    assert v["crossover"] == "≈ 25,700 tokens"
    assert formula() == ("2 × 32 layers × 32 KV heads × 128 × 2 B = 512 KiB per token",
                         "× 4,096 tokens × 1 sequence = 2.1 GB")
    tr = Translator("en")
    labels = text.labels(bill_of("llama2-7b", 4096, 1, "a100-80"), tr)
    assert norm(labels["per_token"]) == "KV cache per token (524,288 B)"
    assert labels["max_sequences"] == "Sequences of 4,096 tokens that fit in the A100 80 GB SXM"
    assert norm(text.bytes_bin(2**31, tr)) == "2 GiB"
    assert norm(text.bytes_dec(2**31, tr)) == "2.1 GB"


def test_at_most_four_headline_cards_the_rest_under_all_numbers():
    tr = Translator("en")
    s, b = spec_of("llama2-7b"), bill_of("llama2-7b", 4096, 1, "a100-80")
    frame = text.frame(s, curve_of("llama2-7b", 1), b, LIVE, tr)
    head = [c["key"] for c in frame["cards"] if not c["more"]]
    more = [c["key"] for c in frame["cards"] if c["more"]]
    assert head == ["kv_cache", "weights", "total", "max_sequences"]
    assert set(more) == {"per_token", "fits", "gpu_memory", "crossover", "live_measured",
                         "live_formula", "live_weights"}
    hidden = [c["key"] for c in frame["cards"] if c["hidden"]]
    assert hidden == ["crossover"]                      # it answers the question
    kinds = {c["key"]: c["kind"] for c in frame["cards"]}
    assert kinds["live_measured"] == "measured" and kinds["live_formula"] == "computed"


def test_batch_8_is_16_gib():
    v = values(batch=8)
    assert v["kv_cache"] == "17.2 GB (16 GiB)"
    assert formula(batch=8)[1] == "× 4,096 tokens × 8 sequences = 17.2 GB"


def test_llama3_gqa_uses_kv_heads():
    tr = Translator("en")
    assert values(model="llama3.1-8b")["per_token"] == "128 KiB"
    assert "8 KV heads" in formula(model="llama3.1-8b")[0]
    info = text.model_info(spec_of("llama3.1-8b"), tr)
    assert "GQA" in info and "grouped-query attention" in info


def test_opt13b_kib_not_kb():
    tr = Translator("en")
    b = bill_of("opt-13b", 2048, 1, "a100-80")
    assert values(model="opt-13b", context=2048)["per_token"] == "800 KiB"
    assert norm(text.labels(b, tr)["per_token"]) == "KV cache per token (819,200 B)"
    assert norm(text.bytes_bin(b.kv, tr)) == "1.6 GiB"
    assert norm(text.bytes_dec(b.kv, tr)) == "1.7 GB"    # honest decimal value of the same bytes


def test_extremes_together():
    tr = Translator("en")
    assert values(context=32768, batch=64)["kv_cache"] == "1.1 TB (1 TiB)"
    b = bill_of("llama2-7b", 32768, 64, "a100-80")
    notes = text.notices(spec_of("llama2-7b"), b, tr)
    assert any("No single GPU" in n for n in notes)
    assert any("4,096" in n and "hypothetical" in n for n in notes)
    assert values(context=512)["kv_cache"] == "268.4 MB (256 MiB)"


@pytest.mark.parametrize("model", list(presets.ALL_MODELS))
def test_every_model_has_its_words(model):
    tr = Translator("en")
    s = spec_of(model)
    b = bill_of(model, 32768, 64, "h200")
    assert s.kind in text.model_info(s, tr)
    assert text.narration(s, b, tr)
    frame = text.frame(s, curve_of(model, 64), b, LIVE, tr)
    assert len(frame["fig"]["curve"]["kv"]) == len(frame["fig"]["curve"]["ctx"])
    assert [p["cls"] for p in frame["fig"]["bar"]["parts"]] == (
        ["weights", "latent"] if s.is_mla else ["weights", "key", "value"])
    q = text.question(s, tr)
    assert len(set(q["options"])) == 3 and s.name in q["prompt"]
    # the formula's first paragraph is only for models that cache keys and values
    assert ("2 × layers × KV heads" in text.narration(s, b, tr)[0]) == (not s.is_mla)


def test_mistral_window():
    tr = Translator("en")
    assert "× 4,096 tokens" in formula(model="mistral-7b", context=32768)[1]
    s, b = spec_of("mistral-7b"), bill_of("mistral-7b", 32768, 1, "a100-80")
    assert any("sliding window" in p for p in text.narration(s, b, tr))
    q = text.question(s, tr)                        # a window: one sequence never outgrows them
    assert q["options"][q["correct"]] == "Never"
    assert "4,096" in q["explain"]


@pytest.mark.parametrize("gpu", GPU_KEYS)
def test_every_gpu_is_named(gpu):
    tr = Translator("en")
    b = bill_of("llama2-7b", 4096, 1, gpu)
    assert presets.GPUS[gpu].name in text.labels(b, tr)["max_sequences"]
    fig = text.bar_fig(spec_of("llama2-7b"), b, tr)
    chosen = [g for g in fig["gpus"] if g["chosen"]]
    assert len(chosen) == 1 and presets.GPUS[gpu].name in chosen[0]["names"]
    assert fig["xmax"] >= presets.GPUS[gpu].mem_bytes / 1e9     # the axis reaches the GPU


def test_weights_do_not_fit():
    tr = Translator("en")
    s, b = spec_of("llama3.1-70b"), bill_of("llama3.1-70b", 4096, 1, "l4")
    notes = text.notices(s, b, tr)
    assert any("split over several GPUs" in n for n in notes)
    assert "no sequence does" in text.narration(s, b, tr)[-2]


def test_the_live_cache_line():
    tr = Translator("en")
    formula_line, para, match = (norm(x) for x in text.live_lines(LIVE, tr))
    assert formula_line.startswith("2 × 4 layers × 4 KV heads × 32 × 4 B")
    assert formula_line.endswith("× 12 tokens × 1 sequence = 49,152 B")
    assert "49,152 B measured" in para and "807" in para
    assert match == "Measured and formula agree, byte for byte, at every step."
    broken = Live(**{**LIVE.__dict__, "measured": 1})
    assert "differ" in text.live_lines(broken, tr)[2]


def test_the_question_follows_the_model():
    tr = Translator("en")
    q = text.question(spec_of("llama2-7b"), tr)
    assert q["options"] == ["≈ 4,000 tokens", "≈ 26,000 tokens", "≈ 200,000 tokens"]
    assert q["correct"] == 1
    assert "25,700" in q["explain"] and "13.5 GB" in norm(q["prompt"])
    assert "4,096" in q["explain"]                  # Llama 2 itself stops at 4,096 tokens
    q8 = text.question(spec_of("llama3.1-8b"), tr)
    assert q8["key"] != q["key"] and q8["options"][1] == "≈ 120,000 tokens"


def test_the_crossing_waits_for_the_answer_in_the_frame():
    tr = Translator("en")
    s, c = spec_of("llama2-7b"), curve_of("llama2-7b", 1)
    frame = text.frame(s, c, bill_of("llama2-7b", 4096, 1, "a100-80"), LIVE, tr)
    # the sentence and the marker travel with the frame; the stage shows them once revealed
    # truth review #3: the crossing is past Llama 2's 4,096 tokens, and the sentence says so
    assert frame["said"] == ("The cache overtakes the weights at about 25,700 tokens. "
                             "Llama 2 7B handles at most 4,096 tokens: no real sequence of it "
                             "gets there.")
    assert frame["fig"]["curve"]["limit"] == {"x": 4096,
                                              "label": "Llama 2 7B: at most 4,096 tokens"}
    at8 = text.frame(s, curve_of("llama2-7b", 8), bill_of("llama2-7b", 4096, 8, "a100-80"),
                     LIVE, tr)
    assert at8["said"] == "The cache overtakes the weights at about 3,210 tokens."
    assert frame["fig"]["curve"]["cross"]["label"] == "cache = weights"
    assert "25,700" not in frame["caption"] and "25,700" not in frame["desc"]
    ll = text.frame(s, curve_of("llama3.1-8b", 1), bill_of("llama3.1-8b", 4096, 1, "l4"),
                    LIVE, tr)
    assert ll["said"] == "Up to 32,768 tokens the cache stays below the weights."


@pytest.mark.parametrize("lang,kv,exact_b,weights,grouped,tick", [
    ("pl", "17,2 GB", "524 288 B", "13,5 GB", "4 096", "8 192"),
    ("nl", "17,2 GB", "524.288 B", "13,5 GB", "4.096", "8.192"),
    ("id", "17,2 GB", "524.288 B", "13,5 GB", "4.096", "8.192"),
    ("en", "17.2 GB", "524,288 B", "13.5 GB", "4,096", "8,192"),
])
def test_numbers_in_every_locale(lang, kv, exact_b, weights, grouped, tick):
    tr = Translator(lang)
    v = values(batch=8, lang=lang)
    assert v["kv_cache"].startswith(kv) and v["weights"] == weights
    assert exact_b in norm(text.labels(bill_of("llama2-7b", 4096, 8, "a100-80"), tr)
                           ["per_token"])
    assert grouped in formula(batch=8, lang=lang)[1]
    assert v["live_measured"] == norm(tr.int(49_152)) + " B"
    fig = text.curve_fig(spec_of("llama2-7b"), curve_of("llama2-7b", 8),
                         bill_of("llama2-7b", 4096, 8, "a100-80"), tr)
    assert norm(dict(fig["xticks"])[8192]) == tick
    assert all(s.strip() for s in text.narration(spec_of("llama2-7b"),
                                                 bill_of("llama2-7b", 4096, 8, "a100-80"), tr))


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_language_renders_every_string(lang):
    tr = Translator(lang)
    s, b, c = spec_of("deepseek-v3"), bill_of("deepseek-v3", 32768, 64, "l4"), \
        curve_of("deepseek-v3", 64)
    for out in (text.notices(s, b, tr), text.narration(s, b, tr), text.live_lines(LIVE, tr),
                text.legend(s, tr), list(text.model_options(tr)),
                list(text.gpu_options(GPU_KEYS, tr)), [text.units(b, tr), text.lead(tr)]):
        assert out and all(out)
    assert text.frame(s, c, b, LIVE, tr)["fig"]["bar"]["parts"][1]["cls"] == "latent"
    assert text.question(s, tr)["options"]


def test_deep_link_round_trip():
    from urllib.parse import parse_qs

    from steps.shell import App
    app = App(query={"step": [b"5"], "model": [b"opt-13b"], "context": [b"2048"],
                     "batch": [b"8"], "gpu": [b"a100-40"]})
    m = app.step.model
    assert (m.model, m.context, m.batch, m.gpu) == ("opt-13b", 2048, 8, "a100-40")
    assert app.view_model()["notices"] == []
    # a GPU other than the default, in a link that names no part: the planner's part B
    assert parse_qs(app.url_query()[1:]) == {"step": ["5"], "lang": ["en"], "part": ["b"],
                                             "context": ["2048"],
                                             "batch": ["8"], "model": ["opt-13b"],
                                             "gpu": ["a100-40"], "gpus": ["1"],
                                             "share": ["90"], "weights": ["released"],
                                             "precision": ["fp16"]}


# -- GPU memory, the model's limit, MLA, windows: the truth review's items ----------------------

def test_gpu_memory_is_binary_and_says_so():
    tr = Translator("en")
    b = bill_of("llama2-7b", 4096, 1, "a100-80")
    assert norm(text.binary_note(b, tr)) == (
        "GPU makers count memory in binary units: the A100 80 GB SXM, sold with 80 “GB”, "
        "holds 80 GiB = 85.9 GB, and its line is drawn there.")
    # the lines the bar's axis reaches, no more (it ends a little past the chosen GPU)
    assert norm(text.gpu_lines(b, tr)) == ("GPU lines: 24 GiB: L4, RTX 4090; 40 GiB: A100 40 GB "
                                           "SXM; 80 GiB: A100 80 GB SXM, H100 SXM.")
    assert "141 GiB: H200 SXM" in norm(text.gpu_lines(bill_of("llama2-7b", 4096, 1, "h200"), tr))
    drawn = [g["label"] for g in text.bar_fig(spec_of("llama2-7b"), b, tr)["gpus"]]
    assert [norm(g) for g in drawn] == ["24 GiB", "40 GiB", "80 GiB"]
    fig = text.bar_fig(spec_of("llama2-7b"), b, tr)
    chosen = next(g for g in fig["gpus"] if g["chosen"])
    assert chosen["x"] == pytest.approx(85.899, abs=1e-3) and norm(chosen["label"]) == "80 GiB"
    opts = {norm(k): v for k, v in text.gpu_options(GPU_KEYS, tr).items()}
    assert opts["H200 SXM (141 GiB)"] == "h200"
    frame = text.frame(spec_of("llama2-7b"), curve_of("llama2-7b", 1), b, LIVE, tr)
    assert "85.9 GB" in norm(frame["desc"]) and len(frame["lines"]) == 2


def test_mla_is_a_latent_plus_a_rotary_key():
    """Truth review #8/#9: 576 = a 512-value latent + a 64-value rotary key; no 2 × formula."""
    tr = Translator("en")
    s, b = spec_of("deepseek-v3"), bill_of("deepseek-v3", 4096, 1, "h200")
    head, tail = (norm(x) for x in text.bill_formula(s, b, tr))
    assert head == "61 layers × (latent 512 + rotary key 64) × 2 B = 68.6 KiB per token"
    assert tail == "× 4,096 tokens × 1 sequence = 287.8 MB"
    said = " ".join(text.narration(s, b, tr))
    assert "512-value compressed latent plus a 64-value rotary key" in said
    assert "2 × layers" not in said and "rebuilds keys and values from it" not in said
    info = norm(text.model_info(s, tr))
    assert "576 values: a 512-value compressed latent and a 64-value rotary key" in info
    # truth review #15, truth2 item 7: the bill counts the fp8 weights as released
    assert "released in fp8 and the bill counts them so: 672.9 GB" in info
    assert "not 1.3 TB at 16 bits" in info


def test_mistral_window_reach():
    """Truth review #19: the cache is capped; information still reaches window × layers."""
    tr = Translator("en")
    said = " ".join(text.narration(spec_of("mistral-7b"), bill_of("mistral-7b", 32768, 1,
                                                                   "a100-80"), tr))
    assert "4,096 × 32 ≈ 131,072 tokens back" in said


def test_gemma_formula_sums_its_layers():
    tr = Translator("en")
    s, b = spec_of("gemma3-27b"), bill_of("gemma3-27b", 32768, 2, "h200")
    head, tail = (norm(x) for x in text.bill_formula(s, b, tr))
    assert head == "2 × 16 KV heads × 128 × 2 B = 8 KiB per layer and token"
    assert tail == ("× (10 full-attention layers × 32,768 tokens + 52 sliding-window layers × "
                    "1,024 tokens) × 2 sequences = 6.2 GB")
    assert b.kv == (10 * 32768 + 52 * 1024) * 8192 * 2
    said = " ".join(text.narration(s, b, tr))
    assert ("mixes two kinds of layer: 52 sliding-window layers and 10 full-attention layers. "
            "Each sliding-window layer attends only to the last 1,024 tokens") in said
    q = text.question(s, tr)
    assert "only its 10 full-attention layers keep growing, by 81,920 B per token" in \
        norm(q["explain"])
    # at a context below the window every layer keeps every token
    head, tail = text.bill_formula(s, bill_of("gemma3-27b", 512, 1, "h200"), tr)
    assert "52 sliding-window layers × 512 tokens" in norm(tail)


def test_every_context_past_the_limit_gets_a_notice():
    tr = Translator("en")
    for model in presets.ALL_MODELS:
        s = spec_of(model)
        for ctx in (4096, 8192, 32768):
            b = bill_of(model, ctx, 1, "h200")
            said = " ".join(text.notices(s, b, tr))
            past = s.max_context is not None and ctx > s.max_context
            assert ("hypothetical" in said) == past, (model, ctx)


# -- your model ----------------------------------------------------------------------------------

from steps.step5.model import CUSTOM, Step5Model, decode  # noqa: E402
from steps.step5.text import PROBLEMS  # noqa: E402

LLAMA = ('{"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32, '
         '"num_key_value_heads": 8, "hidden_size": 4096, "intermediate_size": 14336, '
         '"vocab_size": 128256, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}')


def test_the_fields_read_and_the_formula_with_their_values():
    tr = Translator("en")
    m = Step5Model()
    m.config = LLAMA
    paras, notes = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
    assert notes == []
    assert paras[0].startswith("Read from your config.json: model_type = \"llama\"; "
                               "num_hidden_layers = 32; num_attention_heads = 32;")
    assert "num_key_value_heads = 8" in paras[0] and "torch_dtype = \"bfloat16\"" in paras[0]
    assert norm(paras[-2]) == ("Cache per token: 2 × num_hidden_layers × num_key_value_heads × "
                               "(hidden_size ÷ num_attention_heads) × 2 B = 2 × 32 × 8 × 128 × "
                               "2 B = 131,072 B.")
    # truth2 C-11: max_position_embeddings is what the config allows, not a trained context
    assert norm(paras[-1]) == ("max_position_embeddings = 131,072 is the most positions the "
                               "config allows; the model may have been trained on fewer (its "
                               "model card says).")
    assert text.name(m.spec, tr) == "Your model"
    assert text.model_info(m.spec, tr).startswith("Your model: GQA")
    # the same model from the link: its keys, and the formula in them
    link = Step5Model(model=CUSTOM, custom=m.custom)
    paras, _ = text.custom_lines(None, link.custom_model, link.spec, link.bill, tr)
    assert paras[0] == ("From the link: layers = 32; heads = 32; kv = 8; hd = 128; "
                        "dtype = bf16; ctx = 131072; params = 8030261248; "
                        "emb = 1050673152.")
    assert norm(paras[-1]) == ("Cache per token: 2 × layers × kv × hd × 2 B = "
                               "2 × 32 × 8 × 128 × 2 B = 131,072 B.")
    # an MLA config: no factor 2; an interleaved one: the per-layer sum
    m.config = ('{"num_hidden_layers": 61, "num_attention_heads": 128, "kv_lora_rank": 512, '
                '"qk_rope_head_dim": 64, "v_head_dim": 128, "hidden_size": 7168, '
                '"vocab_size": 129280, "intermediate_size": 18432}')
    paras, _ = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
    assert norm(paras[-2]) == ("Cache per token, no factor 2 for MLA: num_hidden_layers × "
                               "(kv_lora_rank + qk_rope_head_dim) × 2 B = 61 × (512 + 64) × 2 B "
                               "= 70,272 B.")
    assert not any("2 × layers × KV heads" in p for p in text.narration(m.spec, m.bill, tr))
    m.config = ('{"model_type": "gemma2", "num_hidden_layers": 42, "num_attention_heads": 16, '
                '"num_key_value_heads": 8, "head_dim": 256, "hidden_size": 3584, '
                '"intermediate_size": 14336, "vocab_size": 256000, "sliding_window": 4096}')
    paras, _ = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
    assert "Not in the config, so assumed: max_position_embeddings = 8192" in paras[1]
    assert norm(paras[-2]) == ("Cache per layer and token: 2 × num_key_value_heads × head_dim × "
                               "2 B = 2 × 8 × 256 × 2 B = 8,192 B. Tokens kept: full-attention "
                               "layers (21) every one, sliding-window layers (21) at most 4,096 "
                               "(sliding_window).")


def test_every_problem_code_has_a_message_naming_its_field():
    from explainer.hfconfig import ERROR_CODES
    assert set(PROBLEMS) == set(ERROR_CODES)
    for lang in LANGS:
        tr = Translator(lang)
        for code in ERROR_CODES:
            from steps.step5.model import Problem
            p = Problem("num_key_value_heads", code,
                        (("heads", 32), ("kv_heads", 5), ("value", 5), ("limit", 100)),
                        "config")
            msg = text.problem_text(p, tr)
            assert msg and "{" not in msg
            if "{field}" in PROBLEMS[code]:
                assert "num_key_value_heads" in msg, (lang, code)


@pytest.mark.parametrize("lang", list(LANGS))
def test_bad_input_is_a_translated_sentence(lang):
    tr = Translator(lang)
    m = Step5Model()
    for bad, needle in (('{"num_hidden_layers": 32,', ""),
                        ('{"num_attention_heads": 32}', "num_hidden_layers"),
                        ('{"num_hidden_layers": -3, "num_attention_heads": 32}',
                         "num_hidden_layers"),
                        ("<img src=x onerror=alert(1)>", "HTML"),
                        ("y" * 300_000, norm(tr.int(300_000)))):
        m.config = bad
        _, notes = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
        assert len(notes) == 1 and needle in norm(notes[0])
        assert notes[0] == text.problem_text(m.parsed.problem, tr)     # the session's language
    m.config = '{"num_hidden_layers": 32,}'
    _, notes = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
    assert tr.int(1) in notes[0] and tr.int(26) in notes[0]          # line 1, column 26
    link = decode("layers-0_heads-8_hd-8_params-9")
    _, notes = text.custom_lines(None, link, spec_of("llama2-7b"),
                                 bill_of("llama2-7b", 4096, 1, "h100"), tr)
    assert "layers" in notes[0] and notes[0] == text.problem_text(link.problem, tr)


def test_waiting_for_your_model():
    tr = Translator("en")
    m = Step5Model(model=CUSTOM)
    notes = text.notices(m.spec, m.bill, tr, waiting=True)
    assert notes[0].startswith("No model of yours yet") and "Llama 2 7B" in notes[0]
    opts = text.model_options(tr)
    assert opts["Your model: paste a config.json"] == CUSTOM
    assert len(opts) == len(presets.ALL_MODELS) + 1


def test_custom_deep_link_round_trip():
    from urllib.parse import parse_qs, urlencode

    from steps.shell import App
    m = Step5Model()
    m.config = LLAMA
    query = urlencode({"step": 5, "model": CUSTOM, "custom": m.custom, "context": 8192})
    app = App(query={k: [v[0].encode()] for k, v in parse_qs(query).items()})
    got = app.step.model
    assert app.view_model()["notices"] == []
    assert (got.model, got.custom, got.context) == (CUSTOM, m.custom, 8192)
    assert got.spec.per_token == 131_072 and got.bill.kv == 8192 * 131_072
    assert parse_qs(app.url_query()[1:])["custom"] == [m.custom]
    # a link whose value is not even made of the allowed characters: the shell's notice
    app = App(query={"step": [b"5"], "model": [b"custom"], "custom": ["<script>".encode()]})
    got = app.step.model
    assert got.custom == "" and len(app.view_model()["notices"]) == 1
    assert got.spec.key == "llama2-7b"
    # a well-formed but wrong one: the model says which key
    app = App(query={"step": [b"5"], "model": [b"custom"],
                     "custom": [b"layers-0_heads-8_hd-8_params-9"]})
    got = app.step.model
    assert got.custom_model.problem.field == "layers"


def test_multi_query_config_formula_names_its_flag():
    tr = Translator("en")
    m = Step5Model()
    m.param.update(config='{"model_type": "falcon", "num_hidden_layers": 32, '
                          '"num_attention_heads": 71, "multi_query": true, "hidden_size": 4544}',
                   params_b=6.922)
    paras, notes = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
    assert notes == [] and m.spec.kind == "MQA"
    assert paras[-1] == "The config does not say how long a context the model handles."
    assert norm(paras[-2]) == ("Cache per token: 2 × num_hidden_layers × 1 (multi_query) × "
                               "(hidden_size ÷ num_attention_heads) × 2 B = 2 × 32 × 1 × 64 × "
                               "2 B = 8,192 B.")
    m.param.update(params_b=-2.0)
    _, notes = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
    assert notes == ["“Parameters in billions (if the config cannot give them)” must be a "
                     "positive number, not -2."]


# -- truth review, round 2 (issue 28 item 4): the weights' format, quantization, multimodal,
# -- the config's positions, the number messages -----------------------------------------------

from pathlib import Path  # noqa: E402

CONFIGS = Path(__file__).parent / "data" / "configs"


def pasted(name: str, **kw) -> Step5Model:
    m = Step5Model(**kw)
    m.config = (CONFIGS / name).read_text()
    assert m.parsed.ok, m.parsed.problem
    return m


def test_the_weights_are_16_bit_or_fp8_as_released():
    """Truth2 P2-7: “16-bit (fp16/bf16)”, not “fp16”; item 7: DeepSeek-V3 is billed in fp8,
    671e9 + 1,854,239,744 bytes = 672.9 GB."""
    tr = Translator("en")
    s, b = spec_of("llama2-7b"), bill_of("llama2-7b", 4096, 1, "a100-80")
    assert text.labels(b, tr, s)["weights"] == "Weights: 16-bit (fp16/bf16)"
    assert text.legend(s, tr)[0] == ("weights", "weights (16-bit)")
    assert "at 16 bits (fp16/bf16)" in text.question(s, tr)["prompt"]
    info = norm(text.model_info(s, tr))
    assert "fp16 or bf16, the same 2 bytes per parameter): 13.5 GB" in info
    assert "weights in fp16" not in info
    ds, db = spec_of("deepseek-v3"), bill_of("deepseek-v3", 4096, 1, "h200")
    assert db.weights == 671e9 + 1_854_239_744
    assert text.labels(db, tr, ds)["weights"] == "Weights: fp8 as released"
    assert text.bar_fig(ds, db, tr)["parts"][0]["name"] == "weights (fp8)"
    assert norm(text.question(ds, tr)["prompt"]).startswith(
        "DeepSeek-V3: its weights take 672.9 GB in fp8, as released.")
    cards = {c["key"]: c for c in text.frame(ds, curve_of("deepseek-v3", 1), db, LIVE,
                                             tr)["cards"]}
    assert norm(cards["weights"]["value"]) == "672.9 GB"
    assert cards["weights"]["label"] == "Weights: fp8 as released"


def test_a_pasted_config_says_its_quantization_and_multimodal_parameters():
    """Truth2 C-9/C-10: quantization_config sets the weights' bytes and is said; a nested
    multimodal config's parameters are its language model's, and that is said too."""
    tr = Translator("en")
    m = pasted("gpt-oss-20b.json")
    paras, _ = text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)
    said = norm(" ".join(paras))
    assert "quantization_config: “mxfp4”. The bill counts the weights as released, 13.7 GB." \
        in said
    info = norm(text.model_info(m.spec, tr))
    assert "released quantized and the bill counts them so: 13.7 GB" in info
    assert "not 41.8 GB at 16 bits" in info
    m = pasted("DeepSeek-V3.json")
    said = norm(" ".join(text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)[0]))
    assert "quantization_config: “fp8”. The bill counts the weights as released, 672.9 GB." \
        in said
    m = pasted("gemma-3-27b-it.json")
    assert "It is a multimodal model" in text.model_info(m.spec, tr)
    assert "It is a multimodal model" in text.model_info(spec_of("gemma3-27b"), tr)
    assert "multimodal" not in text.model_info(spec_of("llama3.1-8b"), tr)
    # from the link alone (wbytes, mm): the same words, without the method's name
    link = Step5Model(model=CUSTOM, custom=m.custom)
    assert "It is a multimodal model" in text.model_info(link.spec, tr)
    # a method the tool cannot size: said, and the bill stays at 16 bits
    m = Step5Model()
    m.config = LLAMA[:-1] + ', "quantization_config": {"quant_method": "bitsandbytes"}}'
    assert m.parsed.ok and m.spec.weight_format == "16-bit"
    said = " ".join(text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)[0])
    assert "“bitsandbytes”, which this tool cannot size: the bill counts the weights at 16 " \
           "bits" in said


def test_a_pasted_configs_positions_are_not_called_its_trained_context():
    """Truth2 C-11: max_position_embeddings is what the config allows (DeepSeek-V2-Lite's
    163,840 against a 32k card); the notice past it says so for your model."""
    tr = Translator("en")
    m = pasted("DeepSeek-V2-Lite.json")
    said = norm(" ".join(text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)[0]))
    assert ("max_position_embeddings = 163,840 is the most positions the config allows; the "
            "model may have been trained on fewer") in said
    m = Step5Model(context=8192)
    m.config = LLAMA.replace("131072", "4096")
    notes = [norm(n) for n in text.notices(m.spec, m.bill, tr)]
    assert ("Your model's config allows at most 4,096 positions. A context of 8,192 tokens is "
            "hypothetical for it, although the arithmetic is the same.") in notes
    assert not any("was built for" in n for n in notes)
    # the preset carries Mistral 7B's trained 8,192 (truth2 P2-4)
    s, b = spec_of("mistral-7b"), bill_of("mistral-7b", 32768, 1, "a100-80")
    assert s.max_context == 8192
    assert any("Mistral 7B v0.1 was built for contexts of at most 8,192 tokens" in norm(n)
               for n in text.notices(s, b, tr))


@pytest.mark.parametrize("value, shown", [('"32"', "not the text “32”"), ("32.0", "not 32.0"),
                                          ("32.5", "not 32.5"), ("-3", "not -3")])
def test_a_number_field_says_what_it_got(value, shown):
    """Truth2 C-12: "32" (text) and 32.0 are not “32”."""
    m = Step5Model()
    m.config = LLAMA.replace('"num_hidden_layers": 32', f'"num_hidden_layers": {value}')
    assert not m.parsed.ok
    assert shown in text.problem_text(m.parsed.problem, Translator("en"))


def test_the_engine_pool_is_an_upper_bound_with_the_published_reserve():
    """truth3 N12: the reserve vLLM measures, from its published log (vllm#10517), each step
    by hand: 0.9 x 23.58 = 21.222 GiB; - 14.99 GiB of weights = 6.232 GiB (the upper bound);
    - 2.07 - 0.35 = 3.812 GiB; the log's 1,952 blocks x 16 tokens = 31,232 tokens."""
    assert 1952 * 16 == text.RESERVE_LOG["tokens"]
    said = text.reserve_words(Translator("en"))
    assert ("0.9 × 23.58 GiB − 14.99 GiB of weights − 2.07 GiB of activations − 0.35 GiB "
            "outside PyTorch = 3.81 GiB, 31,232 tokens of cache, where the upper bound is "
            "6.23 GiB") in said
    assert "about 1 GiB" not in said and "upper bound" in said
    pl = text.reserve_words(Translator("pl"))
    assert "3,81" in pl and "6,23" in pl and "23,58" in pl


def test_quantized_weights_say_what_stays_at_16_bits():
    """truth3 N14: Llama 3.1 8B at 4 bits: (8.03e9 - 1,050,673,152) x 0.51953125 +
    1,050,673,152 x 2 = 5,727,324,705.5 B = 5.7 GB; at 8 bits 6,979,326,848 + 2,101,346,304
    = 9,080,673,152 B = 9.1 GB. A link without the embedding's size (no `emb`) counts every
    weight quantized, 8,030,261,248 x 0.51953125 = 4,171,971,664 B = 4.2 GB, and says so."""
    from steps.step5.model import Step5Model
    tr = Translator("en")
    four = norm(text.weights_info(spec_of("llama3.1-8b", None, "fp16", "int4"), tr))
    assert four == ("The bill counts its weights at 4 bits (int4, half a byte per weight) as "
                    "AWQ and GPTQ store them: each group of 128 weights also keeps a 16-bit "
                    "scale and a 4-bit zero point, and the embeddings and the output head stay "
                    "at 16 bits: 5.7 GB, not 16.1 GB at 16 bits.")
    eight = norm(text.weights_info(spec_of("llama3.1-8b", None, "fp16", "fp8"), tr))
    assert "9.1 GB, not 16.1 GB" in eight and "output head kept at 16 bits" in eight
    assert "few per cent" not in four + eight
    old = Step5Model(model=CUSTOM, custom="layers-32_heads-32_kv-8_hd-128_params-8030261248",
                     weights="int4")
    said = norm(text.weights_info(old.spec, tr))
    assert said.startswith("The bill counts all its weights at 4 bits") and "4.2 GB" in said
    assert "does not give their size (vocab_size)" in said
    for lang in ("id", "pl", "nl"):
        assert text.weights_info(old.spec, Translator(lang)) != text.weights_info(old.spec, tr)


def test_the_question_and_narration_sum_the_layer_map():
    """truth3 N2: a Gemma-3n-like model (4 full, 16 sliding, 15 shared layers) grows by the
    4 full layers' 8,192 B per token past the window, as the bill counts, not by 19 layers'."""
    from tests.test_step5_model import _gemma3n_like
    tr = Translator("en")
    m = _gemma3n_like()
    s = spec_of(m)
    explain = norm(text.question(s, tr)["explain"])
    assert "only its 4 full-attention layers keep growing, by 8,192 B per token" in explain
    assert "19 full" not in explain and "1,910,000 tokens" in explain
    said = norm(" ".join(text.narration(s, bill_of(m, 32768, 1, "h100"), tr)))
    assert "16 sliding-window layers and 4 full-attention layers" in said
    assert "70.2 GB ÷ 285.2 MB ≈ 246 sequences" in said     # the bill's 285.2 MB, not 1.3 GB


@pytest.mark.parametrize("config,numbers,attention,total", [
    ("Jamba-v0.1", "2 × 4 × 8 × 128 × 2 B = 16,384 B", 4, 32),
    ("Llama-3.2-11B-Vision-Instruct", "2 × 32 × 8 × 128 × 2 B = 131,072 B", 32, 40),
])
def test_the_formula_multiplies_the_attention_layers(config, numbers, attention, total):
    """truth3 N5: a hybrid or cross-attention config's formula line multiplies the layers that
    cache K and V per token, and names them, not all num_hidden_layers (Jamba printed
    “2 × 32 × 8 × 128 × 2 B = 16,384 B”, whose product is 131,072)."""
    from pathlib import Path
    from steps.step5.model import Step5Model
    m = Step5Model()
    m.config = (Path(__file__).parent / "data" / "configs" / f"{config}.json").read_text()
    assert m.parsed.ok, m.parsed.problem
    tr = Translator("en")
    line = norm(text.symbolic(m.spec, dict(m.parsed.fields), m.bill, tr))
    assert numbers in line and "2 × attention layers ×" in line
    assert f"in only {attention} of the {total} layers (" in line and "num_hidden_layers)" in line
    llama = Step5Model()
    llama.config = (Path(__file__).parent / "data" / "configs" / "Llama-3.1-8B.json").read_text()
    plain = norm(text.symbolic(llama.spec, dict(llama.parsed.fields), llama.bill, tr))
    assert "2 × 32 × 8 × 128 × 2 B = 131,072 B" in plain and "in only" not in plain


def test_chunked_layers_are_called_chunked():
    """truth3 N13: Llama 4's 36 chunked layers (attention_chunk_size 8,192) are called chunked
    in the narration, the "your model" formula and the formula line, with the field they
    come from; the config has no sliding_window and nothing says "sliding"."""
    from pathlib import Path
    from steps.step5.model import Step5Model
    m = Step5Model()
    m.config = (Path(__file__).parent / "data" / "configs"
                / "Llama-4-Scout-17B-16E-Instruct.json").read_text()
    s, tr = m.spec, Translator("en")
    assert s.chunked and (s.n_window_layers, s.n_full_layers) == (36, 12)
    said = norm(" ".join(text.narration(s, m.bill, tr)))
    assert "36 chunked-attention layers and 12 full-attention layers" in said
    assert "current chunk of 8,192 tokens" in said and "sliding" not in said
    line = norm(text.symbolic(s, dict(m.parsed.fields), m.bill, tr))
    assert "chunked-attention layers (36) at most one chunk of 8,192 " in line
    assert "(text_config.attention_chunk_size)" in line and "sliding" not in line
    tail = norm(text.formula(s, m.bill.kept, 1, "1 GB", tr, m.bill.kept_local)[1])
    assert "36 chunked-attention layers" in tail and "sliding" not in tail
    gemma = spec_of("gemma3-27b")                   # a sliding window stays a sliding window
    assert not gemma.chunked
    assert "sliding-window" in " ".join(text.narration(gemma, bill_of("gemma3-27b", 32768, 1,
                                                                      "h100"), tr))


def test_model_max_length_is_the_models_longest_context():
    """truth3 N22: c4ai-command-r-v01 gives max_position_embeddings 8,192 and
    model_max_length 131,072 (its card: 128k); 32,768 tokens are not called hypothetical,
    and the text names the field the limit came from."""
    tr = Translator("en")
    m = Step5Model(context=32768)
    m.config = (CONFIGS.parent / "corpus" / "CohereForAI--c4ai-command-r-v01.json").read_text()
    said = norm(" ".join(text.custom_lines(m.parsed, m.custom_model, m.spec, m.bill, tr)[0]))
    assert "model_max_length = 131,072 is the most positions the config allows" in said
    assert not m.bill.beyond_max_context
    assert not any("hypothetical" in n for n in text.notices(m.spec, m.bill, tr))

def test_a_top_level_vision_config_is_named():
    """truth3 N9: Qwen2.5-VL keeps its language fields at the top level and its vision tower
    in `vision_config`; the count (7.62 B, the language model's: 8.29 B with the 0.68 B
    tower) is said to leave the image encoder out, from the config and from its link."""
    from pathlib import Path
    from steps.step5.model import CUSTOM, Step5Model
    tr = Translator("en")
    m = Step5Model()
    m.config = (Path(__file__).parent / "data" / "corpus"
                / "Qwen--Qwen2.5-VL-7B-Instruct.json").read_text()
    assert m.parsed.ok and m.spec.multimodal and "_mm-1" in m.custom
    assert round(m.spec.n_params / 1e9, 2) == 7.62
    info = norm(text.model_info(m.spec, tr))
    assert "It is a multimodal model: the parameters counted are its language model's" in info
    link = Step5Model(model=CUSTOM, custom=m.custom)
    assert "It is a multimodal model" in text.model_info(link.spec, tr)
    plain = Step5Model()
    plain.config = (Path(__file__).parent / "data" / "configs" / "Qwen3-8B.json").read_text()
    assert not plain.spec.multimodal and "multimodal" not in text.model_info(plain.spec, tr)


def test_the_gpu_note_says_what_the_driver_gives():
    """truth3 O-1: an L4 sold as 24 GB has 24 GiB on the bill's line, but its driver gives
    programs 23,034 MiB (nvidia-smi), the memory the planner shares out; the note says so
    where the two differ, and not where they agree (A100 80 GB: 81,920 MiB)."""
    tr = Translator("en")
    l4 = norm(text.binary_note(bill_of("llama2-7b", 4096, 1, "l4"), tr))
    assert l4.endswith("Programs get a little less: the driver reports 22.5 GiB "
                       "(23,034 MiB), and part B's planner starts from that.")
    a100 = norm(text.binary_note(bill_of("llama2-7b", 4096, 1, "a100-80"), tr))
    assert "driver" not in a100


def test_exercise_5_2_says_the_batch_is_before_activations():
    """truth3 N20: exercise 5.2's answer (a batch of 25 in 39.96 of 40 GiB) counts only the
    weights and the cache; it says activations and the runtime's buffers come on top, as
    part B's planner counts them."""
    from steps.step5.exercises import EXERCISES
    ex = next(e for e in EXERCISES if e.index == 2)
    x = ex.numbers()
    said = norm(" ".join(ex.answer(Translator("en"), x)))
    assert said.startswith(f"A batch of {x['batch']}: weights and cache take ")
    assert "activations, the CUDA context and the engine's buffers need memory too" in said


def test_the_speaker_notes_do_not_make_every_cache_grow_with_the_context():
    """truth3 N21: a sliding window stops its layers' cache (Mistral 7B, Gemma), so the notes
    say the cache grows with the context while every layer keeps every token, not always."""
    import steps.step5 as step5
    assert "in proportion to both" not in step5.NOTES
    assert "sliding-window layers, as in Gemma and Mistral 7B, stop at their window" \
        in step5.NOTES
    for lang in ("id", "pl", "nl"):
        assert Translator(lang)._(step5.NOTES) != step5.NOTES


def test_an_absent_field_is_not_said_to_say_anything():
    """truth3 N23: a mamba_ssm config (ssm_cfg, no model_type, no num_attention_heads) is
    refused because it has no attention heads; the message does not claim that the absent
    “num_attention_heads” says so. A model_type that does say it keeps its wording."""
    from steps.step5.model import parse
    tr = Translator("en")
    ssm = parse('{"d_model": 2560, "n_layer": 64, "vocab_size": 50277, '
                '"ssm_cfg": {"layer": "Mamba2"}, "tie_embeddings": true}')
    said = text.problem_text(ssm.problem, tr)
    assert "the config has no attention heads (no “num_attention_heads”)" in said
    assert "says it has no attention layers" not in said
    mamba = parse('{"model_type": "mamba", "hidden_size": 2560, "num_hidden_layers": 64, '
                  '"state_size": 16, "vocab_size": 50280}')
    assert "“model_type” says it has no attention layers" in text.problem_text(mamba.problem,
                                                                               tr)
