"""The ``rules`` generator: WebVLN's question order over a page's labelled facts, answers
word for word from the page, the same questions for the same page every time."""

from pathlib import Path

import pytest

from collection import demo_sites
from generation import pagetext
from generation.generators import (
    MAX_CANDIDATES,
    Candidate,
    GenerationFailed,
    PageInput,
    UnknownGenerator,
    get,
    names,
)
from generation.generators.rules import item_name

PAGES = Path(__file__).parent / "pages"

# Pages written to trip the rules up: several prices, labels on their own lines, a
# description that starts with a label word, a page that names no item.
OTHER_PAGES = {
    "boots": """<html><head><title>Fell Walker Boots – Ridge Outfitters</title></head><body>
        <main><h1>Fell Walker Boots</h1><p>Now £89.00</p><p>RRP £120.00</p>
        <dl><dt>Available sizes</dt><dd>UK 6, 7, 8, 9, 10</dd><dt>Upper</dt><dd>Waxed leather</dd>
        <dt>Colours</dt><dd>Brown, Black</dd></dl><p>Only 3 left in stock</p></main></body></html>""",
    "sofa": """<main><h1>Linen sofa</h1><p>Material matters: we chose a heavy Belgian linen that softens with every
        wash and keeps its shape for years.</p><p>Price: from £999 to £1,400</p><p>Colour: Oat</p>
        <p>Availability: Out of stock</p></main>""",
    "listing": """<main><h1>Lamps</h1><ul><li>Desk lamp £24.00</li><li>Floor lamp £79.00</li></ul></main>""",
    "nameless": """<main><p>Price: $5.00</p><p>Size: small</p></main>""",
    "duvet": """<html><head><title>Duvet | Bedding | Sleepwell</title></head><body><main>
        <p>€59,95</p><p>Size</p><p>200 x 200 cm</p><p>Filling: duck down</p><p>Material</p>
        <p>100% cotton cover</p></main></body></html>""",
}


def page_input(page_id, html, *, url="", title=None):
    text = pagetext.from_html(html, url=url)
    return PageInput(page_id=page_id, url=url, title=text.title if title is None else title, text=text)


def kettle_input():
    return page_input("page-kettle", (PAGES / "kettle.html").read_text(), url="https://northbrook.example/k")


def demo_inputs():
    for host, (_name, _category, pages) in demo_sites.SITES.items():
        for path in pages:
            yield page_input(f"{host}{path}", demo_sites.page_html(host, path), url=f"https://{host}{path}")


def all_inputs():
    yield kettle_input()
    for page_id, html in OTHER_PAGES.items():
        yield page_input(page_id, html)
    yield from demo_inputs()


def test_kettle_page_gets_price_capacity_and_material_questions():
    assert get("rules").generate(kettle_input()) == [
        Candidate(
            question="What does “Halden Glass Kettle 1.7L” cost?",
            answer="£39.99",
            evidence="£39.99",
            kind="price",
        ),
        Candidate(
            question="How much does “Halden Glass Kettle 1.7L” hold?",
            answer="1.7 litres",
            evidence="Capacity 1.7 litres",
            kind="size",
        ),
        Candidate(
            question="What material is “Halden Glass Kettle 1.7L” made from?",
            answer="Borosilicate glass and stainless steel",
            evidence="Material Borosilicate glass and stainless steel",
            kind="material",
        ),
    ]


@pytest.mark.parametrize("page", list(all_inputs()), ids=lambda page: page.page_id)
def test_every_answer_occurs_word_for_word_in_the_page_text_and_on_its_evidence_line(page):
    candidates = get("rules").generate(page)

    assert len(candidates) <= MAX_CANDIDATES
    for candidate in candidates:
        assert candidate.answer in page.text.text
        assert candidate.answer in candidate.evidence
        assert candidate.evidence in page.text.lines
        assert item_name(page) in candidate.question


def test_every_demo_item_page_gets_a_price_question_and_listing_pages_get_none():
    generator = get("rules")
    for page in demo_inputs():
        candidates = generator.generate(page)
        is_item_page = page.url.rstrip("/").rsplit("/", 1)[-1].isdigit()
        assert bool(candidates) == is_item_page, page.page_id
        if is_item_page:
            assert candidates[0].kind == "price"
            assert candidates[0].answer in page.text.lines[1]  # "Price: …" / "Per night: …"


def test_demo_travel_kettle_falls_back_to_stock_when_no_material_is_given():
    page = page_input("travel", demo_sites.page_html("demo-kitchen.test", "/kettles/2"))

    assert [(c.kind, c.answer) for c in get("rules").generate(page)] == [
        ("price", "$19.00"),
        ("size", "0.5 litres"),
        ("stock", "No"),
    ]


def test_boots_take_the_current_price_sizes_and_then_colour_for_the_missing_material():
    candidates = get("rules").generate(page_input("boots", OTHER_PAGES["boots"]))

    assert [(c.kind, c.answer, c.evidence) for c in candidates] == [
        ("price", "£89.00", "Now £89.00"),
        ("size", "UK 6, 7, 8, 9, 10", "UK 6, 7, 8, 9, 10"),
        ("colour", "Brown, Black", "Brown, Black"),
    ]
    assert candidates[1].question in (
        "Which sizes does “Fell Walker Boots” come in?",
        "What sizes is “Fell Walker Boots” available in?",
    )


def test_a_sentence_starting_with_a_label_word_is_not_taken_for_a_value():
    candidates = get("rules").generate(page_input("sofa", OTHER_PAGES["sofa"]))

    assert [(c.kind, c.answer) for c in candidates] == [
        ("price", "£999"),
        ("colour", "Oat"),
        ("stock", "Out of stock"),
    ]


def test_labels_on_their_own_line_take_the_next_line_and_the_title_names_the_item():
    candidates = get("rules").generate(page_input("duvet", OTHER_PAGES["duvet"]))

    assert [(c.kind, c.answer, c.evidence) for c in candidates] == [
        ("price", "€59,95", "€59,95"),
        ("size", "200 x 200 cm", "200 x 200 cm"),
        ("material", "100% cotton cover", "100% cotton cover"),
    ]
    assert all("“Duvet”" in c.question for c in candidates)


def test_a_listing_page_with_several_prices_and_a_page_naming_no_item_get_no_questions():
    generator = get("rules")

    assert generator.generate(page_input("listing", OTHER_PAGES["listing"])) == []
    assert generator.generate(page_input("nameless", OTHER_PAGES["nameless"])) == []


def test_wording_depends_on_the_page_id_never_on_chance():
    html = demo_sites.page_html("demo-kitchen.test", "/kettles/0")
    first = [c.question for c in get("rules").generate(page_input("a", html))]

    assert [c.question for c in get("rules").generate(page_input("a", html))] == first
    wordings = {tuple(c.question for c in get("rules").generate(page_input(f"p{n}", html))) for n in range(20)}
    assert len(wordings) > 1
    # The answers never change with the wording.
    assert {tuple(c.answer for c in get("rules").generate(page_input(f"p{n}", html))) for n in range(20)} == {
        ("$34.99", "1.7 litres", "Stainless steel")
    }


def test_a_page_without_text_fails_with_a_reason():
    with pytest.raises(GenerationFailed) as failed:
        get("rules").generate(page_input("empty", "<script>var x = 1;</script>"))

    assert failed.value.reason == "The page has no text to ask about."


def test_generators_are_found_by_name_and_describe_themselves():
    assert {"rules", "openai-compatible"} <= set(names())
    description = get("rules").describe()
    assert description["name"] == "rules"
    assert description["version"] and description["prompt_version"]
    assert "What is the capacity of “{item}”?" in description["prompt"]
    assert description["parameters"] == {}
    assert get("rules").calls == []  # offline: it calls nothing
    with pytest.raises(UnknownGenerator):
        get("no-such-generator")
    with pytest.raises(ValueError, match="no parameter"):
        get("rules", temperature=1)
