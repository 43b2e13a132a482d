"""What rules ask about code: tensors and arrays, loops, training steps and
loops, execution order and runtime initialisation, datasets, Keras models,
functions, test code.

Imports only ``tflint_perf.engine``. A question two rules ask lives here,
once; a question only one rule asks stays in that rule's module.
"""
