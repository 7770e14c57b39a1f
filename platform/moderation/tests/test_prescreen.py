"""The PII and safety pre-screen, on screenshots rendered with a real font and read by
the real Tesseract. Each page is read once per module; pure-text cases use hand-made lines."""

import io
import json
import os

import pytesseract
import pytest
from PIL import Image, ImageDraw, ImageFont

from moderation import prescreen as prescreen_module
from moderation.prescreen import (
    OCR_BAND_HEIGHT,
    OCR_MAX_BANDS,
    OCR_MAX_WIDTH,
    Box,
    Line,
    Word,
    find_pii,
    find_unsafe_text,
    find_unsafe_url,
    find_url_rules,
    ocr_bands,
    prescreen,
    read_words,
)

# Domains on reserved TLDs, so that the tests name no real site.
PLACEHOLDERS = ("adult-site.example", "xxx-videos.example", "casino-royale.test", "bet-now.invalid")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def render(rows, *, size=(1000, 500), font_size=22):
    """A white page with black text. ``rows`` are (label, value) pairs, one per line,
    the value drawn after its label; returns the image and each value's ink box."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, font_size)
    boxes, y = {}, 16
    for label, value in rows:
        x = 24
        if label:
            draw.text((x, y), label, font=font, fill="black")
            x = draw.textbbox((x, y), label, font=font)[2] + font_size
        if value:
            draw.text((x, y), value, font=font, fill="black")
            left, top, right, bottom = draw.textbbox((x, y), value, font=font)
            boxes[value] = Box(left, top, right - left, bottom - top)
        y += int(font_size * 1.9)
    return image, boxes


def iou(a, b):
    width = min(a.right, b.right) - max(a.left, b.left)
    height = min(a.bottom, b.bottom) - max(a.top, b.top)
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    return inter / (a.width * a.height + b.width * b.height - inter)


def assert_covers(finding_box, text_box, tolerance=4):
    """The redaction hides the whole rendered text, and not much more."""
    assert finding_box.left <= text_box.left + tolerance
    assert finding_box.top <= text_box.top + tolerance
    assert finding_box.right >= text_box.right - tolerance
    assert finding_box.bottom >= text_box.bottom - tolerance
    assert iou(finding_box, text_box) >= 0.5


def only(findings, kind):
    matching = [f for f in findings if f.kind == kind]
    assert len(matching) == 1, findings
    return matching[0]


def text_line(text):
    """A line as OCR would give it, without an image: one word per space-separated token."""
    words, left = [], 0
    for token in text.split():
        words.append(Word(token, 0.95, Box(left, 0, 12 * len(token), 20), 1, 1, 1))
        left += 12 * len(token) + 10
    return Line(words)


def kinds(text):
    return sorted(f.kind for f in find_pii([text_line(text)]))


HEADER = [
    ("", "Northwind Outfitters"),
    ("", "Your recent orders and saved details are shown below."),
]


@pytest.fixture(scope="module")
def account_page():
    image, boxes = render(
        [
            *HEADER,
            ("Email:", "maria_lopez@example.com"),
            ("Phone:", "+1 (415) 555-2671"),
            ("Card:", "4111 1111 1111 1111"),
            ("Old card:", "4111 1111 1111 1112"),
            ("", "Hi, Maria"),
            ("", "Sign out"),
        ]
    )
    return prescreen(image, url="https://shop.example.com/"), boxes


@pytest.fixture(scope="module")
def billing_page():
    image, boxes = render(
        [
            *HEADER,
            ("IBAN:", "DE89 3704 0044 0532 0130 00"),
            ("Old IBAN:", "DE88 3704 0044 0532 0130 00"),
            ("SSN:", "123-45-6789"),
            ("Ship to:", "221B Baker Street"),
            ("Invoice", "12/05/2024 total $1,299.00"),
        ]
    )
    return prescreen(image), boxes


@pytest.fixture(scope="module")
def clean_page():
    image, _ = render(
        [
            ("", "The History of Tea"),
            ("", "Tea was first drunk in China around 2737 BC."),
            ("", "Chapter 3 covers the years 1610 to 1720."),
            ("", "A pound of tea cost $12.50 on 04/06/1750."),
            ("", "Read more in our archive of 250 articles."),
        ]
    )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return prescreen(buffer.getvalue(), url="https://tea-history.example.org/articles/3")


@pytest.fixture(scope="module")
def unsafe_page():
    image, boxes = render(
        [
            ("", "Forum - General discussion"),
            ("Warning:", "graphic violence"),
            ("Visit", "adult-site.example"),
        ],
        size=(800, 300),
    )
    return prescreen(image, url="https://casino-royale.test/lobby", blocked_domains=PLACEHOLDERS), boxes


def test_email_is_found_and_its_whole_word_redacted(account_page):
    result, boxes = account_page
    email = only(result.findings, "email")
    assert "@example.com" in email.text
    assert_covers(email.box, boxes["maria_lopez@example.com"])


def test_phone_number_is_found_with_a_box_over_all_its_words(account_page):
    result, boxes = account_page
    phone = only(result.findings, "phone")
    assert "555" in phone.text
    assert_covers(phone.box, boxes["+1 (415) 555-2671"])


def test_valid_card_number_is_found_across_its_four_groups(account_page):
    result, boxes = account_page
    card = only(result.findings, "card")
    assert_covers(card.box, boxes["4111 1111 1111 1111"])


def test_card_number_failing_luhn_is_not_a_card(account_page):
    result, boxes = account_page
    invalid = boxes["4111 1111 1111 1112"]
    assert not [f for f in result.findings if f.box and iou(f.box, invalid) > 0.1]


def test_greeting_and_sign_out_mark_a_signed_in_page(account_page):
    result, boxes = account_page
    signed_in = [f for f in result.findings if f.kind == "signed_in"]
    assert {f.text for f in signed_in} == {"Hi, Maria", "Sign out"}
    sign_out = next(f for f in signed_in if f.text == "Sign out")
    assert_covers(sign_out.box, boxes["Sign out"])


def test_card_on_the_page_puts_it_at_the_top_of_the_pii_queue(account_page):
    result, _ = account_page
    card = only(result.findings, "card")
    assert result.pii_risk == pytest.approx(card.confidence)
    assert result.pii_risk > 0.7
    assert result.safety_risk == 0
    assert result.words > 20
    assert result.seconds > 0


def test_iban_with_valid_check_digits_is_found_and_invalid_one_is_not(billing_page):
    result, boxes = billing_page
    iban = only(result.findings, "iban")
    assert iban.text.replace(" ", "") == "DE89370400440532013000"
    assert_covers(iban.box, boxes["DE89 3704 0044 0532 0130 00"])
    invalid = boxes["DE88 3704 0044 0532 0130 00"]
    assert not [f for f in result.findings if f.box and iou(f.box, invalid) > 0.1]


def test_ssn_and_street_address_are_found(billing_page):
    result, boxes = billing_page
    assert_covers(only(result.findings, "ssn").box, boxes["123-45-6789"])
    address = only(result.findings, "address")
    assert address.text == "221B Baker Street"
    assert_covers(address.box, boxes["221B Baker Street"])


def test_dates_and_prices_are_not_phone_numbers(billing_page):
    result, _ = billing_page
    assert not [f for f in result.findings if f.kind == "phone"]


def test_clean_page_has_no_findings_and_no_risk(clean_page):
    assert clean_page.findings == []
    assert clean_page.pii_risk == 0
    assert clean_page.safety_risk == 0
    assert clean_page.words > 30


def test_safety_keywords_and_blocked_domains_raise_safety_risk(unsafe_page):
    result, boxes = unsafe_page
    violence = only(result.findings, "violence")
    assert_covers(violence.box, boxes["graphic violence"])
    on_screen = [f for f in result.findings if f.kind == "blocked_domain" and f.box]
    assert [f.text for f in on_screen] == ["adult-site.example"]
    in_url = [f for f in result.findings if f.kind == "blocked_domain" and not f.box]
    assert [f.text for f in in_url] == ["casino-royale.test"]
    assert result.safety_risk == 1.0
    assert result.pii_risk == 0


def test_results_serialise_to_json(account_page):
    result, _ = account_page
    data = json.loads(json.dumps(result.to_json()))
    assert set(data) == {"findings", "pii_risk", "safety_risk", "words", "seconds"}
    card = next(f for f in data["findings"] if f["kind"] == "card")
    assert set(card) == {"kind", "text", "box", "confidence"}
    assert set(card["box"]) == {"left", "top", "width", "height"}
    assert 0 < card["confidence"] <= 1


def test_tesseract_runs_single_threaded(monkeypatch):
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    image, _ = render([("", "Hello")], size=(200, 60))
    words = read_words(image)
    assert [w.text for w in words] == ["Hello"]
    assert os.environ["OMP_THREAD_LIMIT"] == "1"


# --- Detectors on text alone ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Call +44 20 7946 0958 today",
        "Tel. 0049 30 1234567",
        "Office: (415) 555-2671",
        "Office: 415-555-2671",
        "Office: 415.555.2671",
        "Mobil 0171/1234567",
        "Portable 06 12 34 56 78",
        "Fon 030 12345678",
    ],
)
def test_phone_formats(text):
    assert kinds(text) == ["phone"]


@pytest.mark.parametrize(
    "text",
    [
        "Posted 01.05.2024 at 10:30",
        "Posted 01-05-2024",
        "Due 2024-05-01",
        "Now $1,299.00, was 1 299 000 EUR",
        "Order 555-1234 shipped",
        "Copyright 2019 2024",
    ],
)
def test_dates_prices_and_short_numbers_are_not_phones(text):
    assert kinds(text) == []


@pytest.mark.parametrize(
    "text, found",
    [
        ("Visa 4111-1111-1111-1111 exp 12/27", ["card"]),
        ("Amex 3782 822463 10005", ["card"]),
        ("Card 4111 1111 1111 1111 CVV 123", ["card"]),
        ("Card 4111 1111 1111 1112", []),
        ("Ref 0000 0000 0000 0000", []),
        ("GB82 WEST 1234 5698 7654 32", ["iban"]),
        ("GB83 WEST 1234 5698 7654 32", []),
        ("SSN 078-05-1120", ["ssn"]),
        ("SSN 000-12-3456", []),
        ("SSN 666-12-3456", []),
        ("SSN 912-12-3456", []),
        ("1600 Pennsylvania Avenue NW", ["address"]),
        ("42 W 5th St.", ["address"]),
        ("12 rue de Rivoli", ["address"]),
        ("Hauptstraße 5", ["address"]),
        ("Top 10 ways to brew tea", []),
        ("Welcome back!", ["signed_in"]),
        ("My Account", ["signed_in"]),
        ("Log out", ["signed_in"]),
        ("Hello, Maria", ["signed_in"]),
        ("_lopez@example.com", ["email"]),
        ("@example.com", ["email"]),
        ("Follow @example on social", []),
    ],
)
def test_number_address_and_signed_in_rules(text, found):
    assert kinds(text) == found


@pytest.mark.parametrize(
    "url, texts",
    [
        ("https://mail.google.com/mail/u/0/#inbox", ["mail.google.com"]),
        ("https://outlook.live.com/mail/0/", ["outlook.live.com"]),
        ("https://mail.yahoo.com/d/folders/1", ["mail.yahoo.com"]),
        ("https://online.examplebank.com/", ["online.examplebank.com"]),
        ("https://shop.example.com/account/orders", ["/account", "/orders"]),
        ("shop.example.com/checkout", ["/checkout"]),
        ("https://example.com/Settings/profile", ["/profile", "/settings"]),
        ("https://example.com/blog/accounting-tips", []),
        ("", []),
    ],
)
def test_url_rules(url, texts):
    findings = find_url_rules(url)
    assert [f.text for f in findings] == texts
    assert all(f.kind == "url" and f.box is None for f in findings)


def test_blocked_domain_matches_subdomains_but_not_lookalikes():
    assert [f.text for f in find_unsafe_url("https://www.bet-now.invalid/", PLACEHOLDERS)] == ["www.bet-now.invalid"]
    assert find_unsafe_url("https://bet-now.invalid.example.org/", PLACEHOLDERS) == []
    assert find_unsafe_url("https://notbet-now.invalid/", PLACEHOLDERS) == []
    assert find_unsafe_url("https://www.bet-now.invalid/", blocked_domains=[]) == []


def test_safety_keywords_by_category():
    findings = find_unsafe_text([text_line("Talking about Self-Harm and NSFW posts"), text_line("Tea gardens")])
    assert sorted((f.kind, f.text) for f in findings) == [("adult", "NSFW"), ("self_harm", "Self-Harm")]


# --- Any stored image: tall, wide or absurd -----------------------------------------


@pytest.fixture
def ocr_calls(monkeypatch):
    """The size of every image handed to Tesseract; fails on one it would refuse."""
    sizes, image_to_data = [], pytesseract.image_to_data

    def spy(image, *args, **kwargs):
        sizes.append(image.size)
        assert max(image.size) <= 32767, f"Tesseract refuses {image.size}"
        return image_to_data(image, *args, **kwargs)

    monkeypatch.setattr(prescreen_module.pytesseract, "image_to_data", spy)
    return sizes


def tall_page(size, texts, font_size=22):
    """A white page of ``size`` with each of ``texts`` (y → text) drawn at x=40; returns
    the image and each text's ink box."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, font_size)
    boxes = {}
    for y, text in texts.items():
        draw.text((40, y), text, font=font, fill="black")
        left, top, right, bottom = draw.textbbox((40, y), text, font=font)
        boxes[text] = Box(left, top, right - left, bottom - top)
    return image, boxes


@pytest.mark.parametrize(
    "size", [(1280, 800), (1280, 30000), (600, 40000), (9000, 700), (32000, 800), (200, 2_000_000)]
)
def test_bands_cover_the_image_once_within_tesseracts_limits(size):
    width, height = size
    bands = ocr_bands(width, height)
    assert 1 <= len(bands) <= OCR_MAX_BANDS
    assert bands[0].owned_top == 0 and bands[-1].owned_bottom == height and bands[-1].bottom == height
    for band, following in zip(bands, bands[1:], strict=False):
        assert band.owned_bottom == following.owned_top  # every row belongs to one band
        assert following.top < band.bottom  # and consecutive bands overlap
    for band in bands:
        assert band.top <= band.owned_top < band.owned_bottom <= band.bottom
        assert round(width * band.scale) <= OCR_MAX_WIDTH
        assert (band.bottom - band.top) * band.scale <= OCR_BAND_HEIGHT + 1


def test_a_full_page_is_read_in_bands_and_a_strip_not_at_all():
    assert len(ocr_bands(1280, 800)) == 1 and ocr_bands(1280, 800)[0].scale == 1
    assert len(ocr_bands(1280, 30000)) == 8
    assert ocr_bands(1, 49_000_000) == []  # no line of text fits in one pixel


def test_a_page_taller_than_tesseract_takes_is_read_with_boxes_in_its_own_pixels(ocr_calls):
    bands = ocr_bands(600, 40000)
    on_the_edge = bands[1].top + 60  # inside the overlap of the first two bands
    image, boxes = tall_page(
        (600, 40000),
        {100: "Northwind Outfitters", on_the_edge: "Sign out", 39_900: "Mail: maria_lopez@example.com"},
    )
    result = prescreen(image)
    assert len(ocr_calls) == len(bands) > 1
    sign_out = [f for f in result.findings if f.kind == "signed_in"]
    assert len(sign_out) == 1  # read in both bands, kept once
    assert_covers(sign_out[0].box, boxes["Sign out"])
    email = only(result.findings, "email")
    assert "@example.com" in email.text
    assert email.box.top > 39_800  # in the original's pixels, not the band's
    assert email.box.left < boxes["Mail: maria_lopez@example.com"].right


def test_a_very_wide_image_is_scaled_down_and_its_boxes_scaled_back(ocr_calls):
    image, boxes = tall_page((9000, 700), {300: "Contact maria_lopez@example.com today"}, font_size=48)
    result = prescreen(image)
    assert [size[0] for size in ocr_calls] == [OCR_MAX_WIDTH]
    email = only(result.findings, "email")
    text = boxes["Contact maria_lopez@example.com today"]
    assert text.left <= email.box.left < text.right and text.top - 10 <= email.box.top <= text.top + 20
    assert email.box.width > 400  # about 600 pixels of the original, not 270 of the copy


def test_a_strip_no_text_fits_in_is_not_handed_to_tesseract(ocr_calls):
    strip = Image.new("L", (2, 200_000), 255)
    result = prescreen(strip, url="https://mail.google.com/")
    assert ocr_calls == [] and result.words == 0
    assert [f.kind for f in result.findings] == ["url"]  # the URL rules still apply
