"""The release's last check of a record's texts: personal data masked everywhere, the texts
of steps nobody cleared dropped, query strings stripped except where they are content."""

import copy

from releases.textscreen import screen_record

EMAIL, PHONE = "jane.doe@example.com", "+44 20 7946 0958"
SHOT = {"id": 1, "sha256": "ab" * 32, "format": "png", "width": 640, "height": 400, "captured_at": "2026-11-29"}


def _screen(**fields):
    return {**SHOT, "url": "https://shop.example/kettles", "title": "Kettles", "site": "shop.example", **fields}


def _step(position, *, screen, **fields):
    return {
        "position": position,
        "action": "click",
        "target": {"tag": "a", "text": "Kettles", "label": "", "href": "https://shop.example/kettles", "bbox": [1, 2]},
        "url": "https://shop.example/",
        "title": "Shop",
        "captured_at": "2026-11-29T14:03:11Z",
        "clickables": [{"text": "Home", "alt": "", "href": "https://shop.example/", "bbox": [0, 0, 9, 9]}],
        "viewport": [640, 400],
        "device_pixel_ratio": 1,
        "scroll": [0, 0],
        "screen": screen,
        **fields,
    }


def _record(**fields):
    return {
        "guid": "g-1",
        "id": 1,
        "family": "webquest",
        "kind": "trace",
        "category": "shopping",
        "topic": "shopping",
        "question": "Which kettle is the cheapest?",
        "answer": "The Arc kettle, at £39.99.",
        "keyword_answer": "Arc",
        "evidence": [{"type": "screen", "screen": _screen(), "step": 0, "note": ""}],
        "steps": [_step(0, screen=_screen())],
        "negatives": {"image": [], "text": [], "screen": []},
        **fields,
    }


def test_a_clean_record_comes_back_equal_with_no_counts():
    record = _record()
    screened, counts = screen_record(record, keep_query_hosts=())
    assert screened == record and counts == {}


def test_personal_data_in_question_and_answers_is_masked_and_flagged():
    record = _record(
        question=f"Who answers mail sent to {EMAIL}?",
        answer=f"Call {PHONE}.",
        keyword_answer=PHONE,
        answer_variants=[f"Ring {PHONE}", "the help desk"],
        reference_answers=[f"Write to {EMAIL}"],
    )
    screened, counts = screen_record(record, keep_query_hosts=())
    assert screened["question"] == "Who answers mail sent to […]?"
    assert (screened["answer"], screened["keyword_answer"]) == ("Call […].", "[…]")
    assert screened["answer_variants"] == ["Ring […]", "the help desk"]
    assert screened["reference_answers"] == ["Write to […]"]
    assert counts == {"masked_email": 2, "masked_phone": 3, "masked_question_or_answer": 1}


def test_the_argument_is_left_as_it_was():
    record = _record(question=f"Mail {EMAIL}?", steps=[_step(0, screen=None, title="Mine")])
    before = copy.deepcopy(record)
    screen_record(record, keep_query_hosts=())
    assert record == before


def test_every_evidence_piece_is_screened():
    record = _record(
        evidence=[
            {"type": "screen", "screen": _screen(title=f"Inbox of {EMAIL}"), "step": 0, "note": f"Tel {PHONE}"},
            {"type": "image", "image": {**SHOT, "title": "Tower", "description": f"Keeper: {EMAIL}", "topic": "",
                                        "url": "https://img.example/t.png?user=42", "licence": "CC BY"}, "note": ""},
            {"type": "snippet", "snippet": {"id": 3, "title": "Bridge", "text": f"Tours: {PHONE}",
                                            "url": "https://wiki.example/Bridge#History"}, "note": ""},
            {"type": "fact", "fact": f"The owner is reachable at {EMAIL}", "url": "https://a.example/?ref=mail",
             "note": ""},
        ]
    )  # fmt: skip
    screened, counts = screen_record(record, keep_query_hosts=())
    shot, image, snippet, fact = screened["evidence"]
    assert (shot["screen"]["title"], shot["note"]) == ("Inbox of […]", "Tel […]")
    assert (image["image"]["description"], image["image"]["url"]) == ("Keeper: […]", "https://img.example/t.png")
    assert (snippet["snippet"]["text"], snippet["snippet"]["url"]) == ("Tours: […]", "https://wiki.example/Bridge")
    assert (fact["fact"], fact["url"]) == ("The owner is reachable at […]", "https://a.example/")
    assert image["image"]["sha256"] == SHOT["sha256"] and image["image"]["licence"] == "CC BY"
    assert counts == {"masked_email": 3, "masked_phone": 2, "query_removed": 2, "fragment_removed": 1}


def test_steps_texts_and_links_are_masked_when_their_screenshot_ships():
    step = _step(
        2,
        screen=_screen(title=f"Orders of {EMAIL}"),
        title=f"Orders of {EMAIL}",
        url=f"https://shop.example/orders/{EMAIL}",
        target={"tag": "a", "text": f"Call {PHONE}", "href": "tel:+442079460958", "selector": "a.tel"},
        clickables=[
            {"text": "Sign out", "href": "https://shop.example/logout"},
            {"text": "Hello Jane", "label": "", "alt": "", "href": f"mailto:{EMAIL}"},
        ],
    )
    screened, counts = screen_record(_record(steps=[step]), keep_query_hosts=())
    (out,) = screened["steps"]
    assert (out["title"], out["screen"]["title"]) == ("Orders of […]", "Orders of […]")
    assert out["url"] == "https://shop.example/orders/[%E2%80%A6]"
    assert out["target"] == {"tag": "a", "text": "Call […]", "href": "tel:[%E2%80%A6]", "selector": "a.tel"}
    # "Sign out" names nobody and stays; a greeting names the person signed in.
    assert [c["text"] for c in out["clickables"]] == ["Sign out", "[…]"]
    assert out["clickables"][1]["href"] == "mailto:[%E2%80%A6]"
    assert counts == {"masked_email": 4, "masked_phone": 2, "masked_signed_in": 1}


def test_a_step_whose_screenshot_is_not_shipped_keeps_its_place_but_not_its_texts():
    unshipped = _step(
        1,
        screen=None,
        title="Jane's basket",
        target={"tag": "button", "text": "Pay now", "label": "Pay", "role": "button", "bbox": [5, 6, 7, 8]},
        clickables=[{"text": "Basket (2)", "alt": "basket icon", "href": "https://shop.example/basket"}],
    )
    record = _record(steps=[_step(0, screen=_screen()), unshipped, _step(2, screen=None, title="", target=None,
                                                                         clickables=[])])  # fmt: skip
    screened, counts = screen_record(record, keep_query_hosts=())
    first, second, third = screened["steps"]
    assert first == record["steps"][0]
    assert second["title"] == "" and second["target"] == {
        "tag": "button", "text": "", "label": "", "role": "button", "bbox": [5, 6, 7, 8]
    }  # fmt: skip
    assert second["clickables"] == [{"text": "", "alt": "", "href": "https://shop.example/basket"}]
    assert (second["position"], second["action"], second["url"], second["screen"]) == (
        1, "click", "https://shop.example/", None
    )  # fmt: skip
    assert third["position"] == 2  # nothing to drop there: not counted
    assert counts == {"dropped_unreviewed_step_text": 1}


def test_query_strings_and_fragments_stay_only_on_hosts_that_keep_them():
    steps = [
        _step(0, screen=_screen(), url="https://www.search.example/results?q=blue+kettle#top"),
        _step(1, screen=_screen(), url="https://shop.example/kettles?sessionid=abc123&sort=price"),
    ]
    screened, counts = screen_record(_record(steps=steps), keep_query_hosts={"search.example"})
    assert [s["url"] for s in screened["steps"]] == [
        "https://www.search.example/results?q=blue+kettle#top",
        "https://shop.example/kettles",
    ]
    assert counts == {"query_removed": 1}


def test_a_kept_query_is_still_screened_for_personal_data():
    url = f"https://search.example/?q={EMAIL.replace('@', '%40')}&page=2"
    screened, counts = screen_record(_record(steps=[_step(0, screen=_screen(), url=url)]),
                                     keep_query_hosts=["search.example"])  # fmt: skip
    assert screened["steps"][0]["url"] == "https://search.example/?q=[%E2%80%A6]&page=2"
    assert counts == {"masked_email": 1}


def test_negatives_and_the_episode_are_screened_too():
    record = _record(
        family="webvln",
        negatives={
            "screen": [{**_screen(title=f"Profile {EMAIL}", url="https://shop.example/p?id=9"), "method": "bm25"}],
            "image": [{**SHOT, "title": "Cottage", "description": f"Book on {PHONE}", "url": "", "method": "clip"}],
            "text": [{"id": 4, "title": "Tours", "text": f"Mail {EMAIL}", "url": "", "method": "bm25"}],
        },
        episode={
            "site": "shop.example",
            "website": 3,
            "path": [0, 4],
            "urls": ["https://shop.example/", "https://shop.example/item?id=7&ref=jane"],
            "description": f"Find the contact page and note {EMAIL}",
        },
    )
    screened, counts = screen_record(record, keep_query_hosts=())
    negatives, episode = screened["negatives"], screened["episode"]
    assert (negatives["screen"][0]["title"], negatives["screen"][0]["url"]) == ("Profile […]", "https://shop.example/p")
    assert negatives["image"][0]["description"] == "Book on […]" and negatives["image"][0]["method"] == "clip"
    assert negatives["text"][0]["text"] == "Mail […]"
    assert episode["urls"] == ["https://shop.example/", "https://shop.example/item"]
    assert episode["description"] == "Find the contact page and note […]" and episode["path"] == [0, 4]
    assert counts == {"masked_email": 3, "masked_phone": 1, "query_removed": 2}


def test_prices_dates_and_model_numbers_are_not_mistaken_for_phone_numbers():
    record = _record(
        question="Which kettle costs £39.99 and ships by 29.11.2026?",
        answer="Model 2024-1138, £39.99",
        steps=[_step(0, screen=_screen(), title="Kettles from €24.95 | 1.7 litres")],
    )
    screened, counts = screen_record(record, keep_query_hosts=())
    assert screened == record and counts == {}
