"""The web pages in a real headless browser: Debian's Chromium driven by Playwright (never a
browser Playwright downloads), one browser per session, a new context (fresh storage) per page,
against the session's local stack, which serves the pages (``croupier.local.web``). The fixtures
only; the page and the browser's settings are in :mod:`tests.support.browser`."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                               ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's pages say what they were doing (:meth:`Page.diagnosis`), in its report."""
    report = yield
    if report.when == "call" and report.failed:
        for n, page in enumerate(getattr(item, "pages_opened", []), start=1):
            report.sections.append((f"page {n} of {item.name}", page.diagnosis()))
    return report


@pytest.fixture
def pages(browser: Any, stack: LocalStack, request: pytest.FixtureRequest) -> Iterator[Callable[[], Page]]:
    opened: list[Page] = []
    request.node.pages_opened = opened

    def new() -> Page:
        page = Page(browser.new_context(viewport={"width": 1280, "height": 900}), stack)
        opened.append(page)
        return page

    yield new
    for page in opened:
        page.context.close()
