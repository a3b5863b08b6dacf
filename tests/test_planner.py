"""The planner (explainer/planner.py): reference figures worked out by hand in each test."""
import math

import pytest

from explainer import costs, planner, presets
from explainer.presets import GiB, ModelPreset

MiB = 2**20


def test_llama2_7b_on_a100_80_by_hand():
    p = planner.plan("llama2-7b", "a100-80", 4096)
    weights = 6.738e9 * 2                              # 13.476 GB
    memory = 80 * 2**30                                # the vendor's "80 GB" = 80 GiB
    per_token = 2 * 32 * 32 * 128 * 2                  # 524,288 B
    assert p.weights == weights and p.memory == memory
    assert p.per_sequence == per_token * 4096 == 2_147_483_648
    assert p.max_batch == 33 == math.floor((memory - weights) / 2_147_483_648)
    # the inverse of the bill: the bill's own max_sequences
    assert p.max_batch == costs.memory_bill("llama2-7b", 4096, 1, "a100-80",
                                           binary_capacity=True).max_sequences
    # memory would allow (85,899,345,920 - 13,476,000,000) / 524,288 = 138,136 tokens;
    # Llama 2 stops at 4,096: the model's limit binds
    assert (p.max_context, p.context_bound) == (4096, "model")
    # engine: 0.9 x 80 GiB - weights = 63,833,411,328 B; blocks of 16 x 524,288 = 8 MiB
    assert p.pool == pytest.approx(0.9 * 80 * 2**30 - weights)
    assert p.block_bytes == 16 * per_token == 8 * MiB
    assert p.pool_blocks == 7609 and p.pool_tokens == 7609 * 16 == 121_744
    assert p.engine_batch == 7609 // 256 == 29        # 4,096 tokens = 256 blocks each
    assert (p.engine_context, p.engine_bound) == (4096, "model")


def test_llama31_8b_on_l4_usable_memory_and_blocks():
    """The L4 shows 23,034 MiB: the engine's 0.9 is a share of that, not of 24 GiB."""
    p = planner.plan("llama3.1-8b", "l4", 32768)
    weights = 8.030e9 * 2                                # 16.06 GB
    per_token = 2 * 32 * 8 * 128 * 2                     # 131,072 B
    # ideal: 24 GiB - weights = 9,709,803,776 B
    assert p.free == 24 * 2**30 - weights == 9_709_803_776
    assert p.max_batch == 2                              # / 4,294,967,296 B = 2.26
    assert (p.max_context, p.context_bound) == (74_079, "memory")   # / 131,072 = 74,079.9
    # engine: 0.9 x 23,034 MiB = 21,737,609,625.6 B; minus weights 5,677,609,625.6 B
    assert p.usable == 23034 * MiB
    assert p.pool == pytest.approx(5_677_609_625.6)
    assert p.pool_blocks == 2707                         # / 2 MiB blocks = 2,707.3
    assert p.pool_tokens == 43_312
    assert p.engine_batch == 1                           # 2,048 blocks a sequence
    assert (p.engine_context, p.engine_bound) == (43_312, "memory")
    # kvplan's example (same model, L4, share 0.92) reports 40,208 tokens after a measured
    # 0.83 GiB of activations and graphs, which this estimate leaves out: without them
    # the pool is 0.83 GiB (3,400 tokens) larger
    p92 = planner.plan("llama3.1-8b", "l4", 32768, share=0.92)
    assert p92.pool_tokens == 46_992
    assert p92.pool_tokens - 40_208 == pytest.approx(0.83 * GiB / per_token, rel=0.02)


def test_gemma3_27b_layers_keep_their_window():
    """52 sliding layers keep 1,024 tokens, 10 full ones every token: 8,192 B a layer-token."""
    per_layer = 2 * 16 * 128 * 2
    assert planner.sequence_bytes("gemma3-27b", 32768) == (10 * 32768 + 52 * 1024) * per_layer
    # whole blocks: 1,000 tokens take ceil(1000/16) = 63 blocks = 1,008 slots in every layer
    assert planner.engine_sequence_bytes("gemma3-27b", 1000) == 62 * 1008 * per_layer
    assert planner.sequence_bytes("gemma3-27b", 1000) == 62 * 1000 * per_layer
    p = planner.plan("gemma3-27b", "a100-80", 32768)
    # cache(T) = 81,920 T + 436,207,616 past 1,024 tokens: memory allows 383,852 tokens,
    # the model 131,072
    assert (p.max_context, p.context_bound) == (131_072, "model")
    assert p.max_batch == math.floor((80 * GiB - 54.018e9) / 3_120_562_176) == 10
    # the pool's tokens count only the layers that grow with every token... all 62 of
    # them grow (a sliding layer too, up to its window): the block is 62 layers wide
    assert p.block_bytes == 16 * 62 * per_layer


def test_weights_that_do_not_fit_answer_zero():
    p = planner.plan("gemma3-27b", "a100-40", 4096)
    assert p.free < 0 and p.max_batch == 0 and not p.fits_one
    assert (p.max_context, p.context_bound) == (0, "weights")
    assert (p.engine_batch, p.engine_context, p.engine_bound) == (0, 0, "weights")
    assert p.pool_blocks == p.pool_tokens == 0


def test_two_gpus_split_weights_and_cache():
    """Llama 3.1 70B on 2 x A100 80 GB: 141.108 GB of weights, 327,680 B a token."""
    p = planner.plan("llama3.1-70b", "a100-80", 8192, gpus=2)
    per_token = 2 * 80 * 8 * 128 * 2
    assert p.memory == 160 * GiB and p.free == 160 * GiB - 141.108e9
    assert (p.max_context, p.context_bound) == (93_660, "memory")   # 30,690,691,840 / 327,680
    assert p.max_batch == 11                                         # / 2,684,354,560
    # engine, per GPU: 0.9 x 80 GiB - 70.554 GB; each GPU keeps 4 of the 8 KV heads
    assert p.kv_fraction == 0.5
    pool = 0.9 * 80 * GiB - 70.554e9
    assert p.pool == pytest.approx(pool)
    assert p.pool_blocks == math.floor(pool / (16 * per_token / 2)) == 2576
    assert p.engine_batch == 2576 // 512 == 5


def test_kv_fraction_replicates_heads_and_latents():
    assert planner.kv_fraction("llama3.1-70b", 8) == 1 / 8
    assert planner.kv_fraction("llama3.1-70b", 16) == 1 / 8      # one head each, replicated
    assert planner.kv_fraction("falcon-7b", 4) == 1.0            # one KV head in all
    assert planner.kv_fraction("deepseek-v3", 8) == 1.0          # the latent has no heads


# phi-4 (microsoft/phi-4 config.json): 40 layers, 40 heads, 10 KV heads of 128, 14.66 B
PHI4 = ModelPreset("phi4", "phi-4", 40, 40, 10, 128, 14.66e9, max_context=16384)


def test_kv_heads_split_only_as_vllm_splits_them():
    """vLLM's QKVParallelLinear: kv_heads % gpus == 0 (split) or gpus % kv_heads == 0
    (replicate); otherwise it stops, and so does the planner (truth3 N11)."""
    assert planner.kv_fraction(PHI4, 1) == 1.0
    assert planner.kv_fraction(PHI4, 2) == 0.5                  # 5 heads each
    assert planner.kv_fraction(PHI4, 4) is None                 # 10 / 4 = 2.5 heads: refused
    assert planner.kv_fraction(PHI4, 8) is None                 # not 0.1 (1 of 10 heads)
    three = ModelPreset("k3", "3 KV heads", 4, 12, 3, 64, 1e9)
    assert planner.kv_fraction(three, 2) is None and planner.kv_fraction(three, 3) == 1 / 3
    assert planner.kv_fraction(three, 6) == 1 / 3               # 6 % 3 == 0: replicated
    two = ModelPreset("k2", "2 KV heads", 4, 8, 2, 64, 1e9)
    assert planner.kv_fraction(two, 8) == 1 / 2                 # one head each, 4 copies


def test_a_refused_split_answers_nothing_for_the_engine():
    """phi-4 on H100s. 2 GPUs by hand: 204,800 B a token (2 x 40 x 10 x 128 x 2), half per
    GPU; pool = 0.9 x 81,559 MiB - 29.32 GB / 2 = 76,968,728,985.6 - 14,660,000,000 =
    62,308,728,985.6 B; a block of 16 tokens 16 x 102,400 = 1,638,400 B: 38,030 blocks;
    4,096 tokens = 256 blocks, so 148 sequences. 4 GPUs: refused; the ideal answer stays."""
    p = planner.plan(PHI4, "h100", 4096, gpus=2)
    assert p.pool == pytest.approx(0.9 * 81_559 * MiB - 14.66e9)
    assert p.block_bytes == 16 * 2 * 40 * 10 * 128 * 2 / 2 == 1_638_400
    assert (p.pool_blocks, p.pool_tokens, p.engine_batch) == (38_030, 608_480, 148)
    assert not p.split_refused
    for gpus in (4, 8):
        q = planner.plan(PHI4, "h100", 4096, gpus=gpus)
        assert q.split_refused and q.kv_fraction is None and q.engine_bound == "split"
        assert (q.pool_blocks, q.pool_tokens, q.engine_batch, q.engine_context) == (0, 0, 0, 0)
        assert q.max_batch > 0 and q.context_bound == "model"   # the ideal split is even


def test_cache_precision_and_weight_bytes():
    p = planner.plan("llama2-7b", "a100-80", 4096, precision="fp8", bytes_per_param=1)
    assert p.per_sequence == 2_147_483_648 // 2 and p.weights == 6.738e9
    assert p.max_batch == math.floor((80 * GiB - 6.738e9) / 1_073_741_824) == 73


def test_window_on_every_layer_without_a_maximum_is_unbounded():
    m = ModelPreset("w", "w", 32, 32, 8, 128, 7e9, window=4096)     # max_context unknown
    p = planner.plan(m, "a100-80", 4096)
    assert (p.max_context, p.context_bound) == (planner.SEARCH_CAP, "unbounded")
    assert p.engine_bound == "unbounded"
    # and without the window, memory binds: (80 GiB - 14 GB) / 131,072 B
    full = ModelPreset("f", "f", 32, 32, 8, 128, 7e9)
    q = planner.plan(full, "a100-80", 4096)
    assert (q.max_context, q.context_bound) == (548_548, "memory")


def test_longest_is_a_bisection_of_a_non_decreasing_need():
    need = lambda t: 10 * min(t, 50) + t          # noqa: E731 (a window, then a full layer)
    assert planner.longest(need, 600, 1000) == (100, "memory")   # 500 + 100 ≤ 600 < 601
    assert planner.longest(need, 5000, 1000) == (1000, "model")
    assert planner.longest(need, -1, 1000) == (0, "weights")
    assert planner.longest(lambda t: 5 + t, 4, 10) == (0, "memory")


@pytest.mark.parametrize("model", list(presets.ALL_MODELS))
def test_every_preset_planned_on_every_gpu(model):
    for gpu in (g for g in presets.GPUS if presets.GPUS[g].mem_gib):
        p = planner.plan(model, gpu, 4096)
        assert p.context_bound in planner.BOUNDS and p.engine_bound in planner.BOUNDS
        assert p.engine_batch <= p.max_batch + 1     # less memory, whole blocks
        if p.max_batch:                              # one more would not fit
            assert (p.max_batch + 1) * p.per_sequence > p.free
        if p.context_bound == "memory":
            assert (planner.sequence_bytes(model, p.max_context) <= p.free
                    < planner.sequence_bytes(model, p.max_context + 1))


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError):
        planner.plan("llama2-7b", "illustrative", 4096)
    with pytest.raises(ValueError):
        planner.plan("llama2-7b", "a100-80", 4096, share=0)
    with pytest.raises(ValueError):
        planner.plan("llama2-7b", "a100-80", 4096, gpus=0)
    with pytest.raises(ValueError):
        planner.plan("llama2-7b", "a100-80", -1)


def test_usable_memory_is_the_drivers():
    g = presets.GPUS
    assert g["l4"].usable_gib * 1024 == 23034 and g["l4"].mem_gib == 24
    assert g["h100"].usable_gib * 1024 == 81559 and g["h200"].usable_gib * 1024 == 143771
    assert all(x.usable_gib <= x.mem_gib for x in g.values() if x.mem_gib)
    assert g["illustrative"].usable_bytes is None


def test_the_weights_are_as_released_unless_chosen():
    # DeepSeek-V3 is released in fp8: the planner counts what the bill counts (672.9 GB),
    # not 16-bit weights (1,342 GB), unless told the bytes per parameter
    p = planner.plan("deepseek-v3", "h200", 4096, gpus=8)
    assert p.weights == costs.weight_bytes("deepseek-v3") == pytest.approx(672.854e9, rel=1e-5)
    assert p.weights == costs.memory_bill("deepseek-v3", 4096, 1, "h200").weight_bytes
    assert p.bytes_per_param == pytest.approx(672.854e9 / 671e9, rel=1e-5)
    q = planner.plan("deepseek-v3", "h200", 4096, gpus=8, bytes_per_param=2)
    assert q.weights == 1342e9 and q.max_batch == 0          # 8 x 141 GiB = 1,211 GB
    assert p.max_batch == math.floor((8 * 141 * GiB - 672.854239744e9) / p.per_sequence)


def test_the_reserve_is_taken_from_the_pool_as_vllm_measures_it():
    """vLLM keeps share x total - weights - activations' peak - non-torch memory
    (gpu_worker.determine_available_memory). Without a reserve the pool is an upper bound:
    Llama 3.1 8B on an RTX 4090 (24,564 MiB): 0.9 x 23.988 GiB - 16.06 GB (14.957 GiB) =
    6.632 GiB; a block of 16 tokens x 131,072 B = 2 MiB: 3,395 blocks = 54,320 tokens.
    The published log (vllm#10517, RTX 3090 of 23.58 GiB, weights 14.99 GiB, 2.07 GiB of
    activations, 0.35 GiB outside PyTorch): 0.9 x 23.58 - 14.99 - 2.07 - 0.35 = 3.812 GiB
    = 1,951 blocks of 2 MiB = 31,216 tokens (the log says 1,952 blocks = 31,232: its inputs
    are rounded to 0.01 GiB, and 2 MiB is 0.002 GiB)."""
    import dataclasses
    upper = planner.plan("llama3.1-8b", "rtx4090", 4096)
    assert upper.reserve == 0
    assert upper.pool == pytest.approx(0.9 * 24_564 * MiB - 16.06e9)
    assert upper.pool / GiB == pytest.approx(6.632, abs=5e-4)
    assert upper.block_bytes == 2 * MiB and (upper.pool_blocks, upper.pool_tokens) == (3395, 54_320)
    reserve = (2.07 + 0.35) * GiB
    p = planner.plan("llama3.1-8b", "rtx4090", 4096, reserve=reserve)
    assert p.pool == pytest.approx(upper.pool - reserve)               # 4.212 GiB
    assert (p.pool_blocks, p.pool_tokens) == (2156, 34_496)            # 4.212 x 1024 / 2
    assert p.engine_batch == 2156 // 256 == 8                          # 4,096 tokens: 256 blocks
    rtx3090 = dataclasses.replace(presets.GPUS["rtx4090"], key="rtx3090", name="RTX 3090",
                                  usable_gib=23.58)
    log = planner.plan("llama3.1-8b", rtx3090, 4096, reserve=reserve,
                       bytes_per_param=14.99 * GiB / 8.03e9)
    assert log.pool / GiB == pytest.approx(0.9 * 23.58 - 14.99 - 2.07 - 0.35) == \
        pytest.approx(3.812)
    assert (log.pool_blocks, log.pool_tokens) == (1951, 31_216)
    for bad in (-1, math.inf, math.nan):
        with pytest.raises(ValueError):
            planner.plan("llama3.1-8b", "rtx4090", 4096, reserve=bad)
