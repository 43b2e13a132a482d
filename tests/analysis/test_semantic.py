"""The semantic model: scopes, bindings, references, per-iteration names."""

import pytest

from tests.analysis.snippets import context, find, name
from tflint_perf.analysis.semantic import BindingKind, ScopeKind, SemanticModel
from tflint_perf.engine import cst


def model(source):
    ctx = context(source)
    return ctx, ctx.shared(SemanticModel)


def test_binding_kinds_of_every_statement_that_binds():
    ctx, sem = model(
        """
        import numpy as np
        from tensorflow import keras as K
        x = np.zeros(3)
        a, (b, c) = 1, (2, 3)
        y: int = 4
        x += 1
        for i, row in enumerate(x):
            pass
        with open("f") as handle:
            pass
        def f(p, *args, q=1, **kw):
            pass
        class C:
            pass
        try:
            pass
        except ValueError as err:
            pass
        items.append(5)
        table[0] = 1
        """
    )
    kinds = {n: [b.kind for b in found] for n, found in sem.module_scope.bindings.items()}
    assert kinds["np"] == [BindingKind.IMPORT]
    assert sem.module_scope.bindings["K"][0].qualname == "keras"
    assert kinds["x"] == [BindingKind.ASSIGNMENT, BindingKind.AUGMENTED]
    assert kinds["a"] == kinds["b"] == kinds["c"] == [BindingKind.ASSIGNMENT]
    assert kinds["y"] == [BindingKind.ASSIGNMENT]
    assert kinds["i"] == kinds["row"] == [BindingKind.LOOP_TARGET]
    assert kinds["handle"] == [BindingKind.WITH_TARGET]
    assert kinds["f"] == [BindingKind.FUNCTION] and kinds["C"] == [BindingKind.CLASS]
    assert kinds["err"] == [BindingKind.EXCEPT_TARGET]
    assert kinds["items"] == kinds["table"] == [BindingKind.MUTATION]
    func = sem.scope(find(ctx, cst.FunctionDef, ctx.code(ctx.nodes(cst.FunctionDef)[0]).strip()))
    assert set(func.bindings) == {"p", "args", "q", "kw"}
    assert all(b.kind is BindingKind.PARAMETER for found in func.bindings.values() for b in found)


def test_unpacking_keeps_each_element_value_when_the_source_shows_it():
    ctx, sem = model("a, (b, c) = 1, (2, 3)\nd, e = pair()\n")
    b = sem.module_scope.bindings
    assert ctx.code(b["a"][0].value) == "1" and ctx.code(b["c"][0].value) == "3"
    assert b["c"][0].path == (1, 1)
    assert b["d"][0].value is None and ctx.code(b["d"][0].source) == "pair()"
    assert b["e"][0].path == (1,)
    assert b["a"][0].plain is True and b["d"][0].plain is False


def test_scopes_defaults_decorators_and_the_first_comprehension_iterable_are_outside():
    ctx, sem = model(
        """
        @deco(k)
        def f(p=default):
            return [v * p for v in values if v]
        class C(Base):
            attr = 1
        """
    )
    assert sem.scope_of(name(ctx, "k")).kind is ScopeKind.MODULE
    assert sem.scope_of(name(ctx, "default")).kind is ScopeKind.MODULE
    assert sem.scope_of(name(ctx, "p", 1)).kind is ScopeKind.COMPREHENSION
    assert sem.scope_of(name(ctx, "values")).kind is ScopeKind.FUNCTION
    assert sem.scope_of(name(ctx, "Base")).kind is ScopeKind.MODULE
    assert sem.scope_of(name(ctx, "attr")).kind is ScopeKind.CLASS
    assert sem.scope_of(name(ctx, "p")).kind is ScopeKind.FUNCTION  # the parameter's name


def test_lookup_gives_the_last_binding_before_the_read():
    ctx, sem = model(
        """
        x = first()
        x = second()
        use(x)
        x = third()
        """
    )
    found = sem.lookup_name(name(ctx, "x", 2))
    assert [ctx.code(b.value) for b in found] == ["second()"]
    assert ctx.code(sem.value_of(name(ctx, "x", 2))) == "second()"


def test_lookup_in_a_loop_adds_the_bindings_that_reach_the_next_iteration():
    ctx, sem = model(
        """
        state = reset()
        while True:
            action = act(state)
            state = step(action)
        """
    )
    found = sem.lookup_name(name(ctx, "state", 1))
    assert sorted(ctx.code(b.value) for b in found) == ["reset()", "step(action)"]
    assert sem.value_of(name(ctx, "state", 1)) is None  # two values reach it


def test_a_read_at_the_end_of_its_own_assignment_sees_the_previous_iteration():
    # The read is the last node of the statement that rebinds it: in the loop,
    # the value it reads is the one bound in the previous iteration.
    ctx, sem = model(
        """
        running = 0.0
        for r in rewards:
            running = r + gamma * running
        """
    )
    found = sem.lookup_name(name(ctx, "running", 2))
    assert sorted(ctx.code(b.value) for b in found) == ["0.0", "r + gamma * running"]


def test_a_binding_earlier_in_the_same_iteration_hides_the_loop_carried_ones():
    ctx, sem = model(
        """
        for batch in data:
            x = prepare(batch)
            use(x)
            x = other()
        """
    )
    assert [ctx.code(b.value) for b in sem.lookup_name(name(ctx, "x", 1))] == ["prepare(batch)"]


def test_a_binding_earlier_in_the_iteration_that_may_not_run_keeps_the_loop_carried_ones():
    # The reset runs only at a game boundary: otherwise the previous iteration's value is read.
    ctx, sem = model(
        """
        running = 0
        for t in steps:
            if done[t]:
                running = 0
            running = running * gamma + r[t]
        """
    )
    found = sem.lookup_name(name(ctx, "running", 3))
    assert sorted(ctx.code(b.value) for b in found) == ["0", "0", "running * gamma + r[t]"]


def test_free_names_resolve_in_the_enclosing_function_or_the_module_skipping_classes():
    ctx, sem = model(
        """
        model = build()
        class Agent:
            model = "class attribute"
            def act(self, s):
                return model.predict(s)
        def outer():
            n = 3
            def inner():
                return n
        """
    )
    found = sem.lookup_name(name(ctx, "model", 2))
    assert [ctx.code(b.value) for b in found] == ["build()"]
    assert [ctx.code(b.value) for b in sem.lookup_name(name(ctx, "n", 1))] == ["3"]


def test_self_attributes_are_found_from_any_method_and_base_classes():
    ctx, sem = model(
        """
        class Base:
            def __init__(self):
                self.model = build_model()
        class Agent(Base):
            def act(self, s):
                return self.model.predict(s)
        """
    )
    read = find(ctx, cst.Attribute, "self.model", 1)
    assert [ctx.code(b.value) for b in sem.lookup_name(read)] == ["build_model()"]
    assert ctx.code(sem.value_of(read)) == "build_model()"


def test_global_declarations_bind_in_the_module():
    ctx, sem = model(
        """
        counter = 0
        def bump():
            global counter
            counter += 1
        """
    )
    assert [b.kind for b in sem.module_scope.bindings["counter"]] == [
        BindingKind.ASSIGNMENT,
        BindingKind.AUGMENTED,
    ]


def test_a_region_binds_the_names_it_declares_global_too():
    """A loop body moved into a function that declares its names ``global``: the
    bindings live in the module's scope, but the function's region makes them."""
    ctx, sem = model(
        """
        obs = reset()
        def run():
            global obs, total
            for t in range(500):
                obs = advance(obs)
                total = t
        total = 0
        """
    )
    loop, func = ctx.nodes(cst.For)[0], ctx.nodes(cst.FunctionDef)[0]
    assert [b.name for b in sem.bindings_in(loop)] == ["t", "obs", "total"]
    assert sem.varying(loop) == {"t", "obs", "total"}
    assert sem.names_bound_by(func) == {"t", "obs", "total"}
    # the module's own region lists each binding once
    assert [b.name for b in sem.bindings_in(ctx.module)] == ["obs", "run", "obs", "total", "total"]


def test_reads_skip_attribute_names_keywords_and_comprehension_variables():
    ctx, sem = model("y = f(a.b, key=c) + [v * w for v in items]\n")
    assign = ctx.nodes(cst.Assign)[0]
    assert sem.reads(assign.value) == ["f", "a", "c", "items", "w"]  # evaluation order


def test_varying_names_follow_values_computed_from_the_loop():
    ctx, sem = model(
        """
        lr = 0.1
        for step in range(100):
            scale = 2.0
            decayed = lr * step
            fixed = lr * scale
            history.append(decayed)
        """
    )
    loop = ctx.nodes(cst.For)[0]
    assert sem.varying(loop) == {"step", "scale", "decayed", "fixed", "history"}
    stable = sem.varying(loop, stable=lambda value: True)
    assert stable == {"step", "decayed", "history"}


def test_bindings_in_a_region_and_loops_around_a_node():
    ctx, sem = model(
        """
        for epoch in range(3):
            for x in data:
                loss = step(x)
        total = 0
        """
    )
    outer, inner = ctx.nodes(cst.For)
    assert [b.name for b in sem.bindings_in(inner)] == ["x", "loss"]
    assert sem.loops_around(name(ctx, "step")) == [inner, outer]
    assert sem.names_bound_by(outer) == {"epoch", "x", "loss"}


def test_function_and_method_class_and_statement_of():
    ctx, sem = model(
        """
        class Agent:
            def act(self, s):
                return [q for q in self.net(s)]
        """
    )
    q = name(ctx, "q", 1)
    func = ctx.nodes(cst.FunctionDef)[0]
    assert sem.function_of(q) is func
    assert sem.method_class(func) is ctx.nodes(cst.ClassDef)[0]
    assert isinstance(sem.statement_of(q), cst.Return)


def test_derived_names_follow_a_result_through_the_loop_and_if_choices():
    ctx, sem = model(
        """
        while not done:
            q = model.predict(obs)
            action = q.argmax()
            if action > 0:
                label = "right"
            obs, reward, done, info = env.step(action)
            steps = steps + 1
        """
    )
    loop = ctx.nodes(cst.While)[0]
    call = find(ctx, cst.Call, "model.predict(obs)")
    assert sem.derived(loop, call) == {"q", "action", "label", "obs", "reward", "done", "info"}


def test_references_are_the_reads_a_binding_reaches():
    ctx, sem = model(
        """
        ds = make()
        print(ds)
        ds = ds.batch(2)
        def use(ds):
            return ds
        use(ds)
        """
    )
    first, second = sem.module_scope.bindings["ds"]
    reads = sem.references(first)
    assert [ctx.position(r).start.line for r in reads] == [2, 3]
    assert [ctx.position(r).start.line for r in sem.references(second)] == [6]
    param = sem.scope(next(iter(ctx.nodes(cst.FunctionDef)))).bindings["ds"][0]
    assert [ctx.position(r).start.line for r in sem.references(param)] == [5]


def test_pop_remove_clear_and_setdefault_change_the_object():
    ctx, sem = model(
        """
        queue = [1, 2]
        queue.pop(0)
        seen = {1}
        seen.discard(1)
        seen.clear()
        cache = {}
        cache.setdefault("k", 1)
        """
    )
    kinds = {n: [b.kind for b in found] for n, found in sem.module_scope.bindings.items()}
    assert kinds["queue"] == [BindingKind.ASSIGNMENT, BindingKind.MUTATION]
    assert kinds["seen"] == [BindingKind.ASSIGNMENT, BindingKind.MUTATION, BindingKind.MUTATION]
    assert kinds["cache"] == [BindingKind.ASSIGNMENT, BindingKind.MUTATION]


def test_a_lambda_reads_its_default_values_where_it_is_made():
    ctx, sem = model("fs = [lambda x, s=scale: x * s * k for k in ks]\n")
    reads = sem.reads(ctx.nodes(cst.Lambda)[0])
    assert "scale" in reads and "k" in reads
    assert "x" not in reads and "s" not in reads


def test_origins_lead_through_in_place_changes_to_the_assignment():
    ctx, sem = model(
        """
        model = Sequential()
        model.add(Dense(4))
        model.add(Dense(1))
        model.fit(x, y)
        """
    )
    receiver = find(ctx, cst.Call, "model.fit(x, y)").func.value
    assert [b.kind for b in sem.lookup_name(receiver)] == [BindingKind.MUTATION]
    (origin,) = sem.origins(receiver)
    assert origin.kind is BindingKind.ASSIGNMENT and ctx.code(origin.value) == "Sequential()"


def test_origins_lead_through_an_alias_to_the_object_it_copies():
    ctx, sem = model(
        """
        scorer = build()
        same = scorer
        same.predict_on_batch(x)
        other = unknown_name
        other.run()
        """
    )
    receiver = find(ctx, cst.Call, "same.predict_on_batch(x)").func.value
    (origin,) = sem.origins(receiver)
    assert ctx.code(origin.value) == "build()"
    # an alias of a name bound nowhere in the module stays the alias
    receiver = find(ctx, cst.Call, "other.run()").func.value
    (origin,) = sem.origins(receiver)
    assert ctx.code(origin.value) == "unknown_name"


def test_a_module_function_named_like_a_mutator_changes_nothing():
    ctx, sem = model(
        "import numpy as np\nimport tensorflow as tf\nz = tf.add(x, y)\nw = np.append(a, 1)\n"
    )
    assert set(sem.module_scope.bindings) == {"np", "tf", "z", "w"}


NOTEBOOK_GLOBALS = """
{marker} [cell 1]
model = "first"
{marker} [cell 2]
def show():
    return model
{marker} [cell 3]
show()
model = "second"
{marker} [cell 4]
{tail}
"""


@pytest.mark.parametrize(
    "marker, tail, lines",
    [
        # cells run in order: the call in cell 3 sees the first model only
        ("# %%", "print(model)", [2]),
        # called again after the second binding: both reach a call
        ("# %%", "show()", [2, 8]),
        # handed on: whoever gets it may call it any time
        ("# %%", "callbacks = [show]", [2, 8]),
        # a plain script: another module may import it and call it after the module ran
        ("#", "print(model)", [2, 8]),
    ],
)
def test_a_notebook_function_sees_the_globals_reaching_its_calls(marker, tail, lines):
    ctx = context(NOTEBOOK_GLOBALS.format(marker=marker, tail=tail))
    sem = ctx.shared(SemanticModel)
    read = find(ctx, cst.Return, "return model").value
    found = sem.lookup_name(read)
    assert sorted(ctx.position(b.statement).start.line for b in found) == lines
