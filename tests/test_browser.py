"""A real browser on a real server: headless Chromium (Debian's `chromium` and `chromium-driver`) driven by selenium
signs in through the form, walks every page, changes incidents' status, and fails on any console error (a script
error, a resource the CSP refused, a missing file). It saves its screenshots in the test's directory, or with
SECMGR_SCREENSHOTS=docs/screenshots into the README's."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from secmgr.demo import prepare
from secmgr.settings import Settings

from .conftest import ADMIN_PASSWORD
from .server import Server, serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="the browser test needs headless Chromium: apt-get install chromium chromium-driver",
)


@pytest.fixture
def server(tmp_path: Path, database_url: str | None) -> Iterator[Server]:
    prepare(Settings(data_dir=tmp_path / "data", admin_password=ADMIN_PASSWORD, database_url=database_url))
    with serving(tmp_path, database_url) as running:
        yield running


@pytest.fixture
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     "--disable-gpu", "--no-first-run"):  # fmt: skip
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _no_console_errors(driver: Any, where: str) -> None:
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], (where, severe)


def _submit(driver: Any, selector: str) -> None:
    """Clicks a form's button and waits until the page it posts to has replaced this one."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element("css selector", "html")
    driver.find_element("css selector", selector).click()

    def replaced(driver: Any) -> bool:
        try:
            return bool(expected_conditions.staleness_of(page)(driver))
        except WebDriverException as exc:  # Chromium's way of saying so while it swaps the document
            return "does not belong to the document" in str(exc)

    WebDriverWait(driver, 30).until(replaced)


def _visit(driver: Any, url: str) -> None:
    driver.get(url)
    title = driver.find_element("css selector", "h1").text
    assert "error" not in title.lower() and "not found" not in title.lower(), (url, title)
    unlabelled = driver.execute_script(
        "return [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]"
        ".filter(e => !e.labels.length && !e.getAttribute('aria-label')).map(e => e.outerHTML.slice(0, 120))"
    )
    assert unlabelled == [], (url, unlabelled)
    _no_console_errors(driver, url)


def _keyboard_reaches_every_control(driver: Any, url: str) -> None:
    """Tab alone walks every link, button and field of the page in order, each with a visible focus outline; no
    element takes a positive tabindex."""
    from selenium.webdriver.common.keys import Keys

    _visit(driver, url)
    assert driver.execute_script("return [...document.querySelectorAll('[tabindex]')].filter(e => e.tabIndex > 0)"
                                 ".length") == 0  # fmt: skip
    wanted = driver.execute_script(
        "return [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')]"
        ".filter(e => !e.disabled && e.getClientRects().length).length"
    )
    reached = set()
    body = driver.find_element("css selector", "body")
    body.send_keys(Keys.TAB)
    for _ in range(wanted + 5):
        focused = driver.switch_to.active_element
        key = driver.execute_script(
            "const e = document.activeElement; const style = getComputedStyle(e);"
            " return [e.outerHTML.slice(0, 200), style.outlineStyle, style.outlineWidth]",
        )
        if key[0].startswith("<body"):
            break
        assert key[1] != "none" and key[2] != "0px", (url, key)
        reached.add(key[0])
        focused.send_keys(Keys.TAB)
    assert len(reached) >= wanted, (url, len(reached), wanted)


def test_a_person_signs_in_walks_every_page_and_triages(server: Server, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    shots = Path(os.environ["SECMGR_SCREENSHOTS"]) if os.environ.get("SECMGR_SCREENSHOTS") else tmp_path / "shots"
    shots.mkdir(parents=True, exist_ok=True)
    browser.get(server.url + "/")
    assert "/ui/login" in browser.current_url
    browser.find_element("name", "username").send_keys("admin")
    browser.find_element("name", "password").send_keys(ADMIN_PASSWORD)
    _submit(browser, "form button[type=submit]")
    assert browser.current_url == server.url + "/ui/"
    assert browser.find_element("css selector", "h1").text == "Overview"
    assert browser.find_elements("css selector", "svg rect.bar-secrets")
    _no_console_errors(browser, "overview")
    browser.save_screenshot(str(shots / "overview.png"))

    links = [a.get_attribute("href") for a in browser.find_elements("css selector", "header nav a")]
    assert len(links) >= 14
    for link in links:
        _visit(browser, link)
        # Every list's first detail link, where a list has one.
        details = [a.get_attribute("href") for a in browser.find_elements("css selector", "td a")]
        details = [d for d in details if d.rsplit("/", 1)[-1].isdigit() or "/ui/advisories/" in d]
        if details:
            _visit(browser, details[0])

    _visit(browser, browser.find_element("css selector", "header a.who").get_attribute("href"))
    assert browser.find_element("name", "current_password")
    _visit(browser, server.url + "/ui/secrets?sort_by=severity&order_by=desc")
    assert "in all" in browser.find_element("css selector", ".count").text
    browser.save_screenshot(str(shots / "secrets.png"))

    # One incident's status, through its form.
    _visit(browser, server.url + "/ui/incidents?type=secret")
    browser.find_element("css selector", "tbody td a").click()
    Select(browser.find_element("name", "status")).select_by_visible_text("in-progress")
    browser.find_element("name", "comment").send_keys("Rotating the key with the payments team")
    _submit(browser, "form.stack button[type=submit]")
    assert browser.find_element("css selector", "h1 + p .badge").text == "in-progress"
    assert "Rotating the key" in browser.find_element("css selector", "ol.timeline").text
    _no_console_errors(browser, "incident")
    browser.save_screenshot(str(shots / "incident.png"))
    incident_pages = [browser.current_url]

    # The bulk change: select all with our script, preview, then apply.
    _visit(browser, server.url + "/ui/incidents?type=vulnerability")
    browser.find_element("css selector", "input.select-all").click()
    boxes = browser.find_elements("css selector", "input[name=ids]")
    assert boxes and all(box.is_selected() for box in boxes)
    Select(browser.find_element("css selector", "form.bulk select[name=status]")).select_by_visible_text("closed")
    Select(browser.find_element("css selector", "form.bulk select[name=resolution]")).select_by_visible_text("wont_fix")
    _submit(browser, "form.bulk button[type=submit]")
    assert "Nothing has changed yet" in browser.find_element("css selector", "main").text
    _submit(browser, "main form button[type=submit]")
    assert f"Changed {len(boxes)} incident(s)" in browser.find_element("css selector", "main").text
    _no_console_errors(browser, "bulk change")

    # At phone width nothing scrolls sideways: the overview, the secrets list and the incident changed above.
    browser.set_window_size(390, 844)
    assert browser.execute_script("return window.innerWidth") <= 420
    for url in (server.url + "/ui/", server.url + "/ui/secrets", *(incident_pages or [])):
        _visit(browser, url)
        overflow = browser.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth,"
            " [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth"
            " && !e.closest('.scroll')).slice(0, 5).map(e => e.tagName + '.' + e.className)]"
        )
        assert overflow[0] <= overflow[1], (url, overflow)
    browser.set_window_size(1280, 1000)

    _keyboard_reaches_every_control(browser, server.url + "/ui/incidents?type=secret")
    _keyboard_reaches_every_control(browser, server.url + "/ui/")

    _submit(browser, "form.signout button")
    assert "/ui/login" in browser.current_url
    browser.get(server.url + "/ui/secrets")
    assert "/ui/login" in browser.current_url
