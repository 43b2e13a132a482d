import pytest

from tests.analysis.snippets import context, find
from tflint_perf.analysis.trips import Trips
from tflint_perf.engine import cst

PARSER = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--save-every", type=int, default=5000)
parser.add_argument("-b", "--batch_size", type=int, default=64)
parser.add_argument("--steps", dest="n_steps", type=int, default=30)
parser.add_argument("--twice", default=1)
parser.add_argument("--twice", default=2)
"""


@pytest.mark.parametrize(
    "tail, read, number",
    [
        ("args = parser.parse_args()\nprint(args.save_every)\n", "args.save_every", 5000),
        ("args = parser.parse_args()\nprint(args.batch_size)\n", "args.batch_size", 64),
        ("args = parser.parse_args()\nprint(args.n_steps)\n", "args.n_steps", 30),
        ("args, _ = parser.parse_known_args()\nprint(args.n_steps)\n", "args.n_steps", None),
        ("args = parser.parse_known_args()[0]\nprint(args.n_steps)\n", "args.n_steps", 30),
        # every call of the function passes the parsed options
        (
            "def run(opts):\n    print(opts.save_every)\n\nrun(parser.parse_args())\n",
            "opts.save_every",
            5000,
        ),
        # two options of one name, or no option of it: no default to read
        ("args = parser.parse_args()\nprint(args.twice)\n", "args.twice", None),
        ("args = parser.parse_args()\nprint(args.missing)\n", "args.missing", None),
        # not what parse_args returns
        ("args = load_config()\nprint(args.save_every)\n", "args.save_every", None),
    ],
)
def test_an_option_reads_as_its_default(tail, read, number):
    ctx = context(PARSER + tail)
    assert ctx.shared(Trips).number(find(ctx, cst.Attribute, read)) == number
