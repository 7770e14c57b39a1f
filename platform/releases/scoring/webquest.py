"""Relaxed accuracy for WebQuest-style items (screens and traces), and the answer variants
a release writes next to each author answer.

An item scores 1.0 when the prediction matches any one of its accepted answers, else 0.0.
Each accepted answer (a "gold variant") is judged on its own:

- **Numeric gold.** A variant counts as a number when exactly one number can be read from
  it and nothing else is left but currency marks (``$``, ``€``, ``USD``, ``dollars``,
  ``euros``, …), percent marks (``%``, ``percent``) and punctuation: ``"$1,299"``,
  ``"45 percent"``, ``"twenty-one"``. For items whose ``answer_type`` is ``integer`` or
  ``decimal`` the author meant a number, so a unit word is allowed too (``"7 stores"``);
  for ``text`` items such a variant (``"Route 66"``) stays text.
- **Reading numbers.** Digits with or without thousands commas (``1,299``), a leading
  decimal point (``.5``), number words (``seven``, ``twenty-one``, ``one hundred and
  five``, ``three thousand``), and a size after digits (``1.5k``, ``2 million``, ``$3B``;
  ``k``/``K``, ``M``, ``B``/``bn`` only when glued to the digits, so ``5 m`` and ``5kg``
  stay 5) which multiplies. A ``-`` or ``−`` glued to the digits (also ``-$5``) or the
  word ``minus``/``negative`` makes the number negative; a hyphen between two numbers
  (``2019-2020``) is a range, not a sign. Percent is a unit, not a scale: ``45%`` reads as
  45, so ``0.45`` does not match it.
- **Which number of the prediction.** The last number the prediction states is its
  answer (``"5 shops, 3 of them open"`` answers 3). Answers usually end with the result,
  and a prediction cannot win by listing candidates, since only one of them counts.
- **Comparing numbers.** When the gold variant is written with a decimal point
  (``127.77``, ``12.0``, ``1.5k``) or the item's ``answer_type`` is ``decimal``, the
  prediction may differ by up to 5% of the gold value, bounds included (a gold 0 needs
  exactly 0). Otherwise the two must be the same number (``42`` matches ``42.0``, not
  ``43``). Arithmetic is decimal, so the bound is exact, not subject to float rounding.
- **Text gold.** SQuAD's normalisation on both sides (lower-case, drop ASCII punctuation,
  drop the articles a/an/the, collapse whitespace), then an exact match.

The paper (WebQuest, section 4.1) names the ideas; the reading rules above are ours.
"""

import re
import string
from dataclasses import dataclass
from decimal import Decimal

TOLERANCE = Decimal("0.05")
# Integers up to this value also get a variant written in words.
WORDS_UP_TO = 9999

_UNIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
               "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]  # fmt: skip
_TENS_WORDS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SMALL = {word: value for value, word in enumerate(_UNIT_WORDS)} | {
    word: 10 * tens for tens, word in enumerate(_TENS_WORDS) if word
}
_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_SUFFIXES = {"k": 10**3, "m": 10**6, "b": 10**9, "bn": 10**9}


def _alternation(words):
    # Longest first, so "seventeen" is not read as "seven".
    return "|".join(sorted(words, key=len, reverse=True))


_CURRENCY_SYMBOLS = "$€£¥₹"
_NUMBER = re.compile(
    rf"""
    (?<![\w.])                                   # not the tail of a word, code or version
    (?:
        (?P<sign>[-−])(?=[{_CURRENCY_SYMBOLS}]?\.?\d)[{_CURRENCY_SYMBOLS}]?
      | (?P<sign_word>(?i:minus|negative))\s+
    )?
    (?:
        (?P<digits>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?!\d)
        (?P<scale>\s?(?i:{_alternation(_SCALES)})\b|(?:k|K|M|bn|B)\b)?
      | (?P<words>(?i:\b(?:{_alternation(_SMALL)})\b(?:(?:\s+and\s+|[\s-]+)(?:{_alternation([*_SMALL, *_SCALES])})\b)*))
    )
    """,
    re.VERBOSE,
)
_UNIT_MARK = re.compile(
    rf"[{_CURRENCY_SYMBOLS}%]|\b(?:us|usd|eur|gbp|jpy|inr|dollars?|euros?|pounds?|yen|rupees?|percent|per\s+cent|pct)\b",
    re.IGNORECASE,
)
_WORD_CHARACTER = re.compile(r"\w")
_PERCENT = re.compile(r"%|\bper\s*cent\b|\bpct\b", re.IGNORECASE)

# Currency: symbol, singular word, plural word; and every mark that names it.
_CURRENCIES = {
    "USD": ("$", "dollar", "dollars"),
    "EUR": ("€", "euro", "euros"),
    "GBP": ("£", "pound", "pounds"),
    "JPY": ("¥", "yen", "yen"),
    "INR": ("₹", "rupee", "rupees"),
}
_CURRENCY_OF_MARK = {
    mark.lower(): code
    for code, (symbol, singular, plural) in _CURRENCIES.items()
    for mark in (code, symbol, singular, plural)
} | {"us$": "USD"}
_CURRENCY_MARK = re.compile(
    r"us\$|[" + _CURRENCY_SYMBOLS + r"]|\b(?:" + _alternation(k for k in _CURRENCY_OF_MARK if k.isalpha()) + r")\b",
    re.IGNORECASE,
)

_NOT_READ = object()
_SQUAD_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


@dataclass(frozen=True)
class _Number:
    value: Decimal
    written_with_fraction: bool  # "127.77", "12.0", "1.5k": the author gave decimals
    match: re.Match


def score(items, predictions, **context):
    """Relaxed accuracy over ``items``, overall and per reasoning type and per kind.

    ``context`` is accepted for the shared scorer interface and not used. An item with
    several reasoning types counts once in each (a type listed twice counts once); an
    item without a ``kind`` is left out of the per-kind table only. Predictions for ids
    that are not items are ignored.
    """
    total = 0.0
    missing = 0
    tallies = {"reasoning_type": {}, "kind": {}}
    for item_id, item in items.items():
        prediction = predictions.get(item_id)
        if prediction is None:
            missing += 1
            value = 0.0
        else:
            value = item_score(item, prediction)
        total += value
        for reasoning_type in dict.fromkeys(item.get("reasoning_types") or ()):
            _tally(tallies["reasoning_type"], reasoning_type, value)
        if item.get("kind") is not None:
            _tally(tallies["kind"], item["kind"], value)
    count = len(items)
    return {
        "metrics": {"relaxed_accuracy": total / count if count else None},
        "per_category": {
            group: {
                name: {"relaxed_accuracy": summed / seen, "count": seen}
                for name, (summed, seen) in sorted(by_name.items())
            }
            for group, by_name in tallies.items()
        },
        "missing": missing,
        "count": count,
    }


def _tally(by_name, name, value):
    summed, seen = by_name.get(name, (0.0, 0))
    by_name[name] = (summed + value, seen + 1)


def item_score(item, prediction):
    """1.0 when ``prediction`` matches any of ``item["answers"]``, else 0.0; ``None``
    (no prediction) scores 0.0."""
    if prediction is None:
        return 0.0
    answer_type = item.get("answer_type")
    units_allowed = answer_type in ("integer", "decimal")
    predicted = normalised = _NOT_READ  # each worked out once, when a variant first needs it
    for answer in item["answers"]:
        gold = _gold_number(answer, units_allowed=units_allowed)
        if gold is None:
            if normalised is _NOT_READ:
                normalised = _squad_normalise(prediction)
            if normalised == _squad_normalise(answer):
                return 1.0
            continue
        if predicted is _NOT_READ:
            predicted = _stated_number(prediction)
        tolerant = gold.written_with_fraction or answer_type == "decimal"
        if predicted is not None and _same_number(predicted, gold.value, tolerant=tolerant):
            return 1.0
    return 0.0


def _stated_number(prediction):
    """The prediction's answer when it is a number: the last number it states."""
    numbers = _numbers_in(prediction)
    return numbers[-1].value if numbers else None


def _same_number(predicted, gold, *, tolerant):
    if tolerant:
        # With a gold of 0 the allowance is 0: only 0 itself matches.
        return abs(predicted - gold) <= TOLERANCE * abs(gold)
    return predicted == gold


def _squad_normalise(text):
    text = text.lower().translate(_SQUAD_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _gold_number(answer, *, units_allowed):
    """The number ``answer`` stands for, or ``None`` when it is to be compared as text."""
    numbers = _numbers_in(answer)
    if len(numbers) != 1:
        return None
    number = numbers[0]
    if not units_allowed:
        start, end = number.match.span()
        rest = _UNIT_MARK.sub(" ", f"{answer[:start]} {answer[end:]}")
        if _WORD_CHARACTER.search(rest):
            return None
    return number


def _numbers_in(text):
    numbers = []
    for match in _NUMBER.finditer(text):
        negative = match["sign"] is not None or match["sign_word"] is not None
        if match["digits"] is not None:
            value = Decimal(match["digits"].replace(",", ""))
            if match["scale"]:
                scale = match["scale"].strip().lower()
                value *= _SCALES.get(scale) or _SUFFIXES[scale]
            values, with_fraction = [value], "." in match["digits"]
        else:
            values, with_fraction = [Decimal(v) for v in _read_words(match["words"])], False
        for position, value in enumerate(values):
            signed = -value if negative and position == 0 else value
            numbers.append(_Number(signed, with_fraction, match))
    return numbers


def _read_words(words):
    """The numbers a run of number words spells: "one hundred and five" is 105, while a
    run that cannot be one number ("five six", "nineteen eighty") is read as several."""
    numbers = []
    total = group = 0
    previous = None  # the last word's role: unit, teen, ten, hundred or scale
    largest_scale = None

    def finish():
        nonlocal total, group, previous, largest_scale
        if previous is not None:
            numbers.append(total + group)
        total = group = 0
        previous = largest_scale = None

    for word in re.findall(r"[a-z]+", words.lower()):
        if word == "and":
            continue
        if word in _SMALL:
            value = _SMALL[word]
            role = "unit" if value < 10 else "teen" if value < 20 else "ten"
            fits = previous in (None, "hundred", "scale") or (previous == "ten" and role == "unit")
            if not fits:
                finish()
            group += value
            previous = role
        elif word == "hundred":
            if previous in ("unit", "teen", "ten") and group < 100:
                group *= 100
                previous = "hundred"
            else:
                finish()
        else:
            scale = _SCALES[word]
            if previous in ("unit", "teen", "ten", "hundred") and (largest_scale is None or scale < largest_scale):
                total += group * scale
                group = 0
                previous, largest_scale = "scale", scale
            else:
                finish()
    finish()
    return numbers


def answer_variants(answer):
    """Rule-made variants of one author answer, the answer itself first, each once.

    A numeric answer (see the module docstring) gets: with and without thousands
    commas; ``1.5k`` or ``2 million`` also written out in digits; whole numbers from 0 to
    ``WORDS_UP_TO`` also in words ("one hundred five"); a currency amount also without its
    mark, with the symbol before and with the currency word after (``$5``, ``5``,
    ``5 dollars``; ``1 dollar``); a percentage with both ``%`` and ``percent``. Any two
    variants score 1.0 against each other. A text answer has itself as its only variant.
    """
    variants = {answer: None}
    number = _gold_number(answer, units_allowed=False)
    if number is None:
        return list(variants)
    match = number.match
    start, end = (match.start("digits"), match.end()) if match["digits"] else match.span("words")
    prefix, written, suffix = answer[:start], answer[start:end], answer[end:]
    magnitude = abs(number.value)
    sign = "-" if number.value < 0 else ""

    # Each way to write the number: (text, whether it is in words).
    if match["words"] is not None:
        digits = _plain_digits(magnitude)
        forms = [(written, True), (_with_commas(digits), False), (digits, False)]
    elif match["scale"]:
        digits = _plain_digits(magnitude)
        forms = [(written, False), (_with_commas(digits), False), (digits, False)]
    else:
        forms = [(written, False), (_with_commas(written), False), (written.replace(",", ""), False)]
    whole = magnitude == magnitude.to_integral_value()
    decimals_written = number.written_with_fraction and not match["scale"]  # "12.0" stays in digits
    if not sign and whole and magnitude <= WORDS_UP_TO and not decimals_written:
        forms.append((_in_words(int(magnitude)), True))

    # Words take no symbol: "$seven" or "seven%" is nobody's answer.
    symbol_around = bool(prefix.strip()) or suffix.lstrip().startswith("%")
    currency = _CURRENCY_MARK.search(answer)
    if currency:
        symbol, singular, plural = _CURRENCIES[_CURRENCY_OF_MARK[currency[0].lower()]]
        currency_word = singular if magnitude == 1 else plural
    percent = _PERCENT.search(answer)
    for form, in_words in forms:
        if not (in_words and symbol_around):
            variants.setdefault(prefix + form + suffix)
        if currency:
            styles = [f"{sign}{form}", f"{sign}{form} {currency_word}"]
            if not in_words:
                styles.insert(1, f"{sign}{symbol}{form}")
        elif percent:
            styles = [f"{form} percent"] if in_words else [f"{sign}{form}%", f"{sign}{form} percent"]
        else:
            styles = [f"{sign}{form}"]
        for variant in styles:
            variants.setdefault(variant)
    return list(variants)


def _with_commas(digits):
    whole, dot, fraction = digits.replace(",", "").partition(".")
    return f"{int(whole):,}{dot}{fraction}" if whole else digits


def _plain_digits(magnitude):
    if magnitude == magnitude.to_integral_value():
        return str(int(magnitude))
    return format(magnitude.normalize(), "f")


def _in_words(value):
    """``value`` (0 to 9999) in words, hyphenating the tens: "one thousand twenty-one"."""
    if value == 0:
        return "zero"
    words = []
    thousands, rest = divmod(value, 1000)
    hundreds, rest = divmod(rest, 100)
    if thousands:
        words += [_UNIT_WORDS[thousands], "thousand"]
    if hundreds:
        words += [_UNIT_WORDS[hundreds], "hundred"]
    if rest:
        tens, unit = divmod(rest, 10)
        if rest < 20:
            words.append(_UNIT_WORDS[rest])
        else:
            words.append(_TENS_WORDS[tens] + (f"-{_UNIT_WORDS[unit]}" if unit else ""))
    return " ".join(words)
