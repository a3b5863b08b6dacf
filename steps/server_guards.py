"""Remove when app.py calls steps.platform.install() (the guards: steps/platform/guards.py)."""
from steps.platform import install

install("ws_teardown", "panel_writer")
