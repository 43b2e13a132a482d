"""A finding's headline: one line in an editor, at most ``HEADLINE`` characters."""

from __future__ import annotations

import ast
import re

HEADLINE = 100


def fit_headline(*variants: str) -> str:
    """The first variant that fits (rules list them longest and most concrete
    first, ending with one that fits whatever the names); the last one cut to
    the limit otherwise."""
    for text in variants:
        if len(text) <= HEADLINE:
            return text
    return variants[-1][:HEADLINE]


def clip_code(text: str, width: int) -> str:
    """Code quoted in a message, in at most ``width`` characters and still Python:
    a call or an index keeps its head (``np.expand_dims(...)``), a tuple its first
    items (``s, a, ...``), a dotted name its last parts, a loop header its target
    and a shortened iterable (``for x in enumerate(...)``)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    header = re.match(r"(for|async for) (.+?) in (.+)$", text)
    if header:
        keyword, target, source = header.groups()
        for room_for_target in (len(target), max(8, width // 3)):
            short = clip_code(target, room_for_target)
            room = width - len(f"{keyword} {short} in ")
            if room >= 14:  # enough for ``enumerate(...)``
                return f"{keyword} {short} in {clip_code(source, room)}"
        return f"{keyword} {short} in {clip_code(source, max(room, 3))}"
    if text.startswith("while "):
        return "while " + clip_code(text[len("while ") :], width - len("while "))
    items = text.split(", ")
    while len(items) > 1:
        items = items[:-1]
        short = ", ".join(items) + ", ..."
        if len(short) <= width and _parses(short):
            return short
    bracket = next((i for i, ch in enumerate(text) if ch in "([{"), None)
    if bracket is not None:
        tail = {"(": "(...)", "[": "[...]", "{": "{...}"}[text[bracket]]
        head = text[:bracket]
        if head.startswith("self.") and len(head) + len(tail) > width:
            head = clip_code(head, width - len(tail))  # self.actor_model(...): actor_model(...)
        short = head + tail
        if head != "..." and len(short) <= width and _parses(short):
            return short
    parts = text.split(".")
    while len(parts) > 1 and len(".".join(parts)) > width:
        parts = parts[1:]
    short = ".".join(parts)
    return short if len(short) <= width and _parses(short) else "..."


def _parses(code: str) -> bool:
    try:
        ast.parse(code, mode="eval")
    except SyntaxError:
        return False
    return True
