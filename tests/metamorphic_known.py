"""Metamorphic cases that fail today, with why: tests/test_metamorphic.py marks
each ``xfail(strict=True)``, so a case that starts passing fails the suite until
its line here is removed (the list only shrinks).

Keys are ``fixture:transformation:site``; each reason names the rule, what
changes, and who owns the rule. Made from a run of the suite, checked by hand
(every transformation was read on samples of each rule: the rewrites keep the
meaning; the rules do not see through them yet).
"""

KNOWN_FAILURES = {
    # -- TFP101 (branch arrays)
    "TFP101/bad_count_matches.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_count_matches.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_enumerate_arithmetic.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_enumerate_arithmetic.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_filter_mask.py:helper:0": (
        "TFP101 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_filter_mask.py:helper:1": (
        "TFP101 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_filter_mask.py:method:0": (
        "TFP101 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_filter_mask.py:method:1": (
        "TFP101 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_index_lists.py:alias:all": (
        "TFP101 finds 1 of 2 when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP101/bad_index_lists.py:helper:0": (
        "TFP101 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_index_lists.py:method:0": (
        "TFP101 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_index_lists.py:rename:all": (
        "TFP101 finds 1 of 2 when the module's own names are renamed (branch arrays)"
    ),
    "TFP101/bad_inplace_element_update.py:helper:1": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_inplace_element_update.py:method:1": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_mask_where.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_mask_where.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_module_helpers.py:alias:all": (
        "TFP101 loses its 3 findings when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP101/bad_module_helpers.py:helper:0": (
        "TFP101 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_module_helpers.py:helper:1": (
        "TFP101 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_module_helpers.py:method:0": (
        "TFP101 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_module_helpers.py:method:1": (
        "TFP101 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_nested_elementwise.py:helper:1": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_nested_elementwise.py:method:1": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_onehot_dataset_labels.py:alias:all": (
        "TFP101 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP101/bad_onehot_dataset_labels.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_onehot_dataset_labels.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_per_row_search.py:alias:all": (
        "TFP101 finds 2 of 4 when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP101/bad_per_row_search.py:helper:0": (
        "TFP101 finds 3 of 4 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_per_row_search.py:method:0": (
        "TFP101 finds 3 of 4 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_random_fill.py:helper:1": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_random_fill.py:method:1": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_range_len_numpy.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_range_len_numpy.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_range_shape.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_range_shape.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_row_iteration.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_row_iteration.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_rows_from_calls.py:alias:all": (
        "TFP101 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP101/bad_rows_from_calls.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_rows_from_calls.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_running_window.py:helper:0": (
        "TFP101 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_running_window.py:helper:1": (
        "TFP101 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_running_window.py:helper:2": (
        "TFP101 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_running_window.py:method:0": (
        "TFP101 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_running_window.py:method:1": (
        "TFP101 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_running_window.py:method:2": (
        "TFP101 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_scatter.py:helper:0": (
        "TFP101 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_scatter.py:helper:1": (
        "TFP101 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_scatter.py:method:0": (
        "TFP101 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_scatter.py:method:1": (
        "TFP101 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_shifted_stencil.py:helper:1": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_shifted_stencil.py:method:1": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_sliding_windows.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_sliding_windows.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_tf_shape_range.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_tf_shape_range.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/bad_while_counter.py:helper:0": (
        "TFP101 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/bad_while_counter.py:method:0": (
        "TFP101 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/ok_display_loops.py:helper:0": (
        "TFP101 reports the near miss (1 finding) when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP101/ok_display_loops.py:method:0": (
        "TFP101 reports the near miss (1 finding) when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP101/ok_small_or_grouped.py:alias:all": (
        "TFP101 reports the near miss (2 findings) when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP101/ok_text_and_work_lists.py:rename:all": (
        "TFP101 reports the near miss (1 finding) when the module's own names are renamed (branch arrays)"
    ),
    # -- TFP102 (branch arrays)
    "TFP102/bad_batched_strided_helper.py:alias:all": (
        "TFP102 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP102/bad_batched_strided_helper.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_batched_strided_helper.py:helper:2": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_batched_strided_helper.py:helper:3": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_batched_strided_helper.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_batched_strided_helper.py:method:2": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_batched_strided_helper.py:method:3": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_conv1d_strided.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_conv1d_strided.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:helper:2": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:helper:3": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:method:2": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_conv_backward.py:method:3": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_depthwise.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_depthwise.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_depthwise.py:helper:2": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_depthwise.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_depthwise.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_depthwise.py:method:2": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_max_pool.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_max_pool.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_max_pool.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_max_pool.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_moving_average.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_moving_average.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:helper:2": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:helper:3": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:method:2": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_offset_loops.py:method:3": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_pool_backward.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_pool_backward.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_pool_backward.py:helper:2": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_pool_backward.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_pool_backward.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_pool_backward.py:method:2": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:alias:all": (
        "TFP102 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:helper:2": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:helper:3": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:method:2": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_pooling_modes.py:method:3": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_same_padded_tf.py:alias:all": (
        "TFP102 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP102/bad_same_padded_tf.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_same_padded_tf.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_same_padded_tf.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_same_padded_tf.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_strided_method_sum.py:alias:all": (
        "TFP102 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch arrays)"
    ),
    "TFP102/bad_strided_method_sum.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_strided_method_sum.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_strided_method_sum.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_strided_method_sum.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:helper:0": (
        "TFP102 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:helper:1": (
        "TFP102 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:helper:2": (
        "TFP102 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:helper:3": (
        "TFP102 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:method:0": (
        "TFP102 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:method:1": (
        "TFP102 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:method:2": (
        "TFP102 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_unrolled_stencil.py:method:3": (
        "TFP102 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_valid_window_sum.py:helper:0": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_valid_window_sum.py:helper:1": (
        "TFP102 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP102/bad_valid_window_sum.py:method:0": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP102/bad_valid_window_sum.py:method:1": (
        "TFP102 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    # -- TFP103 (branch arrays)
    "TFP103/bad_append_in_branches.py:helper:0": (
        "TFP103 loses its 4 findings when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP103/bad_append_in_branches.py:method:0": (
        "TFP103 loses its 4 findings when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP103/bad_concat_each_batch.py:helper:0": (
        "TFP103 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP103/bad_concat_each_batch.py:method:0": (
        "TFP103 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP103/bad_grid_rows.py:helper:0": (
        "TFP103 loses its 2 findings when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP103/bad_grid_rows.py:method:0": (
        "TFP103 loses its 2 findings when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP103/bad_numpy_growth.py:helper:0": (
        "TFP103 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP103/bad_numpy_growth.py:helper:1": (
        "TFP103 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP103/bad_numpy_growth.py:helper:2": (
        "TFP103 finds 2 of 3 when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP103/bad_numpy_growth.py:method:0": (
        "TFP103 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP103/bad_numpy_growth.py:method:1": (
        "TFP103 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP103/bad_numpy_growth.py:method:2": (
        "TFP103 finds 2 of 3 when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP103/bad_restack_growing_list.py:helper:0": (
        "TFP103 loses the finding when the loop's body moves into a helper function called in the loop (branch arrays)"
    ),
    "TFP103/bad_restack_growing_list.py:method:0": (
        "TFP103 loses the finding when the loop moves into a method calling its body as `self.step()` (branch arrays)"
    ),
    "TFP103/ok_few_iterations.py:range:all": (
        "TFP103 reports the near miss (1 finding) when `range(n)` is written `range(0, n)` (branch arrays)"
    ),
    # -- TFP201 (branch steps)
    "TFP201/bad_agent_train_param.py:rename:all": (
        "TFP201 loses the finding when the module's own names are renamed (branch steps)"
    ),
    "TFP201/bad_hazard_python_counter.py:helper:0": (
        "TFP201 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP201/bad_hazard_python_counter.py:method:0": (
        "TFP201 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_hazard_python_counter.py:method:1": (
        "TFP201 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_implicit_gradients.py:alias:all": (
        "TFP201 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP201/bad_implicit_gradients.py:helper:1": (
        "TFP201 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP201/bad_implicit_gradients.py:method:1": (
        "TFP201 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_inline_gan.py:helper:1": (
        "TFP201 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP201/bad_inline_gan.py:method:1": (
        "TFP201 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_inline_reused_tape_name.py:helper:0": (
        "TFP201 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP201/bad_inline_reused_tape_name.py:method:0": (
        "TFP201 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_keras_train_step_by_hand.py:method:0": (
        "TFP201 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_method_of_instance.py:alias:all": (
        "TFP201 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP201/bad_method_self_call.py:method:0": (
        "TFP201 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_step_passed_as_callable.py:alias:all": (
        "TFP201 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP201/bad_step_passed_as_callable.py:helper:0": (
        "TFP201 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP201/bad_step_passed_as_callable.py:method:0": (
        "TFP201 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP201/bad_tape_passed_to_method.py:alias:all": (
        "TFP201 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP201/ok_framework_method.py:helper:0": (
        "TFP201 reports the near miss (1 finding) when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP201/ok_inline_small_loop.py:alias:all": (
        "TFP201 reports the near miss (2 findings) when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    # -- TFP202 (branch steps)
    "TFP202/bad_cv_factory.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_cv_factory.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_layer_per_batch.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_layer_per_batch.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_layer_per_batch.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_library_factory_fit.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_library_factory_fit.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_library_factory_fit.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_model_per_batch.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_model_per_batch.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_model_per_batch.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_reload_weights.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_reload_weights.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_reload_weights.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_search_import_later.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_search_no_clear.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_search_shared_base.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_tf1_builder_fetched_with_reuse.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf1_builder_fetched_with_reuse.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_tf1_graph.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf1_graph.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_tf1_graph_builder.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_tf1_graph_builder.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf1_graph_builder.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_tf1_graph_growth.py:helper:0": (
        "TFP202 finds 1 of 3 when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf1_graph_growth.py:method:0": (
        "TFP202 finds 1 of 3 when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_tf1_graph_per_trial.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_tf1_graph_per_trial.py:helper:1": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf1_graph_per_trial.py:method:1": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_tf1_helper_ops_per_call.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_tf1_helper_ops_per_call.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf1_helper_ops_per_call.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_tf_function_in_loop.py:alias:all": (
        "TFP202 loses its 2 findings when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_tf_function_in_loop.py:helper:0": (
        "TFP202 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf_function_in_loop.py:helper:1": (
        "TFP202 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_tf_function_in_loop.py:method:0": (
        "TFP202 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_tf_function_in_loop.py:method:1": (
        "TFP202 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_trial_function.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_trial_through_helper.py:alias:all": (
        "TFP202 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP202/bad_trial_through_helper.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_trial_through_helper.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/bad_variable_per_step.py:helper:0": (
        "TFP202 loses the finding when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/bad_variable_per_step.py:method:0": (
        "TFP202 loses the finding when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP202/ok_ensemble_kept.py:helper:0": (
        "TFP202 reports the near miss (1 finding) when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP202/ok_ensemble_kept.py:method:0": (
        "TFP202 reports the near miss (1 finding) when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    # -- TFP203 (branch steps)
    "TFP203/bad_cast_step.py:alias:all": (
        "TFP203 finds 1 of 2 when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP203/bad_cast_step.py:helper:0": (
        "TFP203 loses its 2 findings when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP203/bad_cast_step.py:method:0": (
        "TFP203 loses its 2 findings when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP203/bad_learning_rate.py:alias:all": (
        "TFP203 loses its 2 findings when the module's names are read through aliases (`x_alias = x`) (branch steps)"
    ),
    "TFP203/bad_learning_rate.py:helper:0": (
        "TFP203 finds 1 of 2 when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP203/bad_learning_rate.py:helper:1": (
        "TFP203 loses its 2 findings when the loop's body moves into a helper function called in the loop (branch steps)"
    ),
    "TFP203/bad_learning_rate.py:method:0": (
        "TFP203 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP203/bad_learning_rate.py:method:1": (
        "TFP203 loses its 2 findings when the loop moves into a method calling its body as `self.step()` (branch steps)"
    ),
    "TFP203/bad_learning_rate.py:to_function:module": (
        "TFP203 finds 1 of 2 when the module's code moves into a function (branch steps)"
    ),
    # -- TFP401 (branch data)
    "TFP401/bad_builder_function.py:alias:all": (
        "TFP401 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP401/bad_cached_after_decoding.py:alias:all": (
        "TFP401 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP401/bad_helper_pipeline.py:alias:all": (
        "TFP401 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP401/bad_helper_pipeline.py:helper:0": (
        "TFP401 loses the finding when the loop's body moves into a helper function called in the loop (branch data)"
    ),
    "TFP401/bad_helper_pipeline.py:method:0": (
        "TFP401 loses the finding when the loop moves into a method calling its body as `self.step()` (branch data)"
    ),
    "TFP401/bad_python_generator.py:alias:all": (
        "TFP401 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP401/bad_python_generator.py:helper:1": (
        "TFP401 loses the finding when the loop's body moves into a helper function called in the loop (branch data)"
    ),
    "TFP401/bad_python_generator.py:method:1": (
        "TFP401 loses the finding when the loop moves into a method calling its body as `self.step()` (branch data)"
    ),
    "TFP401/bad_reassigned.py:alias:all": (
        "TFP401 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP401/bad_tf1_iterator.py:helper:0": (
        "TFP401 loses the finding when the loop's body moves into a helper function called in the loop (branch data)"
    ),
    "TFP401/bad_tf1_iterator.py:method:0": (
        "TFP401 loses the finding when the loop moves into a method calling its body as `self.step()` (branch data)"
    ),
    "TFP401/bad_tf1_iterator.py:rename:all": (
        "TFP401 loses the finding when the module's own names are renamed (branch data)"
    ),
    "TFP401/bad_tfds_builder.py:alias:all": (
        "TFP401 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP401/bad_tuple_builder.py:alias:all": (
        "TFP401 loses its 2 findings when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    # -- TFP402 (branch data)
    "TFP402/bad_augment_lambda.py:alias:all": (
        "TFP402 finds 1 of 2 when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/bad_decode_resize.py:alias:all": (
        "TFP402 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/bad_shown_then_trained.py:alias:all": (
        "TFP402 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/bad_tf1_spelling.py:alias:all": (
        "TFP402 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/bad_tfds_split_list.py:alias:all": (
        "TFP402 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/bad_tokenizer_after_batching.py:alias:all": (
        "TFP402 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/bad_tokenizer_layer.py:alias:all": (
        "TFP402 loses the finding when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/ok_map_inside_parallel_interleave.py:alias:all": (
        "TFP402 reports the near miss (1 finding) when the module's names are read through aliases (`x_alias = x`) (branch data)"
    ),
    "TFP402/ok_shown_each_element.py:helper:0": (
        "TFP402 reports the near miss (1 finding) when the loop's body moves into a helper function called in the loop (branch data)"
    ),
    "TFP402/ok_shown_each_element.py:method:0": (
        "TFP402 reports the near miss (1 finding) when the loop moves into a method calling its body as `self.step()` (branch data)"
    ),
    # -- TFP403 (the lead, on main)
    "TFP403/bad_agent_in_module_env_loop.py:helper:1": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_agent_in_module_env_loop.py:method:1": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_agent_policy_probabilities.py:alias:all": (
        "TFP403 loses the finding when the module's names are read through aliases (`x_alias = x`) (the lead, on main)"
    ),
    "TFP403/bad_agent_predict_wrapper.py:helper:1": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_agent_predict_wrapper.py:method:1": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_autoregressive_text.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_autoregressive_text.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_callback_while.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_callback_while.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_expand_dims.py:helper:0": (
        "TFP403 finds 1 of 2 when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_expand_dims.py:method:0": (
        "TFP403 finds 1 of 2 when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_helper_batch_at_call.py:alias:all": (
        "TFP403 loses the finding when the module's names are read through aliases (`x_alias = x`) (the lead, on main)"
    ),
    "TFP403/bad_helper_batch_at_call.py:helper:1": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_helper_batch_at_call.py:method:1": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_helper_predict.py:alias:all": (
        "TFP403 loses the finding when the module's names are read through aliases (`x_alias = x`) (the lead, on main)"
    ),
    "TFP403/bad_helper_predict.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_helper_predict.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_loop_invariant.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_loop_invariant.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_model_call_per_item.py:alias:all": (
        "TFP403 loses the finding when the module's names are read through aliases (`x_alias = x`) (the lead, on main)"
    ),
    "TFP403/bad_model_call_per_item.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_model_call_per_item.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_passed_model_dict_input.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_passed_model_dict_input.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_replay_per_transition.py:helper:0": (
        "TFP403 loses its 2 findings when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_replay_per_transition.py:method:0": (
        "TFP403 loses its 2 findings when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_result_row_zero.py:alias:all": (
        "TFP403 loses the finding when the module's names are read through aliases (`x_alias = x`) (the lead, on main)"
    ),
    "TFP403/bad_result_row_zero.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_result_row_zero.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_rl_env_step.py:helper:1": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_rl_env_step.py:method:1": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_slice_per_sample.py:helper:0": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_slice_per_sample.py:method:0": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
    "TFP403/bad_two_model_factories.py:helper:1": (
        "TFP403 loses the finding when the loop's body moves into a helper function called in the loop (the lead, on main)"
    ),
    "TFP403/bad_two_model_factories.py:method:1": (
        "TFP403 loses the finding when the loop moves into a method calling its body as `self.step()` (the lead, on main)"
    ),
}

# The split rewrite moves a module's functions and classes to a second module:
# these lose (or gain) findings until the project index resolves the import.
NEEDS_INDEX = {
    "TFP101/bad_module_helpers.py",
    "TFP101/bad_onehot_dataset_labels.py",
    "TFP101/bad_rows_from_calls.py",
    "TFP201/bad_hazard_creates_optimizer.py",
    "TFP201/bad_method_of_instance.py",
    "TFP201/bad_outer_loop_argument.py",
    "TFP201/bad_tape_passed_to_method.py",
    "TFP201/ok_agent_learn_called_once.py",
    "TFP202/bad_model_per_batch.py",
    "TFP202/bad_reload_weights.py",
    "TFP202/bad_tf1_graph_per_trial.py",
    "TFP202/bad_trial_through_helper.py",
    "TFP303/bad_after_session.py",
    "TFP303/bad_session_in_helper.py",
    "TFP401/bad_cached_after_decoding.py",
    "TFP401/bad_helper_pipeline.py",
    "TFP401/bad_reassigned.py",
    "TFP401/bad_tfds_builder.py",
    "TFP401/bad_tuple_builder.py",
    "TFP402/bad_tf1_spelling.py",
    "TFP402/ok_map_inside_parallel_interleave.py",
    "TFP403/bad_helper_batch_at_call.py",
    "TFP403/ok_agent_called_once_here.py",
    "TFP403/ok_local_predict_method.py",
    "TFP403/ok_own_predict_method.py",
}
