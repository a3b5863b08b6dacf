"""Every decoder ``model_type`` transformers ships, its default config against the reader.

``tests/oracle_types.py`` lists the decoder model_types of transformers 5.25
(its auto mappings, less encoder-only and encoder-decoder families: the rule
is in its docstring) and builds each from transformers' **default** config
(``AutoConfig.for_model``) on the meta device; the results are cached in
``tests/data/oracle_types.json`` (about 35 s to rebuild:
``PYTHONPATH=. .venv/bin/python -m tests.oracle_types --write``). Here the
reader (:func:`parse_config`) gets the same config's ``to_dict()`` as JSON and
must agree with the oracle as the corpus does (``compare`` of
``tests/test_hfconfig_oracle.py``: per layer kind, span and values, parameters
within 1 %), or both refuse; every other type is named below with its reason:

- ``KNOWN_TYPES``: the reader disagrees with what transformers builds (or
  refuses by name what transformers builds);
- ``UNBUILT_TYPES``: transformers builds no model from its own default (its
  config class refuses the default, a build needs a library the tests do not
  install, or the oracle finds no decoder layers to read).

The test asserts both sets are exactly what the verdicts give, so a reader
fix and a new disagreement both show. Real ``config.json`` files of a type,
where the corpus has them, are checked by ``tests/test_hfconfig_oracle.py``;
``docs/configs.md`` lists every type with how it is covered.
"""

from __future__ import annotations

import json

import pytest

from explainer.hfconfig import ConfigError, parse_config
from tests import oracle_types as ot
from tests.test_hfconfig_oracle import compare

CACHE = json.loads(ot.TYPES_FILE.read_text())
TYPES = CACHE["types"]

KNOWN_TYPES: dict[str, str] = {
    'axk2': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'bailing_hybrid': (
        'the reader refuses by name: layer_types: state_unsized '
        "(model_type='bailing_hybrid'): the hybrid's state layers are not sized from this "
        "config's fields"),
    'bamba': (
        'transformers refuses (no_kv_cache), the reader sizes it: the default has no '
        'attn_layer_indices (every layers_block_type entry is linear_attention, Mamba-2), '
        'so transformers builds no attention layer; the reader sizes K/V layers from it'),
    'blip-2': (
        "the reader counts the OPT language model (0.125 B); the oracle's count also "
        "holds the Q-Former (0.105 B), its query_tokens and language_projection, which its "
        "filter of vision parts does not leave out"),
    'ctrl': (
        "the reader refuses by name: n_params: params_needed (model_type='ctrl', "
        "reason='mlp_not_gated'): a gate-less MLP without a parameter rule of its own "
        "(GATED_MLP_EXCLUDED); the paste asks for n_params"),
    'deepseek_v2': 'the reader refuses by name: num_experts_per_tok: missing',
    'deepseek_v32': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'deepseek_v4': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='heavily_compressed_attention')"),
    'dory': (
        "the reader refuses by name: n_params: params_needed (model_type='dory', "
        "reason='hybrid_layers')"),
    'dots3_note': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'dots3_note_text': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'gemma3n_text': (
        "the reader refuses by name: intermediate_size: not_positive_int (value='list')"),
    'gemma4': (
        "Gemma 4's full-attention layers have their own geometry (global_head_dim 512: "
        "4,096 values); the app's ModelPreset holds one K/V geometry, so the reader sizes "
        'them like the sliding layers (2,048 values), as for google--gemma-4-26B-A4B'),
    'gemma4_text': (
        "Gemma 4's full-attention layers have their own geometry (global_head_dim 512: "
        "4,096 values); the app's ModelPreset holds one K/V geometry, so the reader sizes "
        'them like the sliding layers (2,048 values), as for google--gemma-4-26B-A4B'),
    'gemma4_unified': (
        "Gemma 4's full-attention layers have their own geometry (global_head_dim 512: "
        "4,096 values); the app's ModelPreset holds one K/V geometry, so the reader sizes "
        'them like the sliding layers (2,048 values), as for google--gemma-4-26B-A4B'),
    'gemma4_unified_assistant': (
        'the reader refuses by name: num_kv_shared_layers: bad_value (value=30)'),
    'gemma4_unified_text': (
        "Gemma 4's full-attention layers have their own geometry (global_head_dim 512: "
        "4,096 values); the app's ModelPreset holds one K/V geometry, so the reader sizes "
        'them like the sliding layers (2,048 values), as for google--gemma-4-26B-A4B'),
    'glm4_moe': 'the reader refuses by name: hidden_size: hidden_divide (hidden=4096, heads=96)',
    'glm4v_moe': 'the reader refuses by name: hidden_size: hidden_divide (hidden=4096, heads=96)',
    'glm5_next': 'the reader refuses by name: qk_rope_head_dim: not_positive_int (value=0)',
    'glm_moe_dsa': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'gpt-sw3': (
        'the reader refuses by name: n_params: params_needed '
        "(missing='intermediate_size'): the family names its MLP width otherwise "
        '(n_inner, d_inner, ffn_dim...) and has no parameter rule'),
    'gpt_neox_japanese': (
        "the reader refuses by name: n_params: params_needed (model_type='gpt_neox_japanese', "
        "reason='mlp_not_gated'): a gate-less MLP without a parameter rule of its own "
        "(GATED_MLP_EXCLUDED); the paste asks for n_params"),
    'hy_v4': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'hy_v4_vl': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'idefics2': (
        "the reader counts the language model (7,241,732,096); the oracle's count also "
        "holds the connector's modality_projection (80,740,352), which its filter of "
        'vision parts does not leave out'),
    'inkling2': "the reader refuses by name: layer_types: unsupported (value='hybrid_sliding')",
    'inkling2_loop': (
        "the reader refuses by name: layer_types: unsupported (value='hybrid_sliding')"),
    'inkling2_loop_text': (
        "the reader refuses by name: layer_types: unsupported (value='hybrid_sliding')"),
    'inkling2_text': (
        "the reader refuses by name: layer_types: unsupported (value='hybrid_sliding')"),
    'inkling_mm_model': (
        "the reader refuses by name: layer_types: unsupported (value='hybrid_sliding')"),
    'inkling_text': "the reader refuses by name: layer_types: unsupported (value='hybrid_sliding')",
    'instructblip': (
        "the reader counts the OPT language model (0.125 B); the oracle's count also "
        "holds the Q-Former (0.186 B), its query_tokens and language_projection, which its "
        "filter of vision parts does not leave out"),
    'instructblipvideo': (
        "the reader counts the OPT language model (0.125 B); the oracle's count also "
        "holds the Q-Former (0.186 B), its query_tokens and language_projection, which its "
        "filter of vision parts does not leave out"),
    'janus': (
        "the reader counts the language model (6,607,343,616, its lm_head tied by the "
        "top-level tie_word_embeddings as transformers ties it); the oracle's count also "
        "holds Janus's image-generation parts (aligner, VQ model, generation_embeddings / "
        "aligner / head: 86,721,163 more), which its filter of vision parts does not leave out"),
    'jetmoe': (
        'transformers refuses (no_kv_cache), the reader sizes it: the oracle finds no K/V '
        "projection in the built layers (JetMoE's attention is a mixture of attention "
        'experts)'),
    'kimi_linear': (
        'the reader refuses by name: layer_types: state_unsized '
        "(model_type='kimi_linear'): the hybrid's state layers are not sized from this "
        "config's fields"),
    'kolibri1_1': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'kosmos-2': 'the reader refuses by name: num_hidden_layers: missing',
    'kosmos-2.5': 'the reader refuses by name: num_hidden_layers: missing',
    'mimo_v2_flash': (
        "48 layers differ, first 0: ['full', None, 1536, 4, 192] vs ['full', None, 1280, "
        '3, 192]'),
    'minimax': (
        "the reader refuses by name: layer_types: state_unsized (model_type='minimax'): "
        "the hybrid's state layers are not sized from this config's fields"),
    'mistral_large4': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='indexed_attention'): a DSA-indexed attention layer type the reader does "
        'not size (N8)'),
    'moshi': (
        'the reader refuses by name: n_params: params_needed '
        "(missing='intermediate_size'): the family names its MLP width otherwise "
        '(n_inner, d_inner, ffn_dim...) and has no parameter rule'),
    'olmo_hybrid': (
        "24 layers differ, first 0: ['state', None, 0] vs ['full', None, 8640, None, "
        'None]'),
    'openai-gpt': (
        "the reader refuses by name: n_params: params_needed (model_type='openai-gpt', "
        "reason='mlp_not_gated'): a gate-less MLP without a parameter rule of its own "
        "(GATED_MLP_EXCLUDED); the paste asks for n_params"),
    'qwen3_omni_moe_thinker': (
        'the reader refuses by name: hidden_size: hidden_divide (hidden=2048, heads=28)'),
    'recurrent_gemma': (
        'the reader refuses by name: n_params: params_needed '
        "(model_type='recurrent_gemma', reason='hybrid_layers')"),
    'trocr': 'the reader refuses by name: num_hidden_layers: missing',
    'unlimited_ocr': (
        'the reader refuses by name: layer_types: unsupported '
        "(value='reference_sliding_attention')"),
    'video_llava': (
        "the reader counts the language model (6,738,415,616); the oracle's count also "
        'holds the video_tower (303,179,776, a CLIP encoder like the image_tower), which '
        'its filter of vision parts does not leave out'),
    'xglm': 'the reader refuses by name: num_attention_heads: missing',
    'xlnet': (
        'the reader refuses by name: n_params: params_needed '
        "(missing='intermediate_size'): the family names its MLP width otherwise "
        '(n_inner, d_inner, ffn_dim...) and has no parameter rule'),
    'zamba': "the reader refuses by name: layers_block_type: unsupported (value='hybrid')",
    'zamba2': "the reader refuses by name: layers_block_type: unsupported (value='hybrid')",
    'zaya': "the reader refuses by name: layer_types: unsupported (value='hybrid')",
}

UNBUILT_TYPES: dict[str, str] = {
    'aya_vision': (
        "no model built from the default config's to_dict(): AutoModelForImageTextToText: "
        'ValueError: embed_dim must be divisible by num_heads (got `embed_dim`: 1152 and '
        '`num_heads`: 14).'),
    'bert-generation': (
        'the oracle finds no decoder ModuleList of 24 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'blip': (
        'the oracle finds no decoder ModuleList of 12 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'blt': (
        'the oracle finds no decoder ModuleList of 0 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'chameleon': (
        "no model built from the default config's to_dict(): AutoModelForImageTextToText: "
        "AttributeError: 'NoneType' object has no attribute 'get'"),
    'cohere_compass': (
        "no model built from the default config's to_dict(): AutoModelForImageTextToText: "
        "KeyError: 'full_attention'"),
    'cohere_compass_text': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "KeyError: 'full_attention'"),
    'cpmant': (
        'the oracle finds no decoder ModuleList of 48 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'dbrx': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "AttributeError: 'DbrxAttentionConfig' object has no attribute 'rope_theta'"),
    'deepseek_ocr2': (
        "no model built from the default config's to_dict(): AutoModelForImageTextToText: "
        "TypeError: 'NoneType' object is not subscriptable"),
    'diffusion_gemma': (
        "no model built from the default config's to_dict(): AutoModelForImageTextToText: "
        "TypeError: empty(): argument 'size' (position 1) must be tuple of ints, but "
        'found element of type NoneType at p'),
    'dots1': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        'TypeError: empty() takes 1 positional argument but 3 were given'),
    'evolla': "no model built from the default config's to_dict(): no auto class maps its config",
    'fast_vlm': (
        "no model built from the default config's to_dict(): its vision tower is a timm "
        'model (TimmWrapperModel) and timm is not installed for the tests'),
    'gemma3n': (
        "no model built from the default config's to_dict(): its vision tower is a timm "
        'model (TimmWrapperModel) and timm is not installed for the tests'),
    'gemma4_assistant': (
        'transformers 5.25 refuses its own default config: '
        'StrictDataclassClassValidationError: Class validation error for validator '
        "'validate_architecture': ValueError: hidden_size_per_layer_input must be 0, got"),
    'git': (
        'the oracle finds no decoder ModuleList of 6 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'granite4_vision': (
        "no model built from the default config's to_dict(): AutoModelForImageTextToText: "
        "TypeError: object of type 'NoneType' has no len()"),
    'hrm_text': (
        'the oracle finds no decoder ModuleList of 128 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'hunyuan_v1_dense': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'"),
    'hunyuan_v1_moe': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'"),
    'hunyuan_vl': (
        "no model built from the default config's to_dict(): AutoModelForImageTextToText: "
        "TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'"),
    'lfm2_moe': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "TypeError: 'NoneType' object is not subscriptable"),
    'longcat_flash': (
        'the oracle finds no decoder ModuleList of 56 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'ministral': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'"),
    'nemotron': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "TypeError: unsupported operand type(s) for //: 'int' and 'NoneType'"),
    'perception_lm': (
        "no model built from the default config's to_dict(): its vision tower is a timm "
        'model (TimmWrapperModel) and timm is not installed for the tests'),
    'pi0': (
        'the oracle finds no decoder ModuleList of 0 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'pi05': (
        'the oracle finds no decoder ModuleList of 0 layers (num_hidden_layers) in the '
        'built model: its decoder layers are counted or held another way'),
    'qwen4_exp': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "TypeError: unsupported operand type(s) for //: 'NoneType' and 'NoneType'"),
    'qwen4_exp_text': (
        "no model built from the default config's to_dict(): AutoModelForCausalLM: "
        "TypeError: unsupported operand type(s) for //: 'NoneType' and 'NoneType'"),
}


def type_verdict(mt: str) -> str:
    """``agree``, ``both refuse``, ``unbuilt: <why>`` or ``disagree: <what>`` for one type."""
    got = TYPES[mt]
    if got["status"] == "unbuildable":
        return "unbuilt: " + got["why"]
    return compare(got, json.dumps(got["config"]))


def type_verdicts() -> dict[str, str]:
    return {mt: type_verdict(mt) for mt in TYPES}


def test_cache_is_this_transformers():
    """The cached list is the installed transformers' decoder types, built by that version."""
    import transformers

    assert CACHE["transformers"] == transformers.__version__
    assert sorted(TYPES) == ot.decoder_types()
    assert len(TYPES) > 200


def test_cache_rebuilds_live():
    """A sample across families (dense, sliding, MLA, hybrid, state, multimodal,
    unbuildable), rebuilt with transformers now, equals the cached entries."""
    sample = ("llama", "gemma3_text", "deepseek_v3", "qwen3_next", "falcon_h1", "mamba",
              "llava", "gpt2", "dbrx", "arcee")
    for mt in sample:
        live = json.loads(json.dumps(ot.default_entry(mt)))  # as the cache stores it
        assert live == TYPES[mt], mt


def test_default_configs_agree_or_are_named():
    verdicts = type_verdicts()
    disagree = {mt for mt, v in verdicts.items() if v.startswith("disagree")}
    unbuilt = {mt for mt, v in verdicts.items() if v.startswith("unbuilt")}
    assert not disagree - set(KNOWN_TYPES), "new disagreements:\n" + "\n".join(
        f"  {mt}: {verdicts[mt]}" for mt in sorted(disagree - set(KNOWN_TYPES)))
    assert not set(KNOWN_TYPES) - disagree, (
        f"no longer disagree, take them out of KNOWN_TYPES: {sorted(set(KNOWN_TYPES) - disagree)}")
    assert unbuilt == set(UNBUILT_TYPES)
    agree = [mt for mt, v in verdicts.items() if v in ("agree", "both refuse")]
    assert len(agree) > 100


@pytest.mark.parametrize("mt", sorted(k for k, v in KNOWN_TYPES.items()
                                      if v.startswith("the reader refuses by name")))
def test_named_refusals_are_the_readers(mt):
    """A reason that says the reader refuses names the refusal the reader gives."""
    with pytest.raises(ConfigError) as err:
        parse_config(json.dumps(TYPES[mt]["config"]))
    assert f"{err.value.field}: {err.value.code}" in KNOWN_TYPES[mt]


def test_reasons_are_written():
    for mt, why in {**KNOWN_TYPES, **UNBUILT_TYPES}.items():
        assert len(why) > 30, mt
