"""Step 5's words per language from fixed numbers (the reference figures of the memory bill,
in every locale's format), the question built from the chosen model, and the view's bindings."""
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
    assert v["fits"] == "24 GB GPU (L4, RTX 4090)"
    assert v["max_sequences"] == "30"
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
    assert set(more) == {"per_token", "fits", "crossover", "live_measured", "live_formula",
                         "live_weights"}
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


@pytest.mark.parametrize("model", list(presets.MODELS))
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
    assert frame["said"] == "The cache overtakes the weights at about 25,700 tokens."
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


def test_the_view_builds_and_binds():
    from steps.common import AppState
    from steps.step5 import Step5
    app = AppState()
    view = Step5(app)
    view.__panel__()
    m = view.model
    assert view.url_state() == {"context": 4096, "batch": 1, "model": "llama2-7b",
                                "gpu": "a100-80"}
    assert len(view.stage.frames) == 1 and view.stage.concealed
    keys = {c["key"] for c in view.stage.frames[0]["cards"]}
    assert {"per_token", "kv_cache", "weights", "total", "fits", "max_sequences",
            "live_measured", "live_formula", "live_weights"} <= keys
    view.question.choose(1)
    assert not view.stage.concealed and "Right." in view.question._feedback.object
    m.model = "llama3.1-8b"                      # a new question: the answer hides again
    assert view.stage.concealed
    m.context = 8192
    cards = {c["key"]: c for c in view.stage.frames[0]["cards"]}
    assert norm(cards["kv_cache"]["value"]) == "1.1 GB (1 GiB)"
    assert view.stage.frames[0]["fig"]["curve"]["now"]["x"] == 8192
    app.lang = "pl"
    assert m.lang == "pl"
    cards = {c["key"]: c for c in view.stage.frames[0]["cards"]}
    assert norm(cards["kv_cache"]["value"]) == "1,1 GB (1 GiB)"
    assert view.url_state()["context"] == 8192


def test_deep_link_round_trip():
    from urllib.parse import parse_qs

    from steps.shell import ExplainerApp
    app = ExplainerApp(query={"step": [b"5"], "model": [b"opt-13b"], "context": [b"2048"],
                              "batch": [b"8"], "gpu": [b"a100-40"]})
    m = app.steps[5].model
    assert (m.model, m.context, m.batch, m.gpu) == ("opt-13b", 2048, 8, "a100-40")
    assert app.view_model()["notices"] == []
    assert parse_qs(app.url_query()[1:]) == {"step": ["5"], "lang": ["en"], "context": ["2048"],
                                             "batch": ["8"], "model": ["opt-13b"],
                                             "gpu": ["a100-40"]}
