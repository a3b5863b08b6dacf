"""Step 6's words per locale, from fixed numbers: every reference figure of the step, the
question built from the state, the wording the review asked for, and the paged pool's
captions and cards for the live demo."""
import pytest

from explainer.i18n import LANGS, Translator
from steps.step6 import model as M
from steps.step6 import text as T

EN, PL = Translator("en"), Translator("pl")


def norm(s: str) -> str:
    """The locale spaces (NBSP, narrow NBSP) as plain spaces."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def values(a, tr=EN):
    return {k: norm(v) for k, v in T.part_a_values(a, tr).items()}


def card(cards, key):
    return next(c for c in cards if c["key"] == key)


# -- Part A ------------------------------------------------------------------------------------

def test_defaults_show_the_seed_figures():
    v = values(M.shrink(32, "fp16", 0))
    assert v["per_token"] == "512 KiB"
    assert v["tokens_kept"] == "16,384"
    assert v["cache_gb"] == "68.7 GB"
    assert v["cache_gib"] == "64 GiB"
    assert v["factor"] == "1×"
    assert v["scales_per_token"] == "0 B"
    assert v["baseline_gb"] == "68.7 GB"


@pytest.mark.parametrize("kv, prec, win, factor, per_token, size", [
    (8, "fp16", 0, "4×", "128 KiB", "17.2 GB"),
    (1, "fp16", 0, "32×", "16 KiB", "2.1 GB"),
    (32, "fp8", 0, "2×", "256 KiB", "34.4 GB"),
    (32, "int8", 0, "1.97×", "260 KiB", "34.9 GB"),
    (32, "int4", 0, "3.88×", "132 KiB", "17.7 GB"),
    (32, "fp16", 4096, "4×", "512 KiB", "17.2 GB"),
    (32, "fp16", 1024, "16×", "512 KiB", "4.3 GB"),
    (8, "int8", 0, "7.88×", "65 KiB", "8.7 GB"),
    (1, "int4", 1024, "1,986×", "4.125 KiB", "34.6 MB"),
])
def test_factor_per_token_and_size(kv, prec, win, factor, per_token, size):
    v = values(M.shrink(kv, prec, win))
    assert (v["factor"], v["per_token"], v["cache_gb"]) == (factor, per_token, size)


def test_four_headline_cards_and_the_rest_under_all_numbers():
    a = M.shrink(32, "int8", 0)
    head, more = T.part_a_cards(a, EN), T.part_a_more(a, EN)
    assert [c["key"] for c in head] == ["per_token", "tokens_kept", "cache_gb", "factor"]
    assert {c["key"] for c in more} == {"cache_gib", "baseline_gb", "scales_per_token"}
    assert card(head, "factor")["hidden"]                  # it answers the question
    assert norm(card(more, "scales_per_token")["value"]) == "4 KiB"
    assert card(head, "per_token")["label"] == "Cache per token (K and V, 32 layers)"
    assert card(head, "cache_gb")["label"] == "Cache for 8 sequences (GB = 10⁹ bytes)"
    assert all(c["kind"] == "computed" for c in head + more)


def test_int8_and_int4_scales_are_explained():
    text = norm(" ".join(T.part_a_explain(M.shrink(32, "int8", 0), EN)))
    assert "130 B" in text and "256 B" in text and "not 2×" in text and "1.97×" in text
    assert "not 4×" in norm(" ".join(T.part_a_explain(M.shrink(32, "int4", 0), EN)))
    assert "exactly 2×" in " ".join(T.part_a_explain(M.shrink(32, "fp8", 0), EN))
    win = " ".join(T.part_a_explain(M.shrink(32, "fp16", 1024), EN))
    assert "last 1,024 tokens of the context (16,384)" in win


def test_heads_line_and_groups():
    assert T.heads_line(M.shrink(8, "fp16", 0), EN) == \
        "32 query heads share the key/value heads (8): 4 per group (GQA)"
    assert T.heads_line(M.shrink(1, "fp16", 0), EN) == \
        "32 query heads share 1 key/value head (MQA)"
    assert T.heads_line(M.shrink(32, "fp16", 0), EN).startswith(
        "32 query heads, 32 key/value heads")
    h = T.heads(M.shrink(8, "fp16", 0), EN)
    assert (h["groups"], h["per_group"]) == (8, 4)


def test_bars_baseline_against_setting_and_no_one_times_smaller():
    b = T.bars(M.shrink(8, "fp16", 0), EN)
    base, this = b["rows"]
    assert base["frac"] == 1 and this["frac"] == pytest.approx(0.25)
    assert norm(this["label"]) == "17.2 GB (4× smaller)"
    same = T.bars(M.shrink(32, "fp16", 0), EN)["rows"][1]["label"]
    assert norm(same) == "68.7 GB (same size as the baseline)"
    assert "1×" not in same
    hidden = T.bars(M.shrink(8, "fp16", 0), EN, concealed=True)
    # while the question is open: the size alone, no factor and no “(? smaller)”
    assert norm(hidden["rows"][1]["label"]) == "17.2 GB"
    assert "4×" not in hidden["desc"] and "?" not in hidden["desc"]
    assert norm(T.bars(M.shrink(32, "fp16", 0), EN, concealed=True)["rows"][1]["label"]) == \
        "68.7 GB (same size as the baseline)"


def test_question_from_the_state():
    q = T.question(M.heads_question("fp16", 0), EN)
    assert q["options"] == ["2×", "4×", "32×"] and q["options"][q["correct"]] == "4×"
    assert "32" in q["prompt"] and "8" in q["prompt"] and "fp16" in q["prompt"]
    assert "512 KiB" in norm(q["explain"]) and "128 KiB" in norm(q["explain"])
    q8 = T.question(M.heads_question("int8", 0), EN)
    assert "int8" in q8["prompt"] and "260 KiB" in norm(q8["explain"])
    assert "65 KiB" in norm(q8["explain"])
    assert q8["key"] == q["key"]              # a new precision does not ask again


def test_the_words_name_a_model_that_can_process_the_context():
    """Row 3 of the review: 16,384 tokens are past Llama 2 7B's 4,096, so Part A is computed
    for Llama 3.1 8B (131,072) and the screen says that its MHA baseline is hypothetical."""
    lead = T.lead(EN)
    assert "three ways to make the cache smaller, first computed for Llama 3.1 8B" in lead
    assert "four ways" not in lead and "7B model" not in lead
    assert "leaves the cache the same size" in lead              # paging does not shrink it
    title, sub = T.part_a_heading(EN)
    assert title == "A. Fewer heads, fewer bits, fewer tokens: computed for Llama 3.1 8B"
    assert "16,384 tokens each (Llama 3.1 8B handles up to 131,072)" in sub
    assert "32 key/value heads, one per query head as in Llama 2 7B" in sub
    assert "Llama 3.1 8B itself was trained with 8 key/value heads: the GQA setting." in sub
    assert T.control_labels(EN)["kv_heads"] == "Key/value heads (Llama 3.1 8B)"
    assert "Llama 3.1 8B" in T.bars(M.shrink(8, "fp16", 0), EN)["caption"]
    q = T.question(M.heads_question("fp16", 0), EN)
    assert q["prompt"].startswith("Switching Llama 3.1 8B from 32 KV heads (MHA) to 8 (GQA)")
    assert "Llama 3.1 8B was trained with 8 KV heads, so this is its real cache" in q["explain"]
    assert "Llama 3 8B," not in q["explain"]


def test_narration_states_the_caveats():
    paras = [norm(p) for p in sum(T.part_a_narration(M.shrink(32, "fp16", 0), EN).values(), [])]
    text = " ".join(paras)
    # H2O: 29× against DeepSpeed Zero-Inference and HF Accelerate, 3× against FlexGen
    assert ("up to 29× higher throughput than DeepSpeed Zero-Inference and Hugging Face "
            "Accelerate, and 3× higher than FlexGen") in text
    assert "OPT-6.7B and OPT-30B" in text and "offloaded" in text
    # Mistral v0.1's window, per layer, and the later versions without one
    assert "Mistral 7B v0.1 attends to the last 4,096 tokens in each layer" in text
    assert "4,096 × 32 = 131,072 tokens back" in text and "later versions dropped" in text
    # GQA can also come from uptraining; int4 costs more than int8/fp8
    assert "about 5 percent of their pre-training compute" in text
    assert "fp8 and int8 usually cost little accuracy; int4 often costs more" in text
    assert "KIVI (Liu et al. 2024)" in text and "per channel" in text
    assert "(int8 or less)" not in text and "small cost in accuracy" not in text
    # the weights of the model computed here: 8.03 B parameters × 2 bytes
    assert paras[-1] == ("For scale: the baseline cache of 68.7 GB is 4.3 times the 16.1 GB "
                         "of the model's 16-bit (bf16) weights.")


def test_labels_say_which_baseline():
    labels = [c.label for c in T.CARDS_C + T.MORE_C]
    assert not any("above" in l for l in labels)
    assert any("live model's MHA fp16 full cache" in l for l in labels)


def test_polish_numbers():
    v = values(M.shrink(32, "int8", 0), PL)
    assert v["tokens_kept"] == "16 384"
    assert v["cache_gb"] == "34,9 GB"
    assert v["factor"] == "1,97×"


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_setting_renders_in_every_language(lang):
    tr = Translator(lang)
    for kv in M.KV_CHOICES:
        for prec in M.PRECISION_CHOICES:
            for w in M.WINDOW_CHOICES:
                a = M.shrink(kv, prec, w)
                assert T.part_a_cards(a, tr) and T.part_a_more(a, tr)
                assert len(T.part_a_explain(a, tr)) == 3 and T.part_a_narration(a, tr)
                assert T.bars(a, tr)["rows"] and T.heads(a, tr)["line"]
        q = T.question(M.heads_question(prec, 0), tr)
        assert len(q["options"]) == 3
    assert len(T.part_titles(tr)) == 4
    assert set(T.kv_options(tr).values()) == {32, 8, 1}
    assert set(T.window_options(tr).values()) == {0, 4096, 1024}


# -- Part B ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def paged():
    return M.paged_pool("mha")


def test_paged_frames_in_english(paged):
    frames = T.paged_frames(paged, EN)
    assert len(frames) == paged.n_frames
    caps = [f["caption"] for f in frames]
    assert any(c.startswith("Request B shares the prefix's 2 blocks") for c in caps)
    assert any("copy on write" in c for c in caps)
    assert any(c.startswith("A new block for request A") for c in caps)
    assert caps[-1].startswith("Request C finished: its") and "freed" in caps[-1]
    assert "Every request has finished" in caps[-1]
    assert frames[0]["pos"] == f"Event 1 of {paged.n_frames}"
    last = {c["key"]: c["value"] for c in frames[-1]["cards"]}
    assert last["blocks_used"] == "0 of 24"
    for f, pf in zip(frames, paged.frames):
        v = {c["key"]: c["value"] for c in f["cards"]}
        assert v["blocks_used"] == f"{pf.blocks_used} of {pf.blocks_total}"
        assert v["slots_wasted"] == str(pf.slots_wasted)
        assert v["sharing_saved"] == str(pf.sharing_saved)
        assert v["copies_on_write"] == str(pf.copies_on_write)
        assert len(f["fig"]["blocks"]) == pf.blocks_total
        assert [c["key"] for c in f["cards"] if not c.get("more")] == [
            "blocks_used", "paged_share", "reserved_share", "sharing_saved"]


def test_pool_figure_colours_and_marks(paged):
    frames = T.paged_frames(paged, EN)
    fork_b = next(f for f, pf in zip(frames, paged.frames) if pf.event == "fork"
                  and pf.seq == "B")
    b0 = fork_b["fig"]["blocks"][0]
    assert b0["cls"] == "shared" and b0["mark"] == "×3" and b0["who"] == "P A B"
    assert b0["changed"]
    owners = {b["cls"] for f in frames for b in f["fig"]["blocks"]}
    assert owners <= {"free", "shared", "own-prefix", "own-A", "own-B", "own-C"}
    assert {k for k, _ in T.pool_legend(EN)} == {"free", "shared", "req-a", "req-b", "req-c",
                                                 "changed"}
    assert not {"key", "value"} & {k for k, _ in T.pool_legend(EN)}   # never K/V colours
    decode = next(f for f, pf in zip(frames, paged.frames) if pf.event == "decode")
    assert decode["table"]["rows"] and decode["table"]["head"][0] == "Sequence"


def test_reservation_numbers(paged):
    i = max(k for k, f in enumerate(paged.frames) if f.n_requests == 3
            and f.event == "decode")
    frame = T.paged_frames(paged, EN)[i]
    v = {c["key"]: norm(c["value"]) for c in frame["cards"]}
    assert v["reserved"] == "12 MiB"
    labels = {c["key"]: c["label"] for c in frame["cards"]}
    assert labels["reserved"] == "Reserving 1,024 tokens for each of 3 requests"
    text = " ".join(sum(T.part_b_narration(paged, EN).values(), []))
    assert "20.4%" in text and "38.2%" in text and "1,024" in text


@pytest.mark.parametrize("lang", ["id", "pl", "nl"])
def test_paged_frames_in_other_languages(paged, lang):
    tr = Translator(lang)
    frames = T.paged_frames(paged, tr)
    assert len(frames) == paged.n_frames and all(f["caption"] for f in frames)
    if lang == "pl":
        assert norm(frames[0]["cards"][0]["value"]).startswith("2 ")
        assert "," in frames[0]["cards"][2]["value"]            # 0,7%


# -- Part C ------------------------------------------------------------------------------------

RUN = M.LiveRun(ids=tuple(range(16)), variant="gqa", kind="int8", window=None,
                nbytes=25_000, exact_nbytes=96_256, base_nbytes=96_256, top1=0.96875,
                dlogit=0.1234, prompt_text="<b>A</b> prompt", text="the cat sat .",
                exact_text="the dog sat .", tokens=("the", "cat", "sat", "."),
                exact_tokens=("the", "dog", "sat", "."), n_layers=4, n_heads=4,
                n_kv_heads=2, head_dim=32, device="cpu")


def test_live_cards():
    head, more = T.live_cards(RUN, EN), T.live_more(RUN, EN)
    assert [c["key"] for c in head] == ["live_bytes", "live_factor_base", "live_top1",
                                        "live_dlogit"]
    assert {c["key"] for c in more} == {"live_exact_bytes", "live_factor_exact"}
    v = {c["key"]: norm(c["value"]) for c in head + more}
    assert v["live_factor_base"] == "3.85×" and v["live_top1"] == "97%"
    assert v["live_dlogit"] == "0.123" and v["live_exact_bytes"] == "94 KiB"
    assert card(head, "live_bytes")["label"] == "Bytes the cache stores at the end (gqa, int8)"
    assert all(c["kind"] == "measured" for c in head + more)
    assert T.live_cards(None, EN) == [] and T.live_more(None, EN) == []
    pl = {c["key"]: c["value"] for c in T.live_cards(RUN, PL)}
    assert pl["live_dlogit"] == "0,123"


def setting(kv=8, prec="fp16", win=0, W=None, kind="fp16"):
    return M.LiveSetting(kv, prec, win, tuple(range(16)), M.LIVE_VARIANT[kv], kind, W, 4,
                         {32: 4, 8: 2, 1: 1}[kv])


def mapping_lines(s) -> list[str]:
    said = T.live_mapping(s, EN)
    return [*said["look"], *said["live"]]


def test_live_mapping_in_plain_words():
    lines = mapping_lines(setting(8))
    assert "4 query heads" in lines[0] and "“gqa”" in lines[0] and "2 key/value heads" in \
        lines[0]
    assert "→" not in " ".join(lines)
    lines = mapping_lines(setting(32, win=4096, W=12))
    assert "W = 12" in lines[1] and "25%" in lines[1]
    # the window is kept in the precision chosen, and the page says which
    assert lines[2] == "The live cache stores its keys and values in fp16."
    assert "47 tokens" in lines[3]
    lines = mapping_lines(setting(32, "int4", win=1024, W=3, kind="int4"))
    assert lines[2] == "The live cache stores its keys and values in int4."
    assert any("dequantized" in line for line in lines)


def test_live_mapping_says_what_the_bytes_count():
    """int8/int4: the bytes are the stored cache (values + scales); the demo also keeps
    dequantized fp32 copies. And the head count is not fixed forever (GQA uptraining)."""
    for kind in ("int8", "int4"):
        lines = mapping_lines(setting(8, kind, kind=kind))
        note = next(l for l in lines if "dequantized" in l)
        assert note.startswith(f"With {kind}, the bytes counted are what the cache has to store")
        assert "holds more memory than the exact cache" in note
    for lines in (mapping_lines(setting(8)), mapping_lines(setting(32, win=4096, W=12))):
        assert not any("dequantized" in l for l in lines)
        assert lines[-1].startswith("The live MHA, GQA and MQA models were trained separately")
        assert "fixed before training" not in " ".join(lines)


def test_live_notices():
    assert "no fp8 cache" in T.live_setting_notices(setting(32, "fp8"), EN)[0]
    assert T.live_setting_notices(setting(32, "int4", 1024, W=3, kind="int4"), EN) == []
    assert "no fp8 cache" in T.live_setting_notices(setting(32, "fp8", 1024, W=3), EN)[0]
    assert T.live_setting_notices(setting(32, "int8"), EN) == []
    pending = T.live_notices("pending", "", EN, kind="live", shown=True)
    assert "Measuring" in pending[0] and "previous result" in pending[0]
    assert "boom" in T.live_notices("failed", "boom", EN, kind="live", shown=False)[0]
    assert "block pool" in T.live_notices("pending", "", EN, kind="paged", shown=False)[0]
    assert T.live_notices("ready", "", EN, kind="live", shown=True) == []


def test_continuations_side_by_side_with_differences_marked():
    c = T.continuations(RUN, EN)
    assert [t["diff"] for t in c["this"]] == [False, True, False, False]
    # written as text is written: no space before the full stop (“sat.”, not “sat .”)
    assert [t["sp"] for t in c["this"]] == [False, True, True, False]
    # the exact run token by token too (each a box when projected), never marked
    assert "".join((" " if t["sp"] else "") + t["text"] for t in c["exact"]) == "the dog sat."
    assert not any(t["diff"] for t in c["exact"])
    assert "marked" in c["note"]
    same = T.continuations(M.LiveRun(**{**RUN.__dict__, "tokens": RUN.exact_tokens}), EN)
    assert same["note"] == "The two continuations are identical."
    assert "gqa" in T.live_facts(RUN, EN) and "2 key/value heads" in T.live_facts(RUN, EN)


# -- Parts B and C: their own questions ----------------------------------------------------------

def test_pool_question_from_the_pool_on_screen():
    p = M.paged_pool()
    i = T.pool_question_event(p)
    f = p.frames[i]
    assert f.tokens == max(fr.tokens for fr in p.frames)
    q = T.pool_question(p, EN)
    share = f.tokens / (f.n_requests * p.max_len)
    assert q["options"][q["correct"]] == EN.pct(share, 1) == T.pool_values(f, EN)["reserved_share"]
    assert q["options"] == sorted(q["options"], key=lambda s: float(s.rstrip("%")))
    assert EN.pct(f.tokens / p.max_len, 1) in q["options"]     # one reservation, not n
    assert q["key"][:3] == ("step6", "b", i) and q["reveal"] == {"frame": i}
    assert (f"Reserved token slots: {f.n_requests} × {EN.int(p.max_len)} = "
            f"{EN.int(f.n_requests * p.max_len)}") in q["explain"]
    assert f"blocks (block size: {p.block_size})" in q["explain"]
    assert card(T.pool_cards(f, p, EN), "reserved_share")["hidden"]
    for lang in LANGS:
        tr = Translator(lang)
        qt = T.pool_question(p, tr)
        assert qt["correct"] == q["correct"] and norm(tr.int(p.max_len)) in norm(qt["prompt"])


def fake_run(kind, top1, dlogit, window=None):
    from types import SimpleNamespace
    return SimpleNamespace(kind=kind, top1=top1, dlogit=dlogit, variant="gqa", window=window)


@pytest.mark.parametrize("lang", list(LANGS))
def test_live_question_names_the_setting_that_changed_the_output_most(lang):
    tr = Translator(lang)
    runs = [fake_run("int8", 1.0, 0.01), fake_run("int4", 0.97, 0.4), fake_run("window", 0.5,
                                                                             3.0, 12)]
    q = T.live_question(runs, tr)
    assert q["options"][:2] == ["int8", "int4"] and "12" in q["options"][2]
    assert q["correct"] == 2 and q["reveal"] == {"precision": "fp16", "window": 4096}
    assert all(tr.pct(x, 0) in q["explain"] for x in (1.0, 0.97, 0.5))
    assert "gqa" in q["prompt"] and tr.int(M.N_NEW) in q["prompt"]
    # a tie on agreement goes to the larger |Δ logit|; another winner, another explanation
    runs = [fake_run("int8", 0.9, 0.5), fake_run("int4", 0.9, 0.8), fake_run("window", 1.0,
                                                                          0.1, 12)]
    q4 = T.live_question(runs, tr)
    assert q4["correct"] == 1 and q4["reveal"] == {"precision": "int4", "window": 0}
    assert q4["explain"] != q["explain"]
    # the key names what is asked (the variant, its window), never the answer: it travels in
    # the page's state before the question is answered
    assert q4["key"] == q["key"] == ("step6", "c", "gqa", 12)


def test_the_takeaway_does_not_say_paging_shrinks_the_cache():
    """truth3 N25: paged memory leaves the cache the same size and hands out memory block by
    block instead of reserving a maximum length (part B), so the takeaway lists it apart from
    the three ways that shrink the cache (and, one of six projected on one screen, says no
    more than that)."""
    import steps.step6 as step6
    said = " ".join(step6.TAKEAWAY.split())
    shrink, _, rest = said.partition("shrink it")
    assert "paged" not in shrink.lower() and "sliding window" in shrink
    assert "Paged memory leaves it the same size" in rest and "more sequences fit" in rest
    for lang in ("id", "pl", "nl"):
        assert Translator(lang)._(step6.TAKEAWAY) != step6.TAKEAWAY
