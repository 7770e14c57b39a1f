"""Raters capture screens and write questions in a real browser, reloading mid-way."""

import base64
import re

import pytest
from playwright.sync_api import expect

from assets.tests.samples import png_bytes
from corpus.models import QAPair
from hits.models import Assignment
from tests.e2e.conftest import log_in
from tests.factories import PASSWORD, capture_batch, site

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _png_file(seed):
    return {"name": f"screen-{seed}.png", "mimeType": "image/png", "buffer": png_bytes(size=(800, 500), seed=seed)}


def _hand_over(page, how, seed):
    """Drops a PNG onto the drop zone, or pastes it, as a browser would deliver it."""
    page.evaluate(
        """([how, data]) => {
            const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], how + ".png", {type: "image/png"}));
            const options = {bubbles: true, cancelable: true};
            if (how === "drop") {
                document.getElementById("dropzone").dispatchEvent(new DragEvent("drop", {...options, dataTransfer: transfer}));
            } else {
                document.dispatchEvent(new ClipboardEvent("paste", {...options, clipboardData: transfer}));
            }
        }""",
        [how, base64.b64encode(png_bytes(size=(800, 500), seed=seed)).decode()],
    )


def _wait_for_draft(page):
    expect(page.get_by_test_id("draft-status")).to_have_attribute("data-state", "saved")
    expect(page.get_by_test_id("draft-status")).to_contain_text("Draft saved")


def _fill_screen(page, index, url, title, note=None):
    item = page.get_by_test_id("screen-item").nth(index)
    item.get_by_label("Page address").fill(url)
    item.get_by_label("Page title").fill(title)
    if note is not None:
        item.get_by_label("What this screen adds").fill(note)


def _tick_and_submit(page, reasoning):
    page.get_by_label(reasoning).check()
    page.get_by_label("I did not sign in").check()
    page.get_by_label("The screens show no one’s personal data.").check()
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text("Submitted")


def _start(page, live_server, rater, batch_name):
    log_in(page, live_server.url, rater.username, PASSWORD)
    page.locator("tr", has_text=batch_name).get_by_role("button", name="Start").click()
    expect(page.get_by_test_id("capture")).to_have_attribute("data-ready", "1")  # its script has run


def test_single_screen_task_with_a_refused_file_and_a_reload(page, live_server, rater):
    site(category="restaurant", name="Corner Pizza", url="https://corner-pizza.test/")
    capture_batch(kind="single_screen_qa", categories=("restaurant",), name="Pizza pages")
    _start(page, live_server, rater, "Pizza pages")
    expect(page.get_by_test_id("site-list")).to_contain_text("Corner Pizza")

    page.locator("#screen-file").set_input_files({"name": "notes.png", "mimeType": "image/png", "buffer": b"just text"})
    expect(page.get_by_test_id("upload-error")).to_contain_text("notes.png")
    expect(page.get_by_test_id("screen-item")).to_have_count(0)

    page.locator("#screen-file").set_input_files(_png_file(1))
    expect(page.get_by_test_id("screen-item")).to_have_count(1)
    _fill_screen(page, 0, "https://corner-pizza.test/menu", "Menu – Corner Pizza")
    page.get_by_label("Question").fill("How much do two large pizzas and a salad cost?")
    page.get_by_label("Answer").fill("34.25")
    expect(page.get_by_test_id("answer-type")).to_have_text("Answer type: Decimal number")
    _wait_for_draft(page)

    page.reload()
    expect(page.get_by_test_id("screen-item")).to_have_count(1)
    expect(page.get_by_label("Page address")).to_have_value("https://corner-pizza.test/menu")
    expect(page.get_by_label("Question")).to_have_value("How much do two large pizzas and a salad cost?")

    page.get_by_role("button", name="Submit", exact=True).click()
    errors = page.get_by_test_id("form-errors")
    expect(errors).to_contain_text("Tick at least one kind of reasoning")
    expect(errors).to_contain_text("did not sign in")
    expect(page.get_by_test_id("screen-item")).to_have_count(1)  # nothing lost

    _tick_and_submit(page, "Arithmetic")

    pair = QAPair.objects.get()
    assert (pair.split_kind, pair.answer, pair.answer_type, pair.reasoning_types) == (
        "single_screen",
        "34.25",
        "decimal",
        ["arithmetic"],
    )
    assert pair.evidence.get().screen.url == "https://corner-pizza.test/menu"


def test_multi_screen_task_added_by_picker_drop_and_paste_reordered_and_reloaded(page, live_server, rater):
    for name in ("shop-a", "shop-b", "shop-c"):
        site(category="shopping", name=name, url=f"https://{name}.test/")
    capture_batch(kind="multi_screen_qa", name="Kettle prices")
    _start(page, live_server, rater, "Kettle prices")

    page.locator("#screen-file").set_input_files([_png_file(11), _png_file(12)])
    expect(page.get_by_test_id("screen-item")).to_have_count(2)
    # A third screen dropped onto the drop zone, a fourth pasted.
    _hand_over(page, "drop", seed=13)
    expect(page.get_by_test_id("screen-item")).to_have_count(3)
    _hand_over(page, "paste", seed=14)
    expect(page.get_by_test_id("screen-item")).to_have_count(4)

    page.get_by_role("button", name="Remove screen 4").click()
    expect(page.get_by_test_id("screen-item")).to_have_count(3)
    for index, name in enumerate(("shop-a", "shop-b", "shop-c")):
        _fill_screen(page, index, f"https://{name}.test/kettle", f"Kettle at {name}", f"the kettle's price at {name}")
    page.get_by_role("button", name="Move screen 3 up").click()
    expect(page.get_by_test_id("screen-item").nth(1).get_by_label("Page address")).to_have_value(
        "https://shop-c.test/kettle"
    )
    page.get_by_label("Question").fill("How much more is the kettle at the dearest shop than at the cheapest?")
    page.get_by_label("Answer").fill("$4.51")
    page.get_by_label("Comparison").check()
    _wait_for_draft(page)

    page.reload()
    items = page.get_by_test_id("screen-item")
    expect(items).to_have_count(3)
    expect(items.nth(1).get_by_label("What this screen adds")).to_have_value("the kettle's price at shop-c")
    expect(page.get_by_label("Comparison")).to_be_checked()

    # A screen without its address: the summary and the message beside it say which screen.
    second = items.nth(1).get_by_label("Page address")
    second.fill("")
    page.get_by_role("button", name="Submit", exact=True).click()
    errors = page.get_by_test_id("form-errors")
    expect(errors).to_be_focused()
    expect(errors).to_contain_text("Screen 2: Enter the page’s address.")
    second = page.get_by_test_id("screen-item").nth(1).get_by_label("Page address")
    expect(page.get_by_test_id("screen-item").nth(1).get_by_test_id("field-error")).to_have_text(
        "Screen 2: Enter the page’s address."
    )
    errors.get_by_role("link", name="Screen 2: Enter the page’s address.").click()
    expect(second).to_be_focused()
    expect(second).to_have_attribute("aria-invalid", "true")
    second.fill("https://shop-c.test/kettle")

    # The preview opens full size in the viewer.
    page.get_by_test_id("screen-item").first.locator("img").click()
    expect(page.get_by_test_id("viewer-count")).to_have_text("1 of 3")
    expect(page.get_by_test_id("viewer-image")).to_have_attribute("src", re.compile(r"/assets/\d+/$"))
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("viewer")).to_be_hidden()

    _tick_and_submit(page, "Arithmetic")

    pair = QAPair.objects.get()
    assert pair.split_kind == "multi_screen" and pair.reasoning_types == ["arithmetic", "comparison"]
    urls = [e.screen.url for e in pair.evidence.order_by("position")]
    assert urls == ["https://shop-a.test/kettle", "https://shop-c.test/kettle", "https://shop-b.test/kettle"]
    assert Assignment.objects.get(worker=rater).state == "submitted"
