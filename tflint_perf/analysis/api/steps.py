"""Training steps, ``tf.function`` and tracing: the names TFP201-TFP203 need.

Facts keyed by qualified name are table entries (``FUNCTIONS``, merged into
the one table). The sets of method names below are *spellings used as
evidence*: each says why the spelling is needed where the model cannot
tell the receiver's kind.
"""

from __future__ import annotations

from tflint_perf.analysis.api import Api, Effect, Kind
from tflint_perf.analysis.api.facts import merge, names, words

E = Effect

FUNCTIONS = merge(
    # TensorFlow 1.x eager: ``grad_fn = tfe.implicit_value_and_gradients(loss_fn)``
    # returns a function whose calls compute gradients (``loss, grads = grad_fn(x)``).
    names(
        """implicit_value_and_gradients implicit_gradients value_and_gradients_function
        gradients_function""",
        Api(Kind.GRADIENT_FUNCTION),
        "tensorflow.contrib.eager.",
    ),
    # Switches that make every tf.function run eagerly (debugging).
    names(
        "config.run_functions_eagerly config.experimental_run_functions_eagerly",
        Api(Kind.NONE),
        "tensorflow.",
    ),
    # Wrappers that compile the function they are given (TF 1.x eager, TF-Agents).
    names("contrib.eager.defun autograph.to_graph", Api(Kind.TF_FUNCTION, E.BUILDS), "tensorflow."),
    {"tf_agents.utils.common.function": Api(Kind.TF_FUNCTION, E.BUILDS)},
)

# Qualified names that make ``tf.function`` run its Python every call.
EAGER_SWITCHES = frozenset(
    {
        "tensorflow.config.run_functions_eagerly",
        "tensorflow.config.experimental_run_functions_eagerly",
    }
)

# Methods that apply gradients to variables. Matched by name: the optimizer
# or variable is often a parameter or an attribute set where the model cannot
# read it (``self.opt`` of a base class in another module), and these names
# are TensorFlow's own.
UPDATE_METHODS = words("apply_gradients assign_sub assign_add assign minimize")
# Of those, the ones only an optimizer has: enough without proof that they use
# this tape's gradients (exercise notebooks leave ``tape.gradient`` as a TODO).
OPTIMIZER_UPDATES = words("apply_gradients minimize")
# ``tape.gradient(...)``: the method that computes a tape's gradients (by name:
# a tape handed to a helper is a parameter of unknown kind there).
GRADIENT_METHODS = words("gradient")

# Methods that hand a function to a distribution strategy, which traces it.
STRATEGY_RUNNERS = words("run experimental_run_v2 experimental_run call_for_each_replica")

# Bases whose methods run eagerly however they are called (a worker thread's
# ``run``); any other base from outside the module may compile its methods.
EAGER_BASES = frozenset({"threading.Thread", "multiprocessing.Process", "object"})
# Methods Keras calls itself, while tracing (``fit`` compiles ``train_step``).
KERAS_TRACED_METHODS = words("call build train_step test_step predict_step")

# -- what tracing changes ------------------------------------------------------
# Builtins that turn a tensor into a Python value (no value in a graph).
PYTHON_CONVERSIONS = words("float int bool")
# Methods that turn a tensor into a NumPy/Python value.
TO_PYTHON_METHODS = words("numpy item")
# Modules whose calls give a Python value frozen at trace time.
FROZEN_MODULES = ("time.", "random.", "datetime.")
# Libraries whose calls are plain Python (plots, progress bars, experiment
# loggers, environments, the OS): under tf.function they run once, while
# tracing.
PYTHON_LIBRARIES = words(
    """matplotlib wandb comet_ml mlflow neptune tensorboardX tqdm IPython PIL cv2 imageio
    pandas sklearn gym gymnasium os sys json csv pickle shutil subprocess mitdeeplearning"""
)
# Receivers named like a logger (``logger.info(...)``): a ``logging.getLogger``
# result is often bound in another module, so the spelling is the evidence.
LOGGER_NAMES = words("logging logger log LOGGER LOG")

# -- TF-Agents ---------------------------------------------------------------
# Parameters named like an agent: TF-Agents code passes the agent around as
# ``agent``/``tf_agent`` and builds it in another module.
AGENT_PARAMETER_SUFFIX = "agent"

# -- TF1 graphs ----------------------------------------------------------------
# Calls that turn eager execution off: every op after them builds a graph.
GRAPH_MODE_SWITCHES = frozenset(
    {
        "tensorflow.disable_eager_execution",
        "tensorflow.disable_v2_behavior",
        "tensorflow.disable_v2_tensorshape",
    }
)
# ``v.assign(x)`` in graph mode builds an assign op. By name where the
# variable's kind is unknown (an element of ``tf.get_collection(...)``).
VARIABLE_ASSIGNS = words("assign assign_add assign_sub")
# Calls that exist only in TF1 graph code (besides sessions).
GRAPH_ONLY = frozenset({"tensorflow.placeholder", "tensorflow.placeholder_with_default"})
# ``sess.run(...)``, ``t.eval(...)``, ``op.run()``: running a TF1 graph. By name
# where the receiver's kind is unknown: the session is often a parameter or an
# attribute set in another module (``self.sess``).
SESSION_RUN_METHODS = words("run eval")

# -- things expensive to build (TFP202) ----------------------------------------------
# The parts of a TF1 graph, by qualified name: what a loop rebuilds when it
# builds them on every iteration.
TF1_GRAPH_PARTS = {
    "tensorflow.Graph": "graph",
    "tensorflow.Session": "session",
    "tensorflow.InteractiveSession": "session",
    "tensorflow.placeholder": "placeholder",
    "tensorflow.Variable": "variable",
    "tensorflow.get_variable": "variable",
}
# ``get_variable`` under a scope that reuses its variables returns the existing
# one and builds nothing: the scopes, and the values of ``reuse=`` that reuse.
VARIABLE_SCOPES = frozenset({"tensorflow.variable_scope"})
REUSING_GETTERS = frozenset({"tensorflow.get_variable"})
REUSE_VALUES = frozenset({"True", "tensorflow.AUTO_REUSE"})
# Initializers of the variables that exist when they are built: built after new
# variables, they cover those too (they cannot be built once before them).
TF1_INITIALIZERS = frozenset(
    {
        "tensorflow.global_variables_initializer",
        "tensorflow.initialize_all_variables",
        "tensorflow.local_variables_initializer",
    }
)
# Exceptions that end a pass over the data: their handler runs once per epoch.
END_OF_DATA = frozenset({"tensorflow.errors.OutOfRangeError", "StopIteration"})
# Calls that give what follows a fresh TF1 graph.
NEW_GRAPHS = frozenset({"tensorflow.Graph", "tensorflow.reset_default_graph"})
# Ops that add a whole subgraph (anchor of a finding about a helper).
HEAVY_OPS = frozenset({"tensorflow.gradients", "tensorflow.hessians"})
# Keras' training API by its keywords, for a model built by a library the
# linter cannot read (``m = compiled_tcn(...)``; ``m.fit(x, y, epochs=5)``):
# ``compile(optimizer=..., loss=...)`` and ``fit(..., epochs=...)`` are Keras'.
KERAS_TRAINING_KEYWORDS = {
    "compile": frozenset({"optimizer", "loss"}),
    "fit": frozenset({"epochs"}),
}
# Keras' own keywords of those methods: a call with any other keyword is not
# Keras' (``ann.fit(X, Y, learning_rate=lr, reg=l2, epochs=3000)``).
KERAS_METHOD_KEYWORDS = {
    "compile": words(
        """optimizer loss metrics loss_weights weighted_metrics run_eagerly
        steps_per_execution jit_compile auto_scale_loss sample_weight_mode target_tensors"""
    ),
    "fit": words(
        """x y batch_size epochs verbose callbacks validation_split validation_data shuffle
        class_weight sample_weight initial_epoch steps_per_epoch validation_steps
        validation_batch_size validation_freq max_queue_size workers use_multiprocessing"""
    ),
}
# ... unless the module trains with another deep-learning framework, whose
# wrappers copy that signature (``theano_ann.ANN().fit(X, Y, epochs=3000)``).
OTHER_FRAMEWORKS = ("theano", "torch", "jax", "flax", "mxnet", "chainer", "paddle")
# Methods that load weights into a built model (build once, load per iteration).
WEIGHT_LOADERS = words("load_weights set_weights")
# The methods of a Keras layer or model that run on every forward pass.
FORWARD_METHODS = words("call __call__")
# The methods that build a layer's parts once (Keras calls ``build`` on the first call).
BUILD_METHODS = words("__init__ build")

# -- Python numbers (TFP203) ------------------------------------------------------------
# Python functions whose result is a Python number, and which: "int", "float",
# or "widest" (the widest of its arguments: ``max(1, 0.5)`` is a float).
NUMBER_BUILTINS = {
    "float": "float",
    "int": "int",
    "round": "int",  # with one argument
    "len": "int",
    "min": "widest",
    "max": "widest",
    "abs": "widest",
}
NUMBER_FUNCTIONS = {
    **{
        f"math.{n}": "float"
        for n in "sqrt exp log log2 log10 pow cos sin tan tanh atan fabs".split()
    },
    "math.floor": "int",
    "math.ceil": "int",
}
# Decorators that leave a function as it is (anything else may wrap or compile it).
PLAIN_DECORATORS = words("staticmethod classmethod property")
