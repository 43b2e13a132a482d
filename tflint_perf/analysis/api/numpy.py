"""NumPy: what is not one array."""

from __future__ import annotations

from tflint_perf.analysis.api import Api, Effect, Kind
from tflint_perf.analysis.api.facts import merge, names

ARRAY = Api(Kind.ARRAY)
LIST = Api(Kind.LIST)
OTHER = Api(Kind.UNKNOWN)
NOTHING = Api(Kind.NONE)

FUNCTIONS = merge(
    names(
        """split array_split hsplit vsplit dsplit meshgrid broadcast_arrays gradient
        atleast_1d atleast_2d atleast_3d""",
        LIST,
        "numpy.",
    ),
    names(
        "linalg.eig linalg.eigh linalg.qr linalg.slogdet", Api(Kind.LIST, returns_tuple=2), "numpy."
    ),
    names("linalg.svd linalg.lstsq", Api(Kind.LIST, returns_tuple=3), "numpy."),
    names("histogram histogram2d histogramdd", Api(Kind.LIST, returns_tuple=2), "numpy."),
    # one array only with three arguments (np.where(c, a, b)); a tuple otherwise
    names("nonzero", Api(Kind.LIST), "numpy."),
    names(
        """ndindex ndenumerate nditer shape ndim size isscalar issubdtype allclose array_equal
        vectorize frompyfunc dtype finfo iinfo errstate printoptions""",
        OTHER,
        "numpy.",
    ),
    names(
        "set_printoptions save savez savez_compressed savetxt", Api(Kind.NONE, Effect.IO), "numpy."
    ),
    names("load", Api(Kind.UNKNOWN, Effect.IO), "numpy."),  # an array, or an .npz archive
    names("loadtxt genfromtxt fromfile", Api(Kind.ARRAY, Effect.IO), "numpy."),
    names(
        """random.seed random.set_state random.shuffle""",
        Api(Kind.NONE, Effect.RANDOM),
        "numpy.",
    ),
    names(
        """random.RandomState random.default_rng random.Generator random.get_state""",
        OTHER,
        "numpy.",
    ),
    names("unique", Api(Kind.ARRAY), "numpy."),
)

PREFIXES = (
    ("numpy.testing.", OTHER),
    ("numpy.lib.", OTHER),
    ("numpy.typing.", OTHER),
    ("numpy.char.", OTHER),
    ("numpy.random.", Api(Kind.ARRAY, Effect.RANDOM)),
    ("numpy.linalg.", ARRAY),
    ("numpy.fft.", ARRAY),
)

# ``np.float32(x)``: a scalar, not an array.
SCALAR_TYPES = frozenset(
    f"numpy.{t}"
    for t in """int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float float16
    float32 float64 float128 complex complex64 complex128 bool bool_ str_ bytes_ object_ intp
    uintp half single double longdouble""".split()
)
