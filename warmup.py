"""`panel serve app.py --setup warmup.py`: the one-time work of a server process (models,
tokenizer, catalogs, every language's default traces) happens here, at start, instead of in
the first visitor's page request."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from steps.warm import freeze_shared, warm_all  # noqa: E402

warm_all()
freeze_shared()
