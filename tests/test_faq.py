"""The FAQ's figures against the presets they quote."""
from explainer.presets import ALL_MODELS
from steps.faq import FAQ


def _answer(question: str) -> str:
    (a,) = [a for q, a in FAQ if q == question]
    return " ".join(a.split())


def test_head_dim_is_not_said_to_differ_from_the_quotient_for_every_qwen3():
    """truth3 P2-6: Qwen3-8B's head_dim (128) is hidden_size ÷ heads (4,096 ÷ 32); Gemma 2
    9B's and Qwen3-32B's are not. The answer says the two can differ, with figures that are
    the presets' own."""
    said = _answer("How do I compute the size of a KV cache?")
    assert "it is not hidden_size divided by num_attention_heads there" not in said
    assert "The two can differ" in said
    for key, name in (("gemma2-9b", "Gemma 2 9B"), ("qwen3-32b", "Qwen3-32B")):
        m = ALL_MODELS[key]
        assert m.hidden // m.n_heads != m.head_dim
        assert (f"{name}'s head_dim is {m.head_dim}" in said
                or f"{name}'s {m.head_dim}" in said)
        assert f"{m.hidden:,} ÷ {m.n_heads} = {m.hidden // m.n_heads}" in said
    m = ALL_MODELS["qwen3-8b"]
    assert m.hidden // m.n_heads == m.head_dim
    assert f"Qwen3-8B's {m.head_dim} is {m.hidden:,} ÷ {m.n_heads}" in said
