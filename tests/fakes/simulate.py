"""Simulated answers for tests and benchmarks: a model that paraphrases, the same model with a
style shift on a share of its answers, and a model served at temperature 0 whose answers vary
between serving sessions.

:func:`paraphrase` samples one answer to a prompt from :data:`PROMPTS`: each answer is built from
segments, each segment drawn from a few wordings, so one prompt has dozens of wordings of one
answer (what a model sampled at temperature 0.7–1 does). :func:`shifted` applies a style change
to an answer (a chatty preamble, a follow-up offer, a tour-guide paragraph, a code fence, JSON in
prose, a refusal, Spanish, a bullet list). :func:`sample_answers` draws ``n`` answers of a prompt
with a share of them shifted.

:func:`session_answers` is the default decoding (temperature 0, a seed): per prompt one canonical
answer and a few variants identical to it up to a late word, whose set differs between serving
sessions (batch-dependent numerics), as published measurements of temperature-0 endpoints show.

Everything is seeded: the same arguments give the same texts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

Segments = Sequence[Sequence[str]]

#: Per prompt id: the segments of its answer, each a list of wordings. The prompts cover what a
#: suite holds: short facts, one-word labels, code, JSON, lists, explanations.
PROMPTS: dict[str, Segments] = {
    "capital-france": [
        [
            "The capital of France is Paris.",
            "Paris is the capital of France.",
            "France's capital is Paris.",
            "Paris.",
        ],
    ],
    "capital-japan": [
        ["Tokyo is the capital of Japan.", "The capital of Japan is Tokyo.", "Tokyo."],
        ["", "It has been the seat of government since 1868.", "It became the capital in 1868."],
    ],
    "boiling-point": [
        [
            "Water boils at 100 °C (212 °F) at sea level.",
            "At sea level, water boils at 100 degrees Celsius, or 212 °F.",
            "The boiling point of water is 100 °C at standard pressure.",
        ],
        ["", "At higher altitudes it boils at a lower temperature.", ""],
    ],
    "reverse-string": [
        ["Here is a function:", "You can use slicing:", "Use a slice with a negative step:"],
        [
            "```python\ndef reverse(s: str) -> str:\n    return s[::-1]\n```",
            "```python\ndef reverse(text):\n    return text[::-1]\n```",
            "```python\ndef reverse_string(s):\n    return s[::-1]\n```",
        ],
        [
            "The slice `[::-1]` walks the string backwards.",
            "Slicing with a step of -1 returns the characters in reverse order.",
            "",
        ],
    ],
    "user-json": [
        [
            '{"name": "Ada Lovelace", "age": 36}',
            '{\n  "name": "Ada Lovelace",\n  "age": 36\n}',
            '{"name":"Ada Lovelace","age":36}',
            '{"age": 36, "name": "Ada Lovelace"}',
        ],
    ],
    "primary-colors": [
        ["The three primary colors are:", "Primary colors:", "The primary colours are:"],
        [
            "- Red\n- Blue\n- Yellow",
            "1. Red\n2. Yellow\n3. Blue",
            "- Red\n- Yellow\n- Blue",
        ],
    ],
    "summary": [
        [
            "The report finds that remote work raised productivity by about 5 %.",
            "According to the report, productivity rose roughly 5 % with remote work.",
            "Remote work increased productivity by around five percent, the report says.",
        ],
        [
            "It also notes higher employee satisfaction.",
            "Employees reported being more satisfied as well.",
            "Satisfaction among staff went up too.",
        ],
        [
            "Costs for office space fell.",
            "Companies spent less on offices.",
            "",
        ],
    ],
    "sentiment": [["Positive", "positive", "Positive.", "POSITIVE"]],
    "translate-hello": [["Hola", "Hola.", "¡Hola!", '"Hola"']],
    "photosynthesis": [
        [
            "Photosynthesis is the process by which plants turn light into chemical energy.",
            "Plants use photosynthesis to convert sunlight into chemical energy.",
            "In photosynthesis, green plants capture light energy and store it as sugar.",
        ],
        [
            "They take in carbon dioxide and water and release oxygen.",
            "Carbon dioxide and water go in; glucose and oxygen come out.",
            "The process consumes CO2 and water and gives off oxygen.",
        ],
    ],
    "sql-top-customers": [
        ["", "Here is the query:", "This query does it:"],
        [
            "```sql\nSELECT name, total FROM customers ORDER BY total DESC LIMIT 5;\n```",
            "```sql\nSELECT name, total\nFROM customers\nORDER BY total DESC\nLIMIT 5;\n```",
            "```sql\nselect name, total from customers order by total desc limit 5;\n```",
        ],
    ],
    "multiply": [["391", "17 × 23 = 391", "The answer is 391.", "17 * 23 = 391."]],
    "subject-line": [
        [
            "Subject: Quick update on the Q3 roadmap",
            "Subject: Q3 roadmap – a short update",
            "Subject: Where we stand on the Q3 roadmap",
            "Subject: Q3 roadmap status",
        ],
    ],
    "reset-password": [
        ["To reset your password:", "Follow these steps:", "Here's how to reset it:"],
        ["1. Open Settings.", "1. Go to Settings.", "1. Open the Settings page."],
        [
            "2. Choose Security.",
            "2. Select Security.",
            "2. Click Security.",
        ],
        [
            "3. Click Reset password and follow the email link.",
            "3. Press Reset password, then open the link we email you.",
            "3. Select Reset password and check your inbox for the link.",
        ],
    ],
    "email-regex": [
        [
            "A simple pattern is `^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$`.",
            "Use `^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$`.",
            "Try this regex: `^[\\w.+-]+@[\\w-]+\\.[\\w.]+$`.",
        ],
        [
            "It checks for one @ and a dot in the domain.",
            "It is not fully RFC 5322 compliant but catches most typos.",
            "",
        ],
    ],
    "hamlet": [
        [
            "Hamlet was written by William Shakespeare.",
            "William Shakespeare wrote Hamlet.",
            "Shakespeare wrote it, around 1600.",
            "William Shakespeare.",
        ],
    ],
    "recursion": [
        [
            "Recursion is when a function calls itself to solve smaller instances of a problem.",
            "A recursive function solves a problem by calling itself on smaller inputs.",
            "Recursion means defining something in terms of itself.",
        ],
        [
            "It needs a base case to stop.",
            "Every recursion needs a base case that ends it.",
            "Without a base case it would never terminate.",
        ],
    ],
    "km-to-miles": [
        [
            "5 km is about 3.11 miles.",
            "Five kilometres equal roughly 3.1 miles.",
            "5 kilometers ≈ 3.107 miles.",
        ],
    ],
    "remote-work": [
        ["Pros:", "**Pros**", "Advantages:"],
        [
            "- No commute\n- Flexible hours",
            "- Flexible schedule\n- Saves commuting time",
            "- Time saved on commuting\n- More flexibility",
        ],
        ["Cons:", "**Cons**", "Drawbacks:"],
        [
            "- Isolation\n- Blurred work-life boundaries",
            "- Less social contact\n- Harder to switch off",
            "- Loneliness\n- Work and home life blur",
        ],
    ],
    "haiku": [
        [
            "Autumn moonlight —",
            "Cold river at dawn",
            "Leaves drift on the pond",
            "Morning fog rises",
        ],
        [
            "a worm digs silently",
            "the heron waits, unmoving",
            "a single frog leaps",
            "over the sleeping village",
        ],
        ["into the chestnut.", "then the stillness breaks.", "silence returns.", "soft and grey."],
    ],
}

#: Style shifts :func:`shifted` knows.
SHIFTS = (
    "chatty",
    "preamble",
    "followup",
    "fence",
    "json_prose",
    "refusal",
    "spanish",
    "list",
    "period",
    "collapse",
)

_PREAMBLES = ("Sure! Great question.", "Great question!", "Sure! Happy to help.")
_FOLLOW_UPS = (
    "Let me know if you'd like more details!",
    "Would you like me to go deeper on any of this?",
    "Happy to help further if you have more questions!",
)
_TOUR = (
    "If you ever get the chance to visit, it's well worth exploring the local sights and trying "
    "the regional food; many travellers say it is the highlight of their trip."
)


def paraphrase(prompt_id: str, rng: random.Random) -> str:
    """One answer to ``prompt_id``: each segment's wording drawn at random."""
    parts = [rng.choice(list(wordings)) for wordings in PROMPTS[prompt_id]]
    joiner = "\n" if _multiline(prompt_id) else " "
    return joiner.join(p for p in parts if p)


def shifted(answer: str, kind: str, rng: random.Random) -> str:
    """``answer`` with the style change ``kind`` (one of :data:`SHIFTS`)."""
    if kind == "chatty":
        # The case: preamble, the answer, a tour-guide paragraph, a follow-up offer.
        return f"{rng.choice(_PREAMBLES)} {answer}\n\n{_TOUR}\n\n{rng.choice(_FOLLOW_UPS)}"
    if kind == "preamble":
        return f"{rng.choice(_PREAMBLES)} {answer}"
    if kind == "followup":
        return f"{answer}\n\n{rng.choice(_FOLLOW_UPS)}"
    if kind == "fence":
        return f"```\n{answer}\n```"
    if kind == "json_prose":
        return f'Here is the result:\n{{"answer": "{answer[:40]}", "ok": true}}\nHope that helps.'
    if kind == "refusal":
        return "I'm sorry, but I can't help with that request."
    if kind == "spanish":
        return rng.choice(
            (
                "La respuesta es la siguiente y es la que se espera para esta pregunta.",
                "Esta es la respuesta que buscas, con los datos que se piden en la pregunta.",
            )
        )
    if kind == "list":
        return "\n".join(f"- {s.strip()}" for s in answer.replace("\n", " ").split(". ") if s)
    if kind == "collapse":
        # Whitespace collapsed: code loses its indentation and line breaks.
        return " ".join(answer.split())
    if kind == "period":
        # The smallest change: one character at the end.
        return answer.rstrip(".") + "!"
    raise ValueError(f"unknown shift {kind!r}; known: {', '.join(SHIFTS)}")


def sample_answers(
    prompt_id: str,
    n: int,
    *,
    seed: int,
    share: float = 0.0,
    kind: str = "chatty",
) -> list[str]:
    """``n`` sampled answers to ``prompt_id``, each shifted with probability ``share``."""
    rng = random.Random(f"{prompt_id}/{seed}")
    answers = []
    for _ in range(n):
        answer = paraphrase(prompt_id, rng)
        if share > 0 and rng.random() < share:
            answer = shifted(answer, kind, rng)
        answers.append(answer)
    return answers


def _multiline(prompt_id: str) -> bool:
    return any("\n" in w or w.endswith(":") for seg in PROMPTS[prompt_id] for w in seg)


#: Words a late-diverging variant inserts near the end of the canonical answer.
_LATE_WORDS = ("also", "usually", "generally", "typically", "indeed", "simply", "often", "then")
#: Variants per prompt across all sessions; each session serves a few of them.
SESSION_POOL = 8
#: Variants one serving session produces, and the share of its answers that are variants.
SESSION_VARIANTS = 3
SESSION_VARIANT_SHARE = 0.2


def canonical(prompt_id: str) -> str:
    """The answer a temperature-0 model gives to ``prompt_id`` most of the time."""
    return paraphrase(prompt_id, random.Random(f"canonical/{prompt_id}"))


def late_variants(prompt_id: str) -> list[str]:
    """:data:`SESSION_POOL` variants of the canonical answer, each identical to it up to a word in
    its last quarter (one word inserted, dropped or a punctuation mark changed there)."""
    text = canonical(prompt_id)
    rng = random.Random(f"variants/{prompt_id}")
    words = text.split(" ")
    out: list[str] = []
    attempts = 0
    while len(out) < SESSION_POOL and attempts < 200:
        attempts += 1
        how = rng.choice(("insert", "drop", "punct")) if len(words) > 2 else "punct"
        cut = rng.randint(max(1, (3 * len(words)) // 4), len(words) - 1) if len(words) > 1 else 1
        if how == "insert":
            variant = " ".join([*words[:cut], rng.choice(_LATE_WORDS), *words[cut:]])
        elif how == "drop" and cut < len(words) - 1:
            variant = " ".join([*words[:cut], *words[cut + 1 :]])
        elif how == "punct":
            variant = text.rstrip(".!") + rng.choice(("!", ";", "", " .", ".."))
        else:
            continue
        if variant != text and variant not in out:
            out.append(variant)
    return out


def session_answers(
    prompt_id: str,
    n: int,
    *,
    session: int,
    seed: int,
    share: float = 0.0,
    kind: str = "chatty",
) -> list[str]:
    """``n`` answers of a temperature-0 model in serving session ``session``: the canonical
    answer, or (in :data:`SESSION_VARIANT_SHARE` of answers) one of this session's variants;
    each shifted with probability ``share``."""
    pool = late_variants(prompt_id)
    chosen = random.Random(f"session/{prompt_id}/{session}").sample(
        pool, min(SESSION_VARIANTS, len(pool))
    )
    rng = random.Random(f"{prompt_id}/{session}/{seed}")
    base = canonical(prompt_id)
    answers = []
    for _ in range(n):
        answer = rng.choice(chosen) if chosen and rng.random() < SESSION_VARIANT_SHARE else base
        if share > 0 and rng.random() < share:
            answer = shifted(answer, kind, rng)
        answers.append(answer)
    return answers
