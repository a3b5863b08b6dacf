"""`panel serve app.py --setup warmup.py`: the one-time work of a server process (models,
tokenizer, catalogs, every page's numbers, the live measurements, the played frames) happens
here, at start, instead of in the first visitor's page request. It reports each phase as
n of N (a bar on a terminal, plain lines in a log) and ends with the line that says the page
is ready, and where."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from steps.warm import freeze_shared, ready_line, served_url, warm_all  # noqa: E402

_t0 = time.perf_counter()
warm_all()
freeze_shared()
print(ready_line(time.perf_counter() - _t0, served_url(sys.argv)), flush=True)
