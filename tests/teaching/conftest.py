"""The ``browser`` fixture: headless Chromium for the compare page (Debian chromium + chromium-driver)."""

from __future__ import annotations

import importlib.util
import shutil
from typing import Optional

import pytest


def missing_browser() -> Optional[str]:
    """Why the browser tests cannot run here, or None."""
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        return "Chromium is not installed (Debian: apt-get install chromium chromium-driver)"
    if shutil.which("chromedriver") is None:
        return "chromedriver is not installed (Debian: apt-get install chromium-driver)"
    if importlib.util.find_spec("selenium") is None:
        return "Selenium is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium driven by the system's chromedriver (never a downloaded one: the
    tests run without a network); skipped, naming what is missing, where there is none."""
    reason = missing_browser()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1600,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()
