"""A finding's headline: one line in an editor, at most ``HEADLINE`` characters."""

from __future__ import annotations

HEADLINE = 100


def fit_headline(*variants: str) -> str:
    """The first variant that fits (rules list them longest and most concrete
    first, ending with one that fits whatever the names); the last one cut to
    the limit otherwise."""
    for text in variants:
        if len(text) <= HEADLINE:
            return text
    return variants[-1][:HEADLINE]
