"""A recorded page becomes the cleaned text and word list question generation reads."""

from pathlib import Path

from generation import pagetext

PAGES = Path(__file__).parent / "pages"
KETTLE_URL = "https://northbrook.example/kitchen/kettles/halden"

KETTLE_LINES = [
    "Halden Glass Kettle 1.7L",
    "4.6 out of 5 (212 reviews)",
    "The Halden on its 360° base",
    "£39.99",
    "Was £49.99 – save £10.00",
    "In stock",
    "Add to basket",
    "Description",
    "A borosilicate glass kettle that boils a full jug in about four minutes. "
    "The blue light shows while it heats and switches off at the boil.",
    "Specifications",
    "Capacity 1.7 litres",
    "Material Borosilicate glass and stainless steel",
    "Dimensions 23 x 16 x 25 cm",
    "Colour Clear",
    "Power 3000 W",
]
# The lines' words, in order, without the punctuation around them: "(212" is "212".
KETTLE_WORDS = [
    word
    for line in (
        "Halden Glass Kettle 1.7L",
        "4.6 out of 5 212 reviews",
        "The Halden on its 360° base",
        "£39.99",
        "Was £49.99 save £10.00",
        "In stock",
        "Add to basket",
        "Description",
        "A borosilicate glass kettle that boils a full jug in about four minutes",
        "The blue light shows while it heats and switches off at the boil",
        "Specifications",
        "Capacity 1.7 litres",
        "Material Borosilicate glass and stainless steel",
        "Dimensions 23 x 16 x 25 cm",
        "Colour Clear",
        "Power 3000 W",
    )
    for word in line.split(" ")
]


def kettle(**options):
    return pagetext.from_html((PAGES / "kettle.html").read_text(), url=KETTLE_URL, **options)


def test_kettle_page_keeps_the_visible_main_content_line_by_line():
    page = kettle()

    assert page.lines == KETTLE_LINES
    assert page.words == KETTLE_WORDS
    assert page.title == "Halden Glass Kettle 1.7L | Northbrook Home"
    assert page.heading == "Halden Glass Kettle 1.7L"
    assert page.text == "\n".join(KETTLE_LINES)


def test_kettle_page_images_have_alt_text_and_captions_with_absolute_sources():
    assert kettle().images == [
        {
            "alt": "Glass kettle with a blue-lit water window and a brushed steel base",
            "caption": "Glass kettle with a blue-lit water window and a brushed steel base",
            "src": "https://northbrook.example/media/products/halden-kettle-front.jpg",
            "line": 2,
        },
        {
            # No alt text: the nearest line (the figure's caption) describes it.
            "alt": "",
            "caption": "The Halden on its 360° base",
            "src": "https://northbrook.example/media/products/halden-kettle-side.jpg",
            "line": 2,
        },
    ]


def test_scripts_hidden_text_and_chrome_leave_nothing_behind():
    text = kettle().text

    for gone in (
        "gtag",  # script
        "font-weight",  # style
        "Product",  # JSON-LD
        "Enable JavaScript",  # noscript
        "{{ body }}",  # template
        "Star icon",  # svg title
        "VAT",  # hidden attribute
        "KETTLE10",  # display: none
        "★",  # aria-hidden
        "Free delivery",  # role=banner
        "Sign in",  # site header
        "Sale",  # site navigation
        "Breadcrumb",
        "Kitchen",  # breadcrumb navigation inside main
        "You may also like",  # aside
        "help@northbrook.example",  # site footer
        "Registered in England",  # role=contentinfo
        "Northbrook Home logo",  # image in the site header
    ):
        assert gone not in text, gone
    assert "·" not in kettle().lines  # a line of only punctuation


def test_header_inside_an_article_is_the_articles_own_not_site_chrome():
    page = pagetext.from_html(
        "<header>Shop name</header><article><header><h1>Oak stool</h1></header><p>Price: $80</p></article>"
        "<footer>Site footer</footer>"
    )

    assert page.lines == ["Oak stool", "Price: $80"]
    assert page.heading == "Oak stool"


def test_cleaning_collapses_whitespace_drops_symbol_lines_repeats_and_code():
    page = pagetext.from_html(
        "<main><p>  Oak\n\t stool&nbsp;&nbsp;large </p><p>***</p><p>— | —</p><p>Add to basket</p>"
        "<p>Add to basket</p><p>.btn { color: red; }</p><p>&lt;div class=&quot;x&quot;&gt;</p>"
        "<p>Zero\u200bwidth</p><ul><li>one<li>two</ul></main>"
    )

    assert page.lines == ["Oak stool large", "Add to basket", "Zerowidth", "one", "two"]


def test_cleaned_text_is_capped_at_max_chars_without_cutting_a_line():
    page = pagetext.from_html("".join(f"<p>Line number {n}</p>" for n in range(100)), max_chars=60)

    assert page.lines == ["Line number 0", "Line number 1", "Line number 2", "Line number 3"]
    assert len(page.text) <= 60


def test_table_cells_stay_on_their_rows_line():
    page = pagetext.from_html(
        "<table><tr><th>Size</th><td>350 ml</td></tr><tr><td>Colour</td><td>Blue</td></tr></table>"
    )

    assert page.lines == ["Size 350 ml", "Colour Blue"]


def test_only_images_in_the_main_content_get_a_caption():
    page = pagetext.from_html(
        '<div><img src="/banner.png" alt="Summer sale"></div><main><img src="mug.png" alt="A blue mug"></main>',
        url="https://shop.example/mugs/blue",
    )

    assert [(image["alt"], image["caption"], image["src"]) for image in page.images] == [
        ("Summer sale", "", "https://shop.example/banner.png"),
        ("A blue mug", "A blue mug", "https://shop.example/mugs/mug.png"),
    ]


def test_without_a_main_element_every_visible_image_is_captioned_and_falls_back_to_text_before_it():
    page = pagetext.from_html('<h1>Blue mug</h1><p>Stoneware, 350 ml</p><img src="mug.png">')

    assert page.images == [{"alt": "", "caption": "Stoneware, 350 ml", "src": "mug.png", "line": 1}]


def test_a_captioner_can_be_plugged_in():
    class Fixed:
        def __init__(self):
            self.seen = []

        def caption(self, image, page):
            self.seen.append((image["src"], page.heading))
            return "  a   glass kettle on a base "

    captioner = Fixed()
    page = kettle(captioner=captioner)

    assert [image["caption"] for image in page.images] == ["a glass kettle on a base"] * 2
    assert captioner.seen[0] == ("https://northbrook.example/media/products/halden-kettle-front.jpg", page.heading)


def test_ocr_lines_are_cleaned_the_same_way():
    page = pagetext.from_words(["Blue  mug", "|||", "Price: $8.00", "Blue mug", "  Size: 350 ml "])

    assert page.lines == ["Blue mug", "Price: $8.00", "Size: 350 ml"]
    assert page.words == ["Blue", "mug", "Price", "$8.00", "Size", "350", "ml"]
    assert page.images == [] and page.title == ""


# --- Personal data ---------------------------------------------------------------


def test_an_email_address_and_a_phone_number_in_page_text_are_found_and_redacted():
    page = pagetext.from_html(
        "<main><h1>Oak stool</h1><p>Price: £80.00</p>"
        "<p>Questions? Write to   jane.doe@example.com or call +44 20 7946 0958 today.</p></main>"
    )

    findings = pagetext.pii_findings(page.text)

    assert {"kind": "email", "text": "jane.doe@example.com"} in findings
    assert {"kind": "phone", "text": "+44 20 7946 0958"} in findings
    assert pagetext.redact(page.text, findings) == (
        "Oak stool\nPrice: £80.00\nQuestions? Write to […] or call […] today."
    )


def test_redaction_matches_findings_across_irregular_whitespace_and_leaves_prices_alone():
    text = "Call 020  7946\t0958 for £39.99 off"

    findings = pagetext.pii_findings(text)

    assert findings == [{"kind": "phone", "text": "020 7946 0958"}]
    assert pagetext.redact(text, findings) == "Call […] for £39.99 off"


def test_text_without_personal_data_has_no_findings():
    assert pagetext.pii_findings("\n".join(KETTLE_LINES)) == []


def test_a_whole_page_is_redacted_keeping_its_title_images_and_line_places():
    page = pagetext.from_html(
        "<title>Oak stool</title><main><h1>Oak stool</h1><p>Sign out</p>"
        '<img src="stool.png" alt="Stool, ask jane.doe@example.com"><p>Price: £80.00</p>'
        "<p>Call 020 7946 0958</p></main>"
    )

    masked = pagetext.redacted(page)

    assert masked.lines == ["Oak stool", "Sign out", "Price: £80.00", "Call […]"]
    assert masked.words == ["Oak", "stool", "Sign", "out", "Price", "£80.00", "Call"]  # the mask is no word
    assert masked.images == [{"alt": "Stool, ask […]", "caption": "Stool, ask […]", "src": "stool.png", "line": 2}]
    assert (masked.title, masked.heading) == ("Oak stool", "Oak stool")
    assert pagetext.redacted(masked) is masked  # nothing left to mask
