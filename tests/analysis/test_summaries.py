"""Function summaries: effects, the parameters they apply to, state changes, evidence."""

from tests.analysis.snippets import context, find
from tflint_perf.analysis.api import Effect
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.engine import cst


def summaries(source):
    ctx = context(source)
    return ctx, ctx.shared(Summaries)


def func(ctx, name):
    return next(f for f in ctx.nodes(cst.FunctionDef) if f.name.value == name)


def test_inference_through_two_wrappers_keeps_the_parameter_and_the_one_sample():
    ctx, s = summaries(
        """
        from tensorflow import keras
        class Agent:
            def __init__(self):
                self.brain = keras.models.load_model("m.h5")
            def predict_one(self, state):
                return self.brain.predict(state.reshape(1, -1))
            def act(self, obs):
                q = self.predict_one(obs)
                return q.argmax()
        """
    )
    act = s.of(func(ctx, "act"))
    assert act.effects & Effect.INFERENCE
    use = act.uses[Effect.INFERENCE]["obs"]
    assert [ctx.code(n) for n in use.path] == [
        "self.predict_one(obs)",
        "self.brain.predict(state.reshape(1, -1))",
    ]
    assert ctx.code(use.sample) == "state.reshape(1, -1)"


def test_a_policy_passed_as_an_argument_carries_its_inference_to_the_caller():
    ctx, s = summaries(
        """
        from tensorflow import keras
        model = keras.Sequential()
        def greedy(obs):
            return model.predict(obs[None])
        def rollout(env, policy):
            obs = env.reset()
            while True:
                action = policy(obs)
                obs = env.step(action)
        rollout(None, greedy)
        """
    )
    rollout = s.of(func(ctx, "rollout"))
    assert rollout.effects & Effect.INFERENCE
    call = find(ctx, cst.Call, "policy(obs)")
    assert s.effects_of(call) & Effect.INFERENCE
    assert [ctx.code(n) for n in s.path_to(call, Effect.INFERENCE)] == [
        "policy(obs)",
        "model.predict(obs[None])",
    ]


def test_a_subclass_override_counts_for_self_calls():
    ctx, s = summaries(
        """
        from tensorflow import keras
        net = keras.Sequential()
        class Base:
            def act(self, s):
                return self.score(s)
            def score(self, s):
                return 0
        class Learned(Base):
            def score(self, s):
                return net.predict(s)
        """
    )
    assert s.of(func(ctx, "act")).effects & Effect.INFERENCE


def test_state_changes_two_calls_down_are_in_the_caller_summary():
    ctx, s = summaries(
        """
        counter = 0
        class Opt:
            def _count(self):
                self.t += 1.0
            def apply(self, grads):
                self._count()
        opt = Opt()
        def step(g):
            opt.apply(g)
        def bump():
            global counter
            counter += 1
        def pure(x):
            y = []
            y.append(x)
            return y
        """
    )
    assert [what for _, what in s.of(func(ctx, "step")).mutations] == ["self.t"]
    assert [what for _, what in s.of(func(ctx, "bump")).mutations] == ["counter"]
    assert s.of(func(ctx, "pure")).mutations == []


def test_construction_training_and_graph_growth_effects():
    ctx, s = summaries(
        """
        import tensorflow as tf
        from tensorflow import keras
        def build():
            return keras.Sequential([keras.layers.Dense(1)])
        def train(x, y):
            m = build()
            m.fit(x, y, epochs=1)
        def copy_weights(a, b):
            return tf.assign(a, b)
        """
    )
    train = s.of(func(ctx, "train"))
    assert train.effects & Effect.BUILDS and train.effects & Effect.TRAINING
    assert set(train.uses[Effect.TRAINING]) == {"x"}
    assert s.of(func(ctx, "copy_weights")).effects & Effect.GRAPH_GROWTH


def test_runtime_starts_and_replica_steps_come_through_helpers():
    ctx, s = summaries(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        def replicate(x):
            return strategy.run(lambda v: v, args=(x,))
        def build():
            model = tf.keras.Sequential([tf.keras.Input((2,))])
            model(tf.zeros((1, 2)))
            return model
        """
    )
    assert s.of(func(ctx, "replicate")).effects & Effect.REPLICA_STEP
    built = s.of(func(ctx, "build"))
    assert built.effects & Effect.INITS_RUNTIME and built.effects & Effect.INFERENCE


def test_a_keras_only_method_name_makes_an_unknown_receiver_a_model():
    ctx, s = summaries(
        """
        def fit_batches(net, batches):
            for x, y in batches:
                net.train_on_batch(x, y)
        def other(obj):
            obj.fit(1)
        """
    )
    assert s.of(func(ctx, "fit_batches")).effects & Effect.TRAINING
    assert not s.of(func(ctx, "other")).effects & Effect.TRAINING  # fit: not only Keras's


def test_in_graph_mode_every_op_grows_the_graph_and_runs_are_seen():
    ctx, s = summaries(
        """
        import tensorflow as tf
        sess = tf.Session()
        def accuracy(logits, labels, feed):
            hits = tf.equal(tf.argmax(logits, 1), labels)
            return sess.run(tf.reduce_mean(hits), feed)
        def evaluate(runner, op):
            return runner.run(op)
        def save(saver):
            saver.save(sess, "ckpt")
        def pure(x):
            return x + 1
        """
    )
    assert s.graph_mode
    accuracy = s.of(func(ctx, "accuracy")).effects
    assert accuracy & Effect.GRAPH_GROWTH and accuracy & Effect.RUNS_GRAPH
    assert s.of(func(ctx, "evaluate")).effects & Effect.RUNS_GRAPH  # a runner of unknown kind
    assert s.of(func(ctx, "save")).effects & Effect.RUNS_GRAPH  # handed the session
    assert not s.of(func(ctx, "pure")).effects


def test_outside_graph_mode_ops_do_not_grow_anything():
    ctx, s = summaries(
        """
        import tensorflow as tf
        def accuracy(logits, labels):
            return tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
        def evaluate(runner, op):
            return runner.run(op)
        """
    )
    assert not s.graph_mode
    assert not s.of(func(ctx, "accuracy")).effects & Effect.GRAPH_GROWTH
    assert not s.of(func(ctx, "evaluate")).effects & Effect.RUNS_GRAPH
