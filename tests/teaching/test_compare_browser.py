"""The compare page in a real browser: clicking the Min line of dsl/sssp.sp highlights exactly
its source-mapped lines in every column, and clicking generated code finds its DSL origin."""

from __future__ import annotations

import pathlib

import pytest

from starc.diagnostics import DiagnosticSink
from starc.driver import compile_file
from starc.teaching.compare import compare_page

ROOT = pathlib.Path(__file__).resolve().parents[2]
SSSP = str(ROOT / "dsl" / "sssp.sp")
BACKENDS = ["cuda", "opencl", "sycl", "openacc", "mpi"]

pytestmark = pytest.mark.browser


def mapped_lines(backend: str, dsl_line: int):
    """(file, line) of every generated line the source map says DSL line ``dsl_line``
    produced (its span starts there)."""
    comp = compile_file(SSSP, DiagnosticSink(), backend=backend)
    return {(name, line) for name, spans in comp.sourcemap.items()
            for line, span in spans.items() if span.line == dsl_line}, comp


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    out = tmp_path_factory.mktemp("compare") / "sssp.html"
    out.write_text(compare_page(SSSP, BACKENDS, DiagnosticSink()))
    browser.get(out.as_uri())
    return browser, out.parent


def highlighted(driver, selector: str):
    return {(el.get_attribute("data-file"), int(el.get_attribute("data-line")))
            for el in driver.find_elements("css selector", selector)}


def test_clicking_min_highlights_the_atomic_min_lines(page):
    driver, folder = page
    source = pathlib.Path(SSSP).read_text().splitlines()
    min_line = next(n for n, text in enumerate(source, 1) if "Min(" in text)
    driver.find_element("id", f"dsl-L{min_line}").click()
    for backend in ("cuda", "opencl"):
        expected, comp = mapped_lines(backend, min_line)
        got = highlighted(driver, f"#col-{backend} .ln.hit")
        assert got == expected
        # and they are the atomic-min lines: the helper call is among them
        texts = [comp.generated.files[f].splitlines()[n - 1] for f, n in got]
        assert any("starc_atomic_min_int(" in t for t in texts), texts
    status = driver.find_element("id", "status").text
    assert f"line {min_line}:" in status
    driver.save_screenshot(str(folder / "compare-min.png"))
    assert (folder / "compare-min.png").stat().st_size > 10_000


def test_clicking_generated_code_highlights_its_dsl_origin(page):
    driver, folder = page
    # the CUDA launch of the outer forall comes from the forall's line..its last line (the
    # worklist's own launches, build and clear, come from the fixedPoint)
    launch = next(el for el in driver.find_elements("css selector", "#col-cuda .ln")
                  if "<<<" in el.text and "_forall_" in el.text)
    start, end = int(launch.get_attribute("data-s")), int(launch.get_attribute("data-e"))
    assert "forall" in pathlib.Path(SSSP).read_text().splitlines()[start - 1]
    launch.find_element("css selector", ".no").click()    # the line is wider than its column
    dsl_hit = [int(el.get_attribute("data-line"))
               for el in driver.find_elements("css selector", ".dsl .ln.hit")]
    dsl_ctx = [int(el.get_attribute("data-line"))
               for el in driver.find_elements("css selector", ".dsl .ln.ctx")]
    assert dsl_hit == [start]
    assert dsl_ctx == list(range(start + 1, end + 1))
    assert "picked" in launch.get_attribute("class")
    # the other columns show the same forall: their OpenCL kernel lines are hit too
    expected, _ = mapped_lines("opencl", start)
    assert highlighted(driver, "#col-opencl .ln.hit") == expected
    driver.save_screenshot(str(folder / "compare-origin.png"))


def test_keyboard_moves_the_selection_and_switches_the_theme(page):
    driver, _ = page
    from selenium.webdriver.common.keys import Keys
    dsl = driver.find_element("css selector", ".code[data-pane=dsl]")
    dsl.click()
    dsl.send_keys(Keys.HOME)
    dsl.send_keys(Keys.ARROW_DOWN)
    assert [el.get_attribute("data-line")
            for el in driver.find_elements("css selector", ".dsl .ln.hit")] == ["2"]
    assert dsl.get_attribute("aria-activedescendant") == "dsl-L2"
    background = "return getComputedStyle(document.body).backgroundColor"
    theme = driver.find_element("id", "theme")
    colours = set()
    for _ in range(3):           # auto -> light -> dark -> auto
        theme.click()
        colours.add((driver.execute_script(
            "return document.documentElement.dataset.theme || 'auto'"),
            driver.execute_script(background)))
    themes = dict(colours)
    assert themes["light"] != themes["dark"]


def test_narrow_screens_show_one_backend_behind_tabs(page):
    driver, _ = page
    driver.set_window_size(700, 900)     # under the page's 900px breakpoint
    try:
        visible = [s.get_attribute("data-backend")
                   for s in driver.find_elements("css selector", ".pane.gen")
                   if s.is_displayed()]
        assert len(visible) == 1
        driver.find_element("id", "tab-opencl").click()
        visible = [s.get_attribute("data-backend")
                   for s in driver.find_elements("css selector", ".pane.gen")
                   if s.is_displayed()]
        assert visible == ["opencl"]
    finally:
        driver.set_window_size(1600, 1000)
