"""The call graph: what a call runs, who calls a function, what is passed."""

from tests.analysis.snippets import context, find
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.engine import cst


def graph(source):
    ctx = context(source)
    return ctx, ctx.shared(CallGraph)


def names(funcs):
    return [f.name.value for f in funcs]


def test_plain_calls_aliases_and_redefinitions():
    ctx, g = graph(
        """
        def step(x):
            return x
        fn = step
        fn(1)
        def step(x):
            return x + 1
        step(2)
        """
    )
    first, second = ctx.nodes(cst.FunctionDef)
    assert g.resolve(find(ctx, cst.Call, "fn(1)")) == [first]
    assert g.resolve(find(ctx, cst.Call, "step(2)")) == [second]


def test_methods_through_self_instances_bases_and_subclass_overrides():
    ctx, g = graph(
        """
        class Base:
            def act(self, s):
                return self.predict_one(s)
            def predict_one(self, s):
                return s
        class Child(Base):
            def predict_one(self, s):
                return s * 2
        class Runner:
            def __init__(self):
                self.agent = Child()
            def go(self):
                return self.agent.act(1)
        agent = Base()
        agent.act(3)
        """
    )
    targets = g.resolve(find(ctx, cst.Call, "self.predict_one(s)"))
    assert [(f.name.value, g.sem.method_class(f).name.value) for f in targets] == [
        ("predict_one", "Base"),
        ("predict_one", "Child"),
    ]
    assert names(g.resolve(find(ctx, cst.Call, "self.agent.act(1)"))) == ["act"]
    assert names(g.resolve(find(ctx, cst.Call, "agent.act(3)"))) == ["act"]
    assert names(g.resolve(find(ctx, cst.Call, "Child()"))) == []  # no __init__ anywhere


def test_callables_passed_as_arguments_any_depth():
    ctx, g = graph(
        """
        def greedy(obs):
            return obs
        def rollout(env, policy):
            return policy(env)
        def evaluate(env, chooser):
            return rollout(env, chooser)
        evaluate(None, greedy)
        """
    )
    assert names(g.resolve(find(ctx, cst.Call, "policy(env)"))) == ["greedy"]
    greedy = ctx.nodes(cst.FunctionDef)[0]
    assert [ctx.code(c) for c in g.callers(greedy)] == ["policy(env)"]


def test_arguments_by_position_keyword_and_self():
    ctx, g = graph(
        """
        class A:
            def f(self, x, y=0):
                pass
        a = A()
        a.f(1, y=2)
        def g(p, q):
            pass
        g(3, 4)
        """
    )
    f, gdef = ctx.nodes(cst.FunctionDef)
    call = find(ctx, cst.Call, "a.f(1, y=2)")
    assert ctx.code(g.argument(call, f, "x")) == "1"
    assert ctx.code(g.argument(call, f, "y")) == "2"
    assert ctx.code(g.argument(find(ctx, cst.Call, "g(3, 4)"), gdef, "q")) == "4"


def test_calls_in_a_function_exclude_nested_functions():
    ctx, g = graph(
        """
        def outer():
            a()
            def inner():
                b()
            [c() for _ in range(2)]
        """
    )
    outer = ctx.nodes(cst.FunctionDef)[0]
    assert [ctx.code(c) for c in g.calls_in(outer)] == ["a()", "c()", "range(2)"]


def test_methods_of_an_instance_passed_to_a_constructor_and_kept_on_self():
    ctx, g = graph(
        """
        class Actor:
            def train(self, s):
                return s
        class Worker:
            def __init__(self, actor):
                self.global_actor = actor
            def run(self):
                return self.global_actor.train(1)
        class Agent:
            def __init__(self):
                self.global_actor = Actor()
            def start(self):
                return Worker(self.global_actor)
        class Other:
            def __init__(self, thing):
                self.thing = thing
            def go(self):
                return self.thing.train(2)
        Other(Actor())
        Other(Agent())
        """
    )
    assert names(g.resolve(find(ctx, cst.Call, "self.global_actor.train(1)"))) == ["train"]
    # passed instances of two classes: the method of each that defines it may run
    found = g.resolve(find(ctx, cst.Call, "self.thing.train(2)"))
    assert [ctx.shared(SemanticModel).method_class(f).name.value for f in found] == ["Actor"]


def test_a_parameter_given_instances_of_several_classes_runs_any_of_their_methods():
    ctx, g = graph(
        """
        class Agent:
            def act(self, s):
                return s
        class RandomAgent:
            def act(self, s):
                return 0
        class Unknown:
            pass
        def run(agent):
            return agent.act(1)
        def other(thing):
            return thing.act(2)
        run(Agent())
        run(RandomAgent())
        other(Agent())
        other(make())
        """
    )
    acts = g.resolve(find(ctx, cst.Call, "agent.act(1)"))
    assert [ctx.shared(SemanticModel).method_class(f).name.value for f in acts] == [
        "Agent",
        "RandomAgent",
    ]
    # one caller passes something of unknown origin: unknown
    assert g.resolve(find(ctx, cst.Call, "thing.act(2)")) == []


def test_possible_callers_match_a_unique_method_name_through_an_unknown_receiver():
    ctx, g = graph(
        """
        class Agent:
            def choose_action(self, s):
                return s
            def run(self, s):
                return s
        class Other:
            def learn(self):
                pass
        class Twin:
            def learn(self):
                pass
        def episode(agent, sess, known):
            agent.choose_action(1)
            sess.run(2)
            agent.learn()
            known.choose_action(3)
        episode(None, None, Agent())
        """
    )
    choose, run, learn, _ = ctx.nodes(cst.FunctionDef)[:4]
    through_unknown = find(ctx, cst.Call, "agent.choose_action(1)")
    assert g.callers(choose) == [find(ctx, cst.Call, "known.choose_action(3)")]
    assert g.possible_callers(choose) == [
        through_unknown,
        find(ctx, cst.Call, "known.choose_action(3)"),
    ]
    assert g.possible_callers(run) == []  # a name every library uses: sess.run is not Agent.run
    assert g.possible_callers(learn) == []  # two classes define learn: which one is unknown


def test_a_function_rebound_to_what_a_wrapper_of_the_module_made_of_it_is_unknown():
    ctx, g = graph(
        """
        import tensorflow as tf
        def make_runner(*types):
            def wrap(f):
                return lambda *args: f(*args)
            return wrap
        def resize(img):
            return img
        resize = make_runner(float)(resize)
        def step(x):
            return x
        step = tf.function(step)
        def run():
            resize(1)
            step(2)
        """
    )
    assert g.resolve(find(ctx, cst.Call, "resize(1)")) == []  # whatever the wrapper returned
    step = [f for f in ctx.nodes(cst.FunctionDef) if f.name.value == "step"]
    assert g.resolve(find(ctx, cst.Call, "step(2)")) == step  # tf.function runs the function
