"""``openai-compatible``: asks a chat-completions endpoint (OpenAI, or a local server such
as vLLM, Ollama or llama.cpp that speaks the same protocol) for QA pairs about a page.

The system prompt holds rules in the spirit of WebVLN's: about the item the page shows,
price then size then material (colour or stock instead), brief answers found on the
page, at most three, and a JSON reply ``{"qa": [{"question", "answer"}]}``. The user
message is the page's title, its pictures' captions and its cleaned text, cut to
``max_input_chars``, with personal data masked (``pagetext.redact``).

Replies are read strictly: the whole message is JSON, or it holds one fenced ```json
block; anything else fails the page. Each pair is checked and one whose answer is not
on the page is dropped (the reason goes into the call's record).

One instance is one run: it spaces its requests (``requests_per_second``), retries
429s, 5xx answers and timeouts with exponential backoff (honouring ``Retry-After``),
and stops with ``BudgetExhausted`` once ``max_requests`` requests or
``max_total_tokens`` tokens (from the replies' ``usage``) are spent. Every page sent
leaves one record in ``calls`` (status, attempts, latency, tokens, error, dropped) for
the caller to store. ``clock`` and ``sleep`` can be replaced (tests).
"""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from email.utils import parsedate_to_datetime

from ..pagetext import NOT_PERSONAL, pii_findings, redact
from .base import Candidate, GenerationFailed, Generator, PageInput, question_kind, register

# Settings that give the defaults of the parameters of the same meaning.
SETTINGS = (
    ("base_url", "LLM_BASE_URL", "https://api.openai.com/v1"),
    ("model", "LLM_MODEL", "gpt-4o-mini"),
    ("api_key", "LLM_API_KEY", ""),
)
RETRY_STATUSES = {408, 409, 425, 429}
FENCED_JSON = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n?```", re.DOTALL | re.IGNORECASE)

SYSTEM_PROMPT = """\
You write question-and-answer pairs about one page of a website, for a dataset that tests \
whether an assistant can find facts on web pages. The user sends the page: its title, \
descriptions of its pictures and its text, line by line.

Rules:
1. Write at most three pairs. Each answer must be stated on the page; copy it exactly as the page writes it.
2. Ask first about the price, second about the size (capacity, sizes on offer, dimensions, number of pages), \
third about the material.
3. Where the page does not state one of these, ask about the colour or whether the item is in stock instead. \
Where it states none of them, write fewer pairs, or none.
4. Ask about the item the page shows, not about the website: ignore menus, sign-in and basket links, cookie \
notices, delivery banners and adverts.
5. Name the item in every question, so that the question makes sense without the page. Keep questions short \
and clear.
6. Keep answers brief: the value alone (for example "£39.99" or "1.7 litres"), not a sentence.
7. Stray punctuation and symbols in the page text mean nothing: keep them out of questions and answers.

Reply with JSON only, with no other text, in exactly this form:
{"qa": [{"question": "...", "answer": "..."}]}"""

USER_TEMPLATE = """\
Title: {title}
Pictures: {captions}
Text of the page:
{text}"""


class BudgetExhausted(GenerationFailed):
    """The run has spent the requests or tokens it was allowed; no later page is sent."""


def _setting(name: str, default):
    from django.conf import settings

    return getattr(settings, name, default) if settings.configured else default


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (it is a number of seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def parse_reply(content: str) -> list:
    """The ``qa`` list of a model's reply: the reply is JSON, or holds a fenced ```json block."""
    try:
        data = json.loads(content)
    except ValueError:
        fenced = FENCED_JSON.search(content)
        if not fenced:
            raise GenerationFailed("The model's reply is not JSON.") from None
        try:
            data = json.loads(fenced.group(1))
        except ValueError:
            raise GenerationFailed("The model's reply has a ```json block that is not JSON.") from None
    if not isinstance(data, dict) or not isinstance(data.get("qa"), list):
        raise GenerationFailed('The model\'s reply is JSON but not {"qa": [{"question", "answer"}]}.')
    return data["qa"]


def find_on_page(answer: str, lines: list[str]) -> tuple[str, str] | None:
    """``(answer as the page writes it, the line)``: the first line holding ``answer``,
    ignoring case, or the answer without a full stop the model added."""
    for wanted in dict.fromkeys((answer, answer.rstrip("."))):
        if not wanted:
            continue
        lowered = wanted.lower()
        for line in lines:
            at = line.lower().find(lowered)
            # Lower-casing keeps lengths for the text of web pages; check that it did here.
            if at >= 0 and line[at : at + len(wanted)].lower() == lowered:
                return line[at : at + len(wanted)], line
    return None


@register
class OpenAICompatibleGenerator(Generator):
    name = "openai-compatible"
    version = "1"
    prompt_version = "webvln-rules-1"
    prompt = f"{SYSTEM_PROMPT}\n\n--- user message ---\n{USER_TEMPLATE}"
    defaults = {
        "base_url": None,  # None: the setting (see SETTINGS)
        "model": None,
        "api_key": None,
        "timeout": 60.0,  # seconds for one request
        "max_retries": 3,  # after the first attempt
        "backoff_seconds": 1.0,  # first wait; doubles on each retry
        "max_backoff_seconds": 60.0,
        "requests_per_second": 1.0,  # 0: no spacing
        "max_requests": None,  # requests (attempts) in the run; None: no cap
        "max_total_tokens": None,  # tokens in the run, by the replies' usage; None: no cap
        "max_input_chars": 12_000,  # of page text in the user message
        "temperature": 0.0,
        "max_tokens": 512,  # for the reply
        "json_mode": False,  # ask for response_format json_object (not every server has it)
    }
    secret_parameters = ("api_key",)

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep, **parameters
    ):
        super().__init__(**parameters)
        for parameter, setting, default in SETTINGS:
            if self.parameters[parameter] is None:
                self.parameters[parameter] = _setting(setting, default)
        self.clock, self.sleep = clock, sleep
        self.requests_made = 0
        self.tokens_used = 0
        self._last_request: float | None = None

    # --- One page ----------------------------------------------------------------

    def _generate(self, page: PageInput) -> list[Candidate]:
        call = {
            "page_id": page.page_id,
            "status": None,
            "attempts": 0,
            "latency": 0.0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "total_tokens": 0,
            "error": "",
            "dropped": [],
        }
        self.calls.append(call)
        started = time.perf_counter()
        try:
            content = self._complete(self.request_body(page), call)
            return self._candidates(parse_reply(content), page, call)
        except GenerationFailed as failed:
            call["error"] = failed.reason
            raise
        finally:
            call["latency"] = round(time.perf_counter() - started, 3)

    def user_message(self, page: PageInput) -> str:
        text = redact(page.text.text, [f for f in pii_findings(page.text.text) if f["kind"] not in NOT_PERSONAL])
        budget = self.parameters["max_input_chars"]
        if len(text) > budget:
            cut = text[:budget]
            text = cut.rsplit("\n", 1)[0] if "\n" in cut else cut
        return USER_TEMPLATE.format(
            title=page.title or page.text.title or page.text.heading,
            captions="; ".join(page.text.captions) or "(none)",
            text=text,
        )

    def request_body(self, page: PageInput) -> dict:
        body = {
            "model": self.parameters["model"],
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": self.user_message(page)},
            ],
            "temperature": self.parameters["temperature"],
            "max_tokens": self.parameters["max_tokens"],
        }
        if self.parameters["json_mode"]:
            body["response_format"] = {"type": "json_object"}
        return body

    def _candidates(self, items: list, page: PageInput, call: dict) -> list[Candidate]:
        candidates = []
        for n, item in enumerate(items):
            question = item.get("question") if isinstance(item, dict) else None
            answer = item.get("answer") if isinstance(item, dict) else None
            if (
                not isinstance(question, str)
                or not isinstance(answer, str)
                or not question.strip()
                or not answer.strip()
            ):
                call["dropped"].append(f"pair {n + 1}: not a question and an answer")
                continue
            found = find_on_page(answer.strip().strip("\"'“”"), page.text.lines)
            if not found:
                call["dropped"].append(f"pair {n + 1}: the answer {answer.strip()!r} is not on the page")
                continue
            verbatim, line = found
            candidates.append(Candidate(question.strip(), verbatim, line, question_kind(question)))
        return candidates

    # --- HTTP --------------------------------------------------------------------

    def _complete(self, body: dict, call: dict) -> str:
        """The reply's message content, after retries; raises ``GenerationFailed``."""
        url = self.parameters["base_url"].rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "Trailmark"}
        if self.parameters["api_key"]:
            headers["Authorization"] = f"Bearer {self.parameters['api_key']}"
        data = json.dumps(body).encode()
        attempts = self.parameters["max_retries"] + 1
        problem = ""
        for attempt in range(1, attempts + 1):
            self._check_budget()
            self._wait_turn()
            call["attempts"] = attempt
            self.requests_made += 1
            retry_after = None
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.parameters["timeout"]) as response:
                    call["status"] = response.status
                    raw = response.read()
                return self._content(raw, call)
            except urllib.error.HTTPError as error:
                call["status"] = error.code
                detail = error.read()[:300].decode(errors="replace").strip()
                if error.code not in RETRY_STATUSES and error.code < 500:
                    raise GenerationFailed(f"The endpoint refused the request: HTTP {error.code} {detail}") from None
                problem = f"HTTP {error.code} {detail}".strip()
                retry_after = retry_after_seconds(error.headers.get("Retry-After"))
            except TimeoutError:
                problem = f"no reply within {self.parameters['timeout']} s"
            except urllib.error.URLError as error:
                if isinstance(error.reason, TimeoutError):
                    problem = f"no reply within {self.parameters['timeout']} s"
                else:
                    problem = f"could not reach {url}: {error.reason}"
            except (OSError, http.client.HTTPException) as error:
                problem = f"the connection failed: {error!r}"
            if attempt < attempts:
                self.sleep(self._backoff(attempt, retry_after))
        raise GenerationFailed(f"Gave up after {attempts} attempts: {problem}")

    def _content(self, raw: bytes, call: dict) -> str:
        try:
            reply = json.loads(raw)
            usage = reply.get("usage") or {}
            prompt_tokens, completion_tokens = (
                int(usage.get("prompt_tokens", 0)),
                int(usage.get("completion_tokens", 0)),
            )
            total = int(usage.get("total_tokens", prompt_tokens + completion_tokens))
        except (ValueError, AttributeError, TypeError):
            raise GenerationFailed("The endpoint's reply is not a chat completion (not JSON).") from None
        call.update(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, total_tokens=total)
        self.tokens_used += total
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise GenerationFailed("The endpoint's reply is not a chat completion (no choices[0].message).") from None
        if not isinstance(content, str):
            raise GenerationFailed("The endpoint's reply has no text content.")
        return content

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        delay = self.parameters["backoff_seconds"] * 2 ** (attempt - 1)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, self.parameters["max_backoff_seconds"])

    def _check_budget(self):
        max_requests, max_tokens = self.parameters["max_requests"], self.parameters["max_total_tokens"]
        if max_requests is not None and self.requests_made >= max_requests:
            raise BudgetExhausted(f"The run's budget of {max_requests} requests is spent.")
        if max_tokens is not None and self.tokens_used >= max_tokens:
            raise BudgetExhausted(f"The run's budget of {max_tokens} tokens is spent ({self.tokens_used} used).")

    def _wait_turn(self):
        """Keeps requests at least ``1 / requests_per_second`` apart (retries included)."""
        rate = self.parameters["requests_per_second"]
        if rate and self._last_request is not None:
            wait = self._last_request + 1 / rate - self.clock()
            if wait > 0:
                self.sleep(wait)
        self._last_request = self.clock()
