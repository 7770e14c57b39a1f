"""Other ways to write an answer, proposed by rules for validators to confirm (WebQuest's
relaxed accuracy takes the best match over an answer's variants). Deterministic and
offline; a proposal is only a suggestion: nothing is added until a validator ticks it.
``propose("$1,234.50")`` gives ``1234.50 dollars``, ``1234.50``, ``$1234.50``, ``1234.5``
and ``$1234.5``."""

import re

NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
MONEY = re.compile(rf"^\$\s?({NUMBER})$")
PERCENT = re.compile(rf"^({NUMBER})\s?%$")
WITH_UNIT = re.compile(rf"^({NUMBER})\s?([A-Za-z]+\.?)$")
PLAIN = re.compile(rf"^({NUMBER})$")
# Spellings of one unit; the first is the one the others map to.
UNITS = [
    ("litres", "liters", "l", "L", "litre", "liter"),
    ("millilitres", "milliliters", "ml", "mL"),
    ("kilograms", "kg", "kilos"),
    ("grams", "g"),
    ("centimetres", "centimeters", "cm"),
    ("metres", "meters", "m"),
    ("kilometres", "kilometers", "km"),
    ("inches", "in", "inch"),
    ("pages",),
    ("minutes", "min", "mins"),
    ("hours", "h", "hrs"),
]
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
MAX_PROPOSALS = 5


def _plain(number):
    """``1,234.50`` → ``1234.50``."""
    return number.replace(",", "")


def _trimmed(number):
    """``1234.50`` → ``1234.5``; ``12.00`` → ``12``."""
    if "." not in number:
        return number
    return number.rstrip("0").rstrip(".")


def _numbers(number):
    forms = [number, _plain(number), _trimmed(_plain(number))]
    return list(dict.fromkeys(forms))


def propose(answer):
    """Up to five other ways to write ``answer``, never ``answer`` itself."""
    text = answer.strip()
    found = []
    if match := MONEY.match(text):
        plain, trimmed = _plain(match.group(1)), _trimmed(_plain(match.group(1)))
        found += [f"{plain} dollars", plain, f"${plain}", trimmed, f"${trimmed}"]
    elif match := PERCENT.match(text):
        number = match.group(1)
        found += [f"{number} percent", f"{number}%", f"{number} %", f"{_trimmed(_plain(number))}%"]
    elif match := WITH_UNIT.match(text):
        number, unit = match.groups()
        spellings = next((row for row in UNITS if unit.rstrip(".") in row), None)
        if spellings is not None:
            found += [f"{form} {spelling}" for spelling in spellings for form in _numbers(number)[:1]]
            found += [f"{number}{spellings[0 if len(spellings) == 1 else 2]}"]
    elif match := PLAIN.match(text):
        number = match.group(1)
        found += _numbers(number)
        if number.isdigit() and int(number) < len(WORDS):
            found.append(WORDS[int(number)])
    elif text.lower() in WORDS:
        found.append(str(WORDS.index(text.lower())))
    proposals = [form for form in dict.fromkeys(found) if form != text]
    return proposals[:MAX_PROPOSALS]
