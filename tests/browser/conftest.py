"""The web pages in a real headless browser: Debian's Chromium driven by Playwright (never a
browser Playwright downloads), one browser per session, a new context (fresh storage) per page,
against the session's local stack, which serves the pages (``croupier.local.web``). The fixtures
only; the page and the browser's settings are in :mod:`tests.support.browser`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from croupier.local.stack import LocalStack
from tests.support.browser import FLAGS, TIMERS, Page, chromium_path
from tests.support.harness import Harness


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip("Debian's chromium is not installed (make setup installs it with apt-get, as root, where apt is "
                    "available): the browser tests need it")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as playwright:
        # Playwright gives the browser a fresh temporary user-data dir, removed when it closes
        launched = playwright.chromium.launch(executable_path=path, args=FLAGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def h(stack: LocalStack) -> Iterator[Harness]:
    harness = Harness(stack)
    harness.timers = dict(TIMERS)
    yield harness
    harness.close()


@pytest.fixture
def pages(browser: Any, stack: LocalStack) -> Iterator[Callable[[], Page]]:
    opened: list[Any] = []

    def new() -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        opened.append(context)
        return Page(context, stack)

    yield new
    for context in opened:
        context.close()
