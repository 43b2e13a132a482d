"""Calls that make a batch out of one sample, or an array of several rows
(``analysis/samples.py`` reads them)."""

from __future__ import annotations

# Wrapping one item in a list and converting it: a batch of one.
WRAP_CALLS = frozenset(
    {
        "numpy.array",
        "numpy.asarray",
        "numpy.stack",
        "numpy.vstack",
        "tensorflow.constant",
        "tensorflow.stack",
        "tensorflow.convert_to_tensor",
    }
)
EXPAND = frozenset({"numpy.expand_dims", "tensorflow.expand_dims"})
RESHAPE = frozenset({"numpy.reshape", "tensorflow.reshape"})
NEWAXIS = frozenset({"numpy.newaxis", "tensorflow.newaxis"})
FILLED = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"})
# Array libraries: one of their functions given ``[x]`` is not a batching
# helper of the user's (``pad_sequences([seq])`` is).
ARRAY_LIBRARIES = ("numpy.", "tensorflow.")
# Calls that build an array with a shape the source spells (``size=``, ``shape=``).
SHAPED = ("numpy.random.", *sorted(FILLED))
