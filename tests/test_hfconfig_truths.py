"""Real config.json files, pasted as a user would, against what the modeling code says.

`tests/data/configs/` holds the 30 configs of the truth review (round 2) and its
`truths.json` (see the README there). For each: the KV cache at 4,096 and 32,768
tokens within 1 %, the parameters within 2 % (the active ones too where the
truth is an exact count), or the named refusal. Then a few configs of the same
families written by hand, and the link form of each.
"""

import json
from pathlib import Path

import pytest

from explainer import costs
from explainer.hfconfig import ConfigError, from_query, parse_config, to_query

DATA = Path(__file__).parent / "data" / "configs"
TRUTHS = json.loads((DATA / "truths.json").read_text())

REFUSED = {  # config -> the ConfigError code it must end in
    "mamba-2.8b-hf": "no_kv_cache",
    "Mamba-Codestral-7B-Infinity-replaced": "no_kv_cache",
    "Mamba-Codestral-7B-v0.1-as-published-Infinity": "no_kv_cache",
    "t5-11b": "encoder_decoder",
}
ROUND_ACTIVE = {"DeepSeek-V3", "Jamba-v0.1", "Qwen3-Next-80B-A3B", "Llama-4-Maverick-17B-128E"}
"""Truths whose active count is a model card's round figure, not a count."""


def text_of(name: str) -> str:
    path = DATA / f"{name}.json"
    return (path if path.exists() else DATA / f"{name}.json.txt").read_text()


def read(name: str, **kw):
    """parse_config as step 5 calls it: the count entered when the config cannot give it."""
    try:
        return parse_config(text_of(name), **kw)
    except ConfigError as e:
        if e.code != "params_needed":
            raise
        return parse_config(text_of(name), n_params=TRUTHS[name]["params"])


def kv_bytes(m, ctx):
    """The per-token part of the cache (what the truths give): states left out."""
    uses = costs.layer_map(m, ctx)
    return sum(u.tokens * costs.kv_bytes_per_token_per_layer(m) for u in uses)


def truth_cache(t, ctx):
    layers = t["full_per_token"] / t["per_layer"]
    local = t["n_local"]
    window = t["window"] or ctx
    return t["per_layer"] * ((layers - local) * ctx + local * min(ctx, window))


SIZED = sorted(n for n, t in TRUTHS.items() if "per_layer" in t)


def test_every_config_has_a_truth_and_a_file():
    assert len(TRUTHS) == 29  # the 30th of the review is Scout re-saved, built below
    for name in TRUTHS:
        assert text_of(name)


def test_llama4_scout_re_saved_with_layer_types_reads_the_same():
    cfg = json.loads(text_of("Llama-4-Scout-17B-16E-Instruct"))
    tc = cfg["text_config"]
    tc["layer_types"] = ["chunked_attention" if r else "full_attention"
                         for r in tc.pop("no_rope_layers")]
    again = parse_config(json.dumps(cfg)).preset
    assert again.layers == read("Llama-4-Scout-17B-16E-Instruct").preset.layers


@pytest.mark.parametrize("name", SIZED)
@pytest.mark.parametrize("ctx", [4096, 32768])
def test_cache_within_one_percent(name, ctx):
    m = read(name).preset
    t = TRUTHS[name]
    assert kv_bytes(m, ctx) == pytest.approx(truth_cache(t, ctx), rel=0.01)
    # the same figure through every sizing function
    per_seq = costs.kv_cache_bytes(m, ctx, window=m.cache_window)
    assert per_seq == sum(u.nbytes for u in costs.layer_map(m, ctx))
    assert costs.kv_bytes_per_token(m) == t["full_per_token"]


@pytest.mark.parametrize("name", SIZED)
def test_parameters_within_two_percent(name):
    parsed = read(name)
    t = TRUTHS[name]
    m = parsed.preset
    assert m.n_params == pytest.approx(t["params"], rel=0.02)
    if t["active"] and name not in ROUND_ACTIVE:
        assert m.n_active_params == pytest.approx(t["active"], rel=0.02)
    elif t["active"]:
        assert m.n_active_params == pytest.approx(t["active"], rel=0.30)
    else:
        assert not m.is_moe
    assert m.max_context in (t["max_ctx"], None)


@pytest.mark.parametrize("name,code", sorted(REFUSED.items()))
def test_refusals_are_named(name, code):
    assert TRUTHS[name].get("error")
    with pytest.raises(ConfigError) as e:
        parse_config(text_of(name))
    assert e.value.code == code
    with pytest.raises(ConfigError) as e:  # entering a count does not turn it into a number
        parse_config(text_of(name), n_params=7e9)
    assert e.value.code == code


def test_llama32_vision_cross_attention_layers_hold_no_text_tokens():
    m = read("Llama-3.2-11B-Vision-Instruct").preset
    kinds = [s.kind for s in m.layers]
    assert kinds.count("cross") == 8 and kinds.index("cross") == 3
    assert costs.kv_bytes_per_token(m) == TRUTHS["Llama-3.2-11B-Vision-Instruct"][
        "per_text_token_bytes_fp16"] == 131072
    assert m.multimodal


def test_llama4_chunked_layers_and_moe():
    scout = read("Llama-4-Scout-17B-16E-Instruct")
    m = scout.preset
    kinds = [s.kind for s in m.layers]
    assert kinds[:4] == ["chunked", "chunked", "chunked", "full"] and kinds.count("full") == 12
    assert {s.span for s in m.layers if s.kind == "chunked"} == {8192}
    use = costs.layer_map(m, 131072)
    assert use[0].tokens == 8192 and use[3].tokens == 131072
    # 2.3x / 3.4x smaller than counting every layer as full (the review's figures)
    full = costs.kv_cache_bytes(m, 32768)
    assert full / costs.kv_cache_bytes(m, 32768, window=m.cache_window) == pytest.approx(2.29, abs=0.01)
    assert scout.params.shared > 0 and m.n_active_params == pytest.approx(17.17e9, rel=0.001)
    maverick = read("Llama-4-Maverick-17B-128E")
    assert maverick.params.dense_mlp == 24 * 3 * 5120 * 16384  # every other layer dense


def test_hybrids_count_only_their_attention_layers_and_size_the_state():
    jamba = read("Jamba-v0.1").preset
    assert [i for i, s in enumerate(jamba.layers) if s.kind == "full"] == [4, 12, 20, 28]
    # 28 Mamba layers x d_inner 8192 x (d_state 16 + d_conv 4) values, 16-bit
    state = 28 * 8192 * 20 * 2
    assert costs.kv_cache_bytes(jamba, 262144, window=jamba.cache_window) == 262144 * 16384 + state
    assert round(costs.kv_cache_bytes(jamba, 262144, window=jamba.cache_window) / 1e9, 1) == 4.3
    nxt = read("Qwen3-Next-80B-A3B").preset
    assert sum(s.kind == "full" for s in nxt.layers) == 12
    # Gated DeltaNet: 32 value heads x 128 x 128 state + conv (2 x 16 x 128 + 32 x 128) x 4
    assert {s.fixed_values for s in nxt.layers if s.kind == "state"} == {32 * 128 * 128 + 8192 * 4}


def test_falcon_heads_as_the_modeling_code_reads_them():
    for name, kv in (("falcon-7b", 1), ("falcon-7b-fine-tune-re-saved", 1), ("falcon-40b", 8)):
        assert read(name).preset.n_kv_heads == kv
    cfg = json.loads(text_of("falcon-7b"))
    cfg.update(multi_query=False)  # neither MQA nor the new layout: one KV head per query head
    assert parse_config(json.dumps(cfg), n_params=7e9).preset.n_kv_heads == 71
    del cfg["multi_query"]  # FalconConfig's default is multi_query=True
    assert parse_config(json.dumps(cfg), n_params=7e9).preset.n_kv_heads == 1


def test_cohere_tied_embeddings_and_quantized_weights():
    cohere = read("command-r7b-12-2024-Cohere2")
    assert cohere.params.lm_head == 0
    ds = read("DeepSeek-V3")
    assert ds.quantization == "fp8" and ds.preset.dtype == "fp8"
    assert costs.weight_bytes(ds.preset) == pytest.approx(671e9, rel=0.01)
    oss = read("gpt-oss-20b")
    assert oss.quantization == "mxfp4"
    assert costs.weight_bytes(oss.preset) / 2**30 == pytest.approx(12.8, rel=0.01)


def test_multimodal_configs_say_their_count_is_the_language_model():
    for name in ("gemma-3-27b-it", "Mistral-Small-3.1-24B-Instruct-2503",
                 "Llama-4-Scout-17B-16E-Instruct"):
        assert read(name).preset.multimodal
    assert not read("Llama-3.1-8B").preset.multimodal


@pytest.mark.parametrize("name", SIZED + ["Llama-3.2-11B-Vision-Instruct"])
def test_links_reproduce_the_same_cache(name):
    m = read(name).preset
    back = from_query(to_query(m))
    assert back.layers == m.layers
    for ctx in (1000, 32768, 200000):
        assert costs.kv_cache_bytes(back, ctx, window=back.cache_window) == costs.kv_cache_bytes(
            m, ctx, window=m.cache_window)
    assert costs.weight_bytes(back) == pytest.approx(costs.weight_bytes(m))
    assert back.multimodal == m.multimodal


# --------------------------------------------------------------------------
# More of the same families, written by hand
# --------------------------------------------------------------------------

LLAMA = dict(model_type="llama", hidden_size=1024, intermediate_size=4096,
             num_attention_heads=16, num_key_value_heads=4, num_hidden_layers=8,
             vocab_size=32000, torch_dtype="bfloat16")


def cfg(**changes):
    out = dict(LLAMA, **changes)
    return json.dumps({k: v for k, v in out.items() if v is not None})


def kinds(text, **kw):
    return [s.kind for s in parse_config(text, **kw).preset.layers]


def test_layout_fields_of_other_families():
    # Nemotron-H: M = Mamba-2, * = attention, - = MLP
    nem = cfg(model_type="nemotron_h", hybrid_override_pattern="M-M*M-M*",
              mamba_num_heads=32, mamba_head_dim=64, ssm_state_size=128, n_groups=8,
              conv_kernel=4)
    assert kinds(nem, n_params=1e9) == ["state", "none", "state", "full"] * 2
    state = 32 * 64 * 128 + (32 * 64 + 2 * 8 * 128) * 4
    assert parse_config(nem, n_params=1e9).preset.layers[0].fixed_values == state
    # its own count, block by block: 4 Mamba-2 mixers, 2 attentions, 2 MLPs, 9 norms
    mamba = (1024 * (2 * 2048 + 2 * 8 * 128 + 32) + (2048 + 2 * 8 * 128) * (4 + 1)
             + 3 * 32 + 2048 + 2048 * 1024)
    attention = 2 * 1024 * 16 * 64 + 2 * 1024 * 4 * 64
    want = 2 * 32000 * 1024 + 4 * mamba + 2 * attention + 2 * 2 * 1024 * 4096 + 9 * 1024
    assert parse_config(nem).params.total == want
    with pytest.raises(ConfigError) as e:  # an MoE block without its sizes: a count is asked for
        parse_config(cfg(**dict(json.loads(nem), hybrid_override_pattern="M-M*M-ME")))
    assert (e.value.code, e.value.values["missing"]) == ("params_needed", "n_routed_experts")
    # MiniMax-01: 0 = lightning attention (a head_dim x head_dim state per head), 1 = softmax
    mm = cfg(attn_type_list=[0, 0, 0, 1] * 2, head_dim=64)
    assert kinds(mm, n_params=1e9) == ["state"] * 3 + ["full"] + ["state"] * 3 + ["full"]
    # layers_block_type (Jamba's newer configs), with a state that cannot be sized: the
    # error names the field the config has (truth3 N7)
    with pytest.raises(ConfigError) as e:
        parse_config(cfg(layers_block_type=["mamba", "attention"] * 4))
    assert (e.value.code, e.value.field) == ("state_unsized", "layers_block_type")
    # Gemma 3n: the last layers reuse earlier layers' K/V and cache nothing
    shared = cfg(num_kv_shared_layers=3)
    assert kinds(shared) == ["full"] * 5 + ["shared"] * 3
    m = parse_config(shared).preset
    assert costs.kv_bytes_per_token(m) == 5 * 2 * 4 * 64 * 2
    # Llama 4 without no_rope_layers: every 4th layer is NoPE and full
    assert kinds(cfg(model_type="llama4_text", attention_chunk_size=512, num_local_experts=4,
                     num_experts_per_tok=1)) == ["chunked"] * 3 + ["full"] + ["chunked"] * 3 + ["full"]
    # Qwen2 with use_sliding_window: layers from max_window_layers on are windowed;
    # a layer_types list with the window off stays full
    assert kinds(cfg(model_type="qwen2", use_sliding_window=True, sliding_window=512,
                     max_window_layers=6)) == ["full"] * 6 + ["sliding"] * 2
    assert kinds(cfg(model_type="qwen2", use_sliding_window=False, sliding_window=512,
                     layer_types=["sliding_attention"] * 8)) == ["full"] * 8
    # Cohere2 without sliding_window_pattern: the class default 4
    assert kinds(cfg(model_type="cohere2", sliding_window=256)) == (["sliding"] * 3 + ["full"]) * 2


def test_dbrx_style_attn_config_and_dtype_auto():
    dbrx = json.dumps(dict(model_type="dbrx", d_model=1024, n_heads=16, n_layers=4,
                           attn_config=dict(kv_n_heads=4), vocab_size=100,
                           max_seq_len=4096, torch_dtype="auto"))
    m = parse_config(dbrx, n_params=1e9).preset
    assert (m.n_layers, m.n_heads, m.n_kv_heads, m.head_dim, m.dtype) == (4, 16, 4, 64, None)


def test_moe_layer_rules():
    qwen = dict(LLAMA, model_type="qwen2_moe", num_experts=8, num_experts_per_tok=2,
                moe_intermediate_size=256, shared_expert_intermediate_size=512)
    every = parse_config(json.dumps(qwen)).params
    half = parse_config(json.dumps(dict(qwen, decoder_sparse_step=2))).params
    only = parse_config(json.dumps(dict(qwen, mlp_only_layers=[0, 1]))).params
    per_moe_layer = 8 * 3 * 1024 * 256
    assert every.experts == 8 * per_moe_layer and half.experts == 4 * per_moe_layer
    assert only.experts == 6 * per_moe_layer and only.dense_mlp == 2 * 3 * 1024 * 4096
    with pytest.raises(ConfigError):
        parse_config(json.dumps(dict(qwen, mlp_only_layers=[99])))


def test_infinity_only_matters_where_it_is_read():
    assert parse_config(cfg(time_step_limit=[0.0, float("inf")]).replace("inf", "Infinity"))
    with pytest.raises(ConfigError) as e:
        parse_config(cfg(num_hidden_layers=None)[:-1] + ', "num_hidden_layers": Infinity}')
    assert (e.value.field, e.value.code) == ("num_hidden_layers", "not_positive_int")


def test_bad_layouts_are_clear_errors():
    for bad, field, code in [
        (dict(hybrid_override_pattern="M*"), "hybrid_override_pattern", "layer_types_length"),
        (dict(hybrid_override_pattern="MQMQMQMQ"), "hybrid_override_pattern", "unsupported"),
        (dict(attn_type_list=[2] * 8), "attn_type_list", "bad_value"),
        (dict(cross_attention_layers=[8]), "cross_attention_layers", "bad_value"),
        (dict(cross_attention_layers="3"), "cross_attention_layers", "bad_value"),
        (dict(attn_layer_period=4, attn_layer_offset=4), "attn_layer_offset", "bad_value"),
        (dict(num_kv_shared_layers=8), "num_kv_shared_layers", "bad_value"),
        (dict(layer_types=["chunked_attention"] * 8), "attention_chunk_size", "missing"),
        (dict(model_type="llama4_text", attention_chunk_size=64, no_rope_layers=[1] * 7),
         "no_rope_layers", "layer_types_length"),
        (dict(layer_types=["cross_attention"] * 8), "layer_types", "no_kv_cache"),
    ]:
        with pytest.raises(ConfigError) as e:
            parse_config(cfg(**bad), n_params=1e9)
        assert (e.value.field, e.value.code) == (field, code), bad


CORPUS = Path(__file__).parent / "data" / "corpus"


def test_a_top_level_vision_config_makes_the_count_the_language_models():
    """truth3 N9: Qwen2.5-VL keeps its language fields at the top level and its vision
    tower in ``vision_config``; the reader counts the language model (7.62 B of the
    8.29 B) and marks the preset multimodal, as it does for a ``text_config``."""
    vl = parse_config((CORPUS / "Qwen--Qwen2.5-VL-7B-Instruct.json").read_text())
    assert vl.preset.multimodal and round(vl.params.total / 1e9, 2) == 7.62
    assert from_query(to_query(vl.preset)).multimodal
    for key in ("vision_config", "visual", "vision_tower"):
        assert parse_config(cfg(**{key: dict(depth=2)})).preset.multimodal, key
    # a key that is not an object describes no tower
    assert not parse_config(cfg(vision_config=None, visual="none")).preset.multimodal


def test_the_longest_context_is_what_the_config_allows_in_any_of_its_fields():
    """truth3 N22: c4ai-command-r-v01 gives ``max_position_embeddings`` 8,192 and
    ``model_max_length`` 131,072 (its card: 128k); the reader takes the larger, names that
    field alone, and 32,768 tokens are within the model's limit."""
    cr = parse_config((CORPUS / "CohereForAI--c4ai-command-r-v01.json").read_text())
    read = dict(cr.fields_read)
    assert cr.preset.max_context == 131_072
    assert read["model_max_length"] == 131_072 and "max_position_embeddings" not in read
    assert not costs.exceeds_max_context(cr.preset, 32_768)
    # the larger wins either way; a config without model_max_length reads as before
    small = parse_config(cfg(max_position_embeddings=32_768, model_max_length=4096))
    assert small.preset.max_context == 32_768
    assert dict(small.fields_read)["max_position_embeddings"] == 32_768
    assert parse_config(cfg(max_position_embeddings=4096)).preset.max_context == 4096
    # transformers' "no limit" (int(1e30), a tokenizer's default) says nothing of the model
    assert parse_config(cfg(max_position_embeddings=4096,
                            model_max_length=int(1e30))).preset.max_context == 4096
    with pytest.raises(ConfigError) as e:
        parse_config(cfg(model_max_length="128k"))
    assert (e.value.field, e.value.code) == ("model_max_length", "not_positive_int")


MAMBA2ATTN = dict(  # state-spaces/mamba2attn-2.7b's config.json (mamba_ssm MixerModel)
    d_model=2560, d_intermediate=0, n_layer=64, vocab_size=50277,
    ssm_cfg={"layer": "Mamba2"}, attn_layer_idx=[9, 18, 27, 36, 45, 56],
    attn_cfg={"causal": True, "d_conv": 4, "head_dim": 128, "num_heads": 30,
              "out_proj_bias": True, "qkv_proj_bias": True, "rotary_emb_dim": 64},
    rms_norm=True, residual_in_fp32=True, fused_add_norm=True, pad_vocab_size_multiple=16,
    tie_embeddings=True)


def test_mamba_ssm_hybrids_size_their_attention_layers():
    """truth3 N6: mamba2attn-2.7b names its attention layers in ``attn_layer_idx`` and
    their heads in ``attn_cfg``: 6 MHA layers of 30 x 128, 92,160 B per token (377 MB at
    4k, 3.0 GB at 32k) and 58 Mamba-2 states of mamba_ssm's class defaults."""
    parsed = parse_config(json.dumps(MAMBA2ATTN), n_params=2.7e9)
    m = parsed.preset
    assert [i for i, s in enumerate(m.layers) if s.kind == "full"] == [9, 18, 27, 36, 45, 56]
    assert (m.n_heads, m.n_kv_heads, m.head_dim) == (30, 30, 128)
    assert costs.kv_bytes_per_token(m) == 92_160
    assert round(kv_bytes(m, 4096) / 1e6) == 377 and round(kv_bytes(m, 32768) / 1e9, 1) == 3.0
    # Mamba2(d_state=128, d_conv=4, expand=2, ngroups=1): 5,120 x 128 + (5,120 + 256) x 4
    states = [s.fixed_values for s in m.layers if s.kind == "state"]
    assert states == [5120 * 128 + (5120 + 2 * 128) * 4] * 58
    assert dict(parsed.defaults_used)["ssm_cfg.d_state"] == 128
    assert dict(parsed.fields_read)["attn_cfg.num_heads"] == 30
    assert from_query(to_query(m)).layers == m.layers
    # Mamba-1 layers (no "layer": MixerModel's default) with their own sizes, and GQA
    mamba1 = dict(MAMBA2ATTN, ssm_cfg={"d_state": 8}, attn_cfg={"num_heads": 32,
                                                                  "num_heads_kv": 8})
    m1 = parse_config(json.dumps(mamba1), n_params=2.7e9).preset
    assert (m1.n_kv_heads, m1.head_dim) == (8, 80)
    assert {s.fixed_values for s in m1.layers if s.kind == "state"} == {5120 * (8 + 4)}
    # no attention layer named: a fixed state only, refused as before
    for attn in (dict(attn_layer_idx=[], attn_cfg={}), dict(attn_layer_idx=None, attn_cfg=None)):
        with pytest.raises(ConfigError) as e:
            parse_config(json.dumps({k: v for k, v in dict(MAMBA2ATTN, **attn).items()
                                     if v is not None}), n_params=2.7e9)
        assert e.value.code == "no_kv_cache"
    with pytest.raises(ConfigError) as e:
        parse_config(json.dumps(dict(MAMBA2ATTN, attn_layer_idx=[64])), n_params=2.7e9)
    assert (e.value.field, e.value.code) == ("attn_layer_idx", "bad_value")
    for layer in ("Mamba3", ["Mamba2"]):
        with pytest.raises(ConfigError) as e:
            parse_config(json.dumps(dict(MAMBA2ATTN, ssm_cfg={"layer": layer})), n_params=2.7e9)
        assert (e.value.field, e.value.code) == ("ssm_cfg.layer", "unsupported")


RECURRENTGEMMA_9B = dict(  # google/recurrentgemma-9b's config.json (its layout fields)
    model_type="recurrent_gemma", architectures=["RecurrentGemmaForCausalLM"],
    attention_bias=False, attention_window_size=2048, block_types=["recurrent", "recurrent",
                                                                    "attention"],
    conv1d_width=4, head_dim=256, hidden_size=4096, intermediate_size=36864, lru_width=4096,
    num_attention_heads=16, num_hidden_layers=38, num_key_value_heads=1,
    partial_rotary_factor=0.5, torch_dtype="bfloat16", vocab_size=256000)


def test_recurrentgemma_local_attention_and_rg_lru_states():
    """truth3 N7: recurrentgemma-9b repeats recurrent, recurrent, attention over 38 layers;
    ``attention_window_size`` makes its 12 attention layers local (2,048 tokens of 1 KV head
    x 256: 25.2 MB), and each of the 26 RG-LRU layers keeps ``lru_width`` values of
    recurrent state and the last ``conv1d_width`` - 1 inputs of its convolution (0.85 MB in
    all): about 26.0 MB at 4k and at 32k."""
    m = parse_config(json.dumps(RECURRENTGEMMA_9B), n_params=8.6e9).preset
    assert [i for i, s in enumerate(m.layers) if s.kind == "sliding"] == list(range(2, 38, 3))
    assert {s.span for s in m.layers if s.kind == "sliding"} == {2048}
    states = [s.fixed_values for s in m.layers if s.kind == "state"]
    assert states == [4096 + 3 * 4096] * 26
    assert round(kv_bytes(m, 32768) / 1e6, 1) == 25.2
    for ctx in (4096, 32768):
        total = costs.kv_cache_bytes(m, ctx, window=m.cache_window)
        assert round(total / 1e6, 1) == 26.0
    assert from_query(to_query(m)).layers == m.layers
    # lru_width left out: RecurrentGemmaConfig takes hidden_size
    plain = {k: v for k, v in RECURRENTGEMMA_9B.items() if k != "lru_width"}
    assert {s.fixed_values for s in parse_config(json.dumps(plain), n_params=8.6e9).preset.layers
            if s.kind == "state"} == {4 * 4096}
    # a state it cannot size names the field the config has
    unsized = {k: v for k, v in RECURRENTGEMMA_9B.items() if k != "conv1d_width"}
    with pytest.raises(ConfigError) as e:
        parse_config(json.dumps(dict(unsized, model_type="griffin")), n_params=8.6e9)
    assert (e.value.code, e.value.field) == ("state_unsized", "block_types")
