"""Headless Debian Chromium driven by Playwright; screenshots go to test-artifacts/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make between
# browser steps are plain synchronous code, so Django's async-safety guard is relaxed here only.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object, live_url: str, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(base_url=live_url, viewport={"width": 1280, "height": 860})  # type: ignore[attr-defined]
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{request.node.name}-final.png"), full_page=True)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(page: object, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]
