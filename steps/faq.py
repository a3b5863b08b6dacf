"""The questions and references shown after step 6 (English source; catalogs translate)."""
from explainer.i18n import N_

FAQ = (
    (N_("How do I compute the size of a KV cache?"),
     N_("Per token, multiply 2 (a key and a value) by the number of layers, the number of "
        "key/value heads, the head dimension and the bytes per number. Then multiply by the "
        "context length and the batch size. Llama 2 7B has 32 layers, 32 KV heads and a head "
        "dimension of 128, so in fp16 it stores 2 × 32 × 32 × 128 × 2 = 524,288 bytes "
        "(512 KiB) per token: 2 GiB for one sequence of 4,096 tokens. Take the numbers from "
        "the model's config.json: num_hidden_layers, num_key_value_heads, and head_dim where "
        "the config gives it (Gemma, Mistral NeMo and Qwen3 do), else hidden_size divided by "
        "num_attention_heads. The two can differ: Gemma 2 9B's head_dim is 256, not 3,584 ÷ "
        "16 = 224, and Qwen3-32B's 128, not 5,120 ÷ 64 = 80 (Qwen3-8B's 128 is 4,096 ÷ 32). "
        "Never use hidden_size "
        "alone: grouped-query models cache far fewer heads. Models with multi-head latent "
        "attention (DeepSeek-V2 and V3) cache one latent vector per layer instead: "
        "kv_lora_rank + qk_rope_head_dim values (512 + 64 = 576), with no factor 2.")),
    (N_("Does every layer keep every token?"),
     N_("Not in every model, and then the recipe above holds layer by layer: add up the tokens "
        "each layer keeps. A sliding-window layer keeps only its last W tokens (Gemma 2 and 3, "
        "Mistral 7B v0.1, gpt-oss), a chunked-attention layer at most one chunk (Llama 4, "
        "8,192 tokens), a cross-attention layer only the image's keys and values (Llama 3.2 "
        "Vision), and a hybrid model (Jamba, Qwen3-Next) keeps a fixed-size state in most "
        "layers and a KV cache only in its few attention layers. Gemma 3 27B at 131,072 "
        "tokens: the recipe over all 62 layers gives 66.6 GB, but its 52 local layers keep "
        "1,024 tokens each, so the cache is 11.2 GB. Step 5's layer map shows it per layer.")),
    (N_("Does the KV cache change the model's output?"),
     N_("No. The cache only keeps numbers that would otherwise be computed again, so with "
        "exact arithmetic the logits are identical; step 2 runs the live model both ways and "
        "shows the largest difference, which is floating-point round-off. A quantized cache "
        "(int8, int4) is an approximation and can change the output a little; step 6 measures "
        "how much.")),
    (N_("What is prompt caching (prefix caching)?"),
     N_("When many requests start with the same text, such as a long system prompt or a "
        "shared document, a server can keep the KV cache of that prefix and reuse it. A new "
        "request with the same first tokens skips their prefill. This is why some API "
        "providers charge less for cached input tokens.")),
    (N_("Why is the first token slower than the rest?"),
     N_("Before the first output token appears, the whole prompt must pass through the model "
        "(the prefill). This wait is the time to first token, and it grows with the prompt. "
        "Every later token needs one decode step, which reads all the weights and the whole "
        "KV cache so far. Its speed depends mostly on memory bandwidth, batch size and context "
        "length: the longer the context, the more cache each step reads. Llama 3.1 8B with "
        "one sequence of 131,072 tokens reads 17.2 GB of cache per step, more than its 16.1 GB "
        "of weights.")),
    (N_("What is PagedAttention?"),
     N_("PagedAttention, introduced with the vLLM serving system (Kwon et al., 2023), stores "
        "the KV cache in fixed-size blocks instead of one contiguous buffer per sequence. "
        "Blocks are allocated as a sequence grows and can be shared by sequences with the same "
        "prefix, so almost no memory is reserved for tokens that never come, and a server can "
        "batch more requests.")),
)

REFERENCES = (
    ("Vaswani et al. (2017), “Attention Is All You Need”",
     N_("the transformer, with queries, keys and values")),
    ("Shazeer (2019), “Fast Transformer Decoding: One Write-Head is All You Need”",
     N_("multi-query attention")),
    ("Pope et al. (2022), “Efficiently Scaling Transformer Inference”",
     N_("the costs of prefill and decode")),
    ("Ainslie et al. (2023), “GQA: Training Generalized Multi-Query Transformer Models from "
     "Multi-Head Checkpoints”", N_("grouped-query attention")),
    ("Kwon et al. (2023), “Efficient Memory Management for Large Language Model Serving with "
     "PagedAttention”", N_("paged KV memory and vLLM")),
    ("Zhang et al. (2023), “H2O: Heavy-Hitter Oracle for Efficient Generative Inference of "
     "Large Language Models”", N_("keeping only the most important tokens in the cache")),
)
