"""Steps 2-6 in a real browser: deep links show the reference figures, the player and the
sliders change numbers and plot data, Polish formats numbers with decimal commas."""
import re

from helpers import metric, nudge_slider, wait_cds, wait_url
from playwright.sync_api import expect

NBSP = "\u00a0"


def text(page, key):
    return metric(page, key).inner_text().replace(NBSP, " ").replace("\u202f", " ")


def reveal(page):
    """Press “Show me”: the answer-bearing numbers wait for it."""
    page.locator(".show-me button").click()


def pos(page):
    return page.locator(".player-pos")
