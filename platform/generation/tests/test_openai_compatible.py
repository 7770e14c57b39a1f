"""The ``openai-compatible`` generator against a chat-completions server this test runs
on a free local port: real HTTP, no mocks of urllib."""

import json
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generation import pagetext
from generation.generators import BudgetExhausted, Candidate, GenerationFailed, PageInput, get
from generation.generators.openai_compatible import SYSTEM_PROMPT, retry_after_seconds

PAGES = Path(__file__).parent / "pages"
KETTLE_PAIRS = [
    {"question": "What is the price of the Halden Glass Kettle 1.7L?", "answer": "£39.99"},
    {"question": "What is the capacity of the Halden Glass Kettle 1.7L?", "answer": "1.7 litres"},
    {"question": "What is the Halden Glass Kettle 1.7L made of?", "answer": "borosilicate glass and stainless steel."},
]
KETTLE_CANDIDATES = [
    Candidate("What is the price of the Halden Glass Kettle 1.7L?", "£39.99", "£39.99", "price"),
    Candidate("What is the capacity of the Halden Glass Kettle 1.7L?", "1.7 litres", "Capacity 1.7 litres", "size"),
    Candidate(
        "What is the Halden Glass Kettle 1.7L made of?",
        "Borosilicate glass and stainless steel",
        "Material Borosilicate glass and stainless steel",
        "material",
    ),
]


@dataclass
class Reply:
    """What the server answers to one request."""

    body: object = None  # a dict is sent as JSON, a str or bytes as is
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


def completion(content, *, prompt_tokens=40, completion_tokens=20):
    return Reply(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def qa(pairs, **usage):
    return completion(json.dumps({"qa": pairs}), **usage)


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), ChatHandler)
        self.requests = []
        self.replies = []
        self.lock = threading.Lock()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class ChatHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with self.server.lock:
            self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": json.loads(body)})
            reply = self.server.replies.pop(0) if self.server.replies else Reply({"error": "no reply left"}, 500)
        time.sleep(reply.delay)
        payload = (
            reply.body
            if isinstance(reply.body, bytes)
            else reply.body.encode()
            if isinstance(reply.body, str)
            else json.dumps(reply.body).encode()
        )
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (the timeout test)

    def log_message(self, format, *args):
        pass


@pytest.fixture
def server():
    server = ChatServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


class FakeClock:
    """A monotonic clock that only moves when something sleeps (or the test moves it)."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def generator(server, clock):
    def make(**parameters):
        parameters = {
            "base_url": server.url,
            "model": "test-model",
            "api_key": "sk-test-key",
            "requests_per_second": 0,
            "backoff_seconds": 1.0,
            **parameters,
        }
        return get("openai-compatible", clock=clock, sleep=clock.sleep, **parameters)

    return make


def kettle(page_id="kettle-1"):
    text = pagetext.from_html((PAGES / "kettle.html").read_text(), url="https://northbrook.example/halden")
    return PageInput(page_id=page_id, url="https://northbrook.example/halden", title=text.title, text=text)


def test_sends_the_rules_and_the_page_with_model_and_key_and_reads_the_pairs(server, generator):
    server.replies.append(qa(KETTLE_PAIRS))
    llm = generator()

    candidates = llm.generate(kettle())

    # The model's lower-cased answer with a full stop becomes the page's own words.
    assert candidates == KETTLE_CANDIDATES
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test-key"
    assert request["headers"]["Content-Type"] == "application/json"
    body = request["body"]
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.0 and body["max_tokens"] == 512
    assert "response_format" not in body
    system, user = body["messages"]
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    for rule in ("at most three", "price", "size", "material", "colour", "in stock", "exactly as the page writes it"):
        assert rule in system["content"]
    assert '{"qa": [{"question": "...", "answer": "..."}]}' in system["content"]
    assert user["role"] == "user"
    assert user["content"] == (
        "Title: Halden Glass Kettle 1.7L | Northbrook Home\n"
        "Pictures: Glass kettle with a blue-lit water window and a brushed steel base; The Halden on its 360° base\n"
        "Text of the page:\n" + kettle().text.text
    )
    assert llm.calls == [
        {
            "page_id": "kettle-1",
            "status": 200,
            "attempts": 1,
            "latency": llm.calls[0]["latency"],
            "prompt_tokens": 40,
            "completion_tokens": 20,
            "total_tokens": 60,
            "error": "",
            "dropped": [],
        }
    ]
    assert 0 < llm.calls[0]["latency"] < 5


def test_a_fenced_json_block_is_read(server, generator):
    server.replies.append(completion("Here are the pairs:\n```json\n" + json.dumps({"qa": KETTLE_PAIRS[:1]}) + "\n```"))

    assert generator().generate(kettle()) == KETTLE_CANDIDATES[:1]


def test_pairs_with_answers_not_on_the_page_or_the_wrong_shape_are_dropped_and_recorded(server, generator):
    server.replies.append(
        qa(
            [
                {"question": "What is the warranty of the Halden kettle?", "answer": "Two years"},
                {"question": "What is the price of the Halden kettle?"},
                "Colour: Clear",
                {"question": "What colour is the Halden kettle?", "answer": "Clear"},
            ]
        )
    )
    llm = generator()

    assert llm.generate(kettle()) == [
        Candidate("What colour is the Halden kettle?", "Clear", "Colour Clear", "colour"),
    ]
    assert llm.calls[0]["dropped"] == [
        "pair 1: the answer 'Two years' is not on the page",
        "pair 2: not a question and an answer",
        "pair 3: not a question and an answer",
    ]


def test_no_more_than_three_candidates_come_back(server, generator):
    extra = [
        {"question": "What colour is the Halden Glass Kettle 1.7L?", "answer": "Clear"},
        {"question": "Is the Halden Glass Kettle 1.7L in stock?", "answer": "In stock"},
    ]
    server.replies.append(qa(KETTLE_PAIRS + extra))

    assert generator().generate(kettle()) == KETTLE_CANDIDATES


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (completion("Sure! The price is £39.99."), "The model's reply is not JSON."),
        (completion("```json\n{qa: nope}\n```"), "The model's reply has a ```json block that is not JSON."),
        (completion(json.dumps({"questions": KETTLE_PAIRS})), 'The model\'s reply is JSON but not {"qa"'),
        (completion(json.dumps([KETTLE_PAIRS])), 'The model\'s reply is JSON but not {"qa"'),
        (Reply("<html>Bad gateway</html>"), "The endpoint's reply is not a chat completion (not JSON)."),
        (Reply({"result": "ok"}), "The endpoint's reply is not a chat completion (no choices[0].message)."),
    ],
    ids=["prose", "bad-fence", "wrong-key", "a-list", "html", "no-choices"],
)
def test_a_malformed_reply_fails_the_page_without_retrying_and_is_recorded(server, generator, reply, reason):
    server.replies.append(reply)
    llm = generator()

    with pytest.raises(GenerationFailed) as failed:
        llm.generate(kettle())

    assert failed.value.reason.startswith(reason)
    assert len(server.requests) == 1
    assert llm.calls[0]["error"] == failed.value.reason
    assert llm.calls[0]["status"] == 200 and llm.calls[0]["attempts"] == 1


def test_a_timeout_is_retried_then_the_page_fails(server, generator, clock):
    server.replies += [Reply({}, delay=1.5), Reply({}, delay=1.5)]
    llm = generator(timeout=0.3, max_retries=1)

    with pytest.raises(GenerationFailed) as failed:
        llm.generate(kettle())

    assert failed.value.reason == "Gave up after 2 attempts: no reply within 0.3 s"
    assert len(server.requests) == 2
    assert clock.sleeps == [1.0]  # one backoff between the two attempts
    assert llm.calls[0]["attempts"] == 2 and llm.calls[0]["status"] is None
    assert llm.calls[0]["error"] == failed.value.reason


def test_429_with_retry_after_waits_as_told_and_then_succeeds(server, generator, clock):
    server.replies += [Reply({"error": "slow down"}, 429, {"Retry-After": "7"}), qa(KETTLE_PAIRS)]
    llm = generator()

    assert llm.generate(kettle()) == KETTLE_CANDIDATES
    assert clock.sleeps == [7.0]
    assert len(server.requests) == 2
    assert llm.calls[0]["attempts"] == 2 and llm.calls[0]["status"] == 200 and llm.calls[0]["error"] == ""


def test_server_errors_back_off_exponentially_up_to_the_retry_limit(server, generator, clock):
    server.replies += [Reply({"error": "overloaded"}, 503)] * 3
    llm = generator(max_retries=2, backoff_seconds=1.5)

    with pytest.raises(GenerationFailed) as failed:
        llm.generate(kettle())

    assert clock.sleeps == [1.5, 3.0]
    assert failed.value.reason.startswith("Gave up after 3 attempts: HTTP 503")
    assert llm.calls[0]["status"] == 503


def test_a_refused_request_is_not_retried(server, generator, clock):
    server.replies.append(Reply({"error": {"message": "Incorrect API key"}}, 401))
    llm = generator()

    with pytest.raises(GenerationFailed) as failed:
        llm.generate(kettle())

    assert failed.value.reason.startswith("The endpoint refused the request: HTTP 401")
    assert "Incorrect API key" in failed.value.reason
    assert len(server.requests) == 1 and clock.sleeps == []


def test_the_request_budget_stops_the_run_after_n_requests(server, generator):
    server.replies += [qa(KETTLE_PAIRS)] * 3
    llm = generator(max_requests=2)

    llm.generate(kettle("p1"))
    llm.generate(kettle("p2"))
    with pytest.raises(BudgetExhausted) as exhausted:
        llm.generate(kettle("p3"))

    assert isinstance(exhausted.value, GenerationFailed)
    assert exhausted.value.reason == "The run's budget of 2 requests is spent."
    assert len(server.requests) == 2
    assert [(call["page_id"], call["attempts"], call["error"]) for call in llm.calls] == [
        ("p1", 1, ""),
        ("p2", 1, ""),
        ("p3", 0, "The run's budget of 2 requests is spent."),
    ]


def test_retries_count_against_the_request_budget(server, generator):
    server.replies += [Reply({}, 500), Reply({}, 500)]
    llm = generator(max_requests=2, max_retries=5)

    with pytest.raises(BudgetExhausted):
        llm.generate(kettle())

    assert len(server.requests) == 2


def test_the_token_budget_stops_the_run_once_the_usage_reaches_it(server, generator):
    server.replies += [qa(KETTLE_PAIRS, prompt_tokens=50, completion_tokens=10)] * 3
    llm = generator(max_total_tokens=100)

    llm.generate(kettle("p1"))
    llm.generate(kettle("p2"))
    with pytest.raises(BudgetExhausted, match="100 tokens is spent \\(120 used\\)"):
        llm.generate(kettle("p3"))

    assert len(server.requests) == 2 and llm.tokens_used == 120


def test_requests_are_spaced_by_the_rate_limit(server, generator, clock):
    server.replies += [qa(KETTLE_PAIRS)] * 4
    llm = generator(requests_per_second=2)
    started = clock.now

    for n in range(3):
        llm.generate(kettle(f"p{n}"))
    clock.now += 0.3  # the caller took a while before the next page
    llm.generate(kettle("p3"))

    assert clock.sleeps == [0.5, 0.5, 0.2]
    assert clock.now - started == pytest.approx(1.5)
    assert len(server.requests) == 4


def test_the_page_text_is_cut_to_the_character_budget_at_a_line_end(server, generator):
    server.replies.append(qa([]))
    generator(max_input_chars=60).generate(kettle())

    user = server.requests[0]["body"]["messages"][1]["content"]
    assert user.endswith("Text of the page:\nHalden Glass Kettle 1.7L\n4.6 out of 5 (212 reviews)")


def test_personal_data_is_masked_before_the_page_is_sent(server, generator):
    server.replies.append(qa([]))
    text = pagetext.from_html("<main><h1>Oak stool</h1><p>Price: £80</p><p>Ask jane.doe@example.com</p></main>")

    assert generator().generate(PageInput("stool", "", "Oak stool", text)) == []

    user = server.requests[0]["body"]["messages"][1]["content"]
    assert "jane.doe@example.com" not in user and "Ask […]" in user and "Price: £80" in user


def test_json_mode_asks_for_a_json_object(server, generator):
    server.replies.append(qa([]))
    generator(json_mode=True).generate(kettle())

    assert server.requests[0]["body"]["response_format"] == {"type": "json_object"}


def test_settings_give_the_defaults_and_the_key_never_shows_in_the_description(settings):
    settings.LLM_BASE_URL = "http://llm.internal:8000/v1"
    settings.LLM_MODEL = "local-model"
    settings.LLM_API_KEY = "sk-from-settings"

    llm = get("openai-compatible")
    description = llm.describe()

    assert llm.parameters["base_url"] == "http://llm.internal:8000/v1"
    assert llm.parameters["model"] == "local-model"
    assert llm.parameters["api_key"] == "sk-from-settings"
    assert description["name"] == "openai-compatible"
    assert description["prompt_version"] and SYSTEM_PROMPT in description["prompt"]
    assert description["parameters"]["api_key"] == "(set)"
    assert "sk-from-settings" not in json.dumps(description)
    assert get("openai-compatible", model="other").parameters["model"] == "other"


def test_without_settings_the_defaults_are_openais(settings):
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        if hasattr(settings, name):
            delattr(settings, name)

    llm = get("openai-compatible")

    assert (llm.parameters["base_url"], llm.parameters["model"], llm.parameters["api_key"]) == (
        "https://api.openai.com/v1",
        "gpt-4o-mini",
        "",
    )
    assert llm.describe()["parameters"]["api_key"] == ""


def test_retry_after_is_read_as_seconds_or_as_an_http_date():
    assert retry_after_seconds("12") == 12.0
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(formatdate(time.time() + 30, usegmt=True)) == pytest.approx(30, abs=2)
