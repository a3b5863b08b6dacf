"""Prompts the app offers, per language: the default first (SPEC.md), then a few more.

These are model inputs in each language's own words (not UI strings): every word is in the
live model's vocabulary, which tests/test_runtime.py checks.
"""

DEFAULT_PROMPTS = {
    "en": "The capital of France is",
    "id": "Ibu kota Prancis adalah",
    "pl": "Stolicą Francji jest",
    "nl": "De hoofdstad van Frankrijk is",
}

PROMPTS = {
    "en": (DEFAULT_PROMPTS["en"], "The capital of Poland is", "The capital of Japan is",
           "A language model writes text one word at a time . It reads the words it has"),
    "id": (DEFAULT_PROMPTS["id"], "Ibu kota Polandia adalah", "Ibu kota Jepang adalah",
           "Banyak orang menghabiskan liburan di tepi laut . Mereka berenang di air yang sejuk , "
           "berjalan di"),
    "pl": (DEFAULT_PROMPTS["pl"], "Stolicą Polski jest", "Stolicą Japonii jest",
           "Wiele osób spędza letnie wakacje nad morzem . Pływają w chłodnej wodzie , spacerują "
           "po plaży i"),
    "nl": (DEFAULT_PROMPTS["nl"], "De hoofdstad van Polen is", "De hoofdstad van Japan is",
           "Een taalmodel schrijft tekst woord voor woord . Het leest de woorden die het al "
           "heeft gezien"),
}
