"""What a TFP102 finding says: the op that replaces the nest (headline), its layout,
padding and stride (detail)."""

from __future__ import annotations

from typing import List, Tuple

from tflint_perf.analysis.convolution import Convolution, ConvOp
from tflint_perf.engine.headline import HEADLINE as LIMIT
from tflint_perf.engine.headline import fit_headline

_LAYOUTS = {1: ("NWC", "WIO", "1D"), 2: ("NHWC", "HWIO", "2D"), 3: ("NDHWC", "DHWIO", "3D")}


def describe(conv: Convolution) -> Tuple[str, str]:
    """(headline, detail)."""
    dims = max(len(conv.spatial), 1)
    ops = _ops(conv, dims)
    for loops in (_loops(conv), "Loops"):
        for what in (_what(conv, dims), _what(conv, dims, short=True)):
            text = f"{loops} compute {what}: use {ops[0]}"
            if len(text) <= LIMIT:
                return text, _detail(conv, dims, ops)
    headline = fit_headline(
        f"Loops compute {_what(conv, dims, short=True)}: use {ops[0]}",
        f"Loops compute {_what(conv, dims, short=True).replace(' max/average', '')}: use {ops[0]}",
        f"Loops compute {_what(conv, dims, short=True)}: use the op below",
    )
    return headline, _detail(conv, dims, ops)


def _loops(conv: Convolution) -> str:
    # (every loop of the nest is a range loop over a name)
    names = [loop.target.value for loop in conv.loops if hasattr(loop.target, "value")]
    if len(names) == 1:
        return f"Loop over `{names[0]}` and its windows"
    return f"Nested loops over {_listing(names)}"


def _listing(names: list) -> str:
    quoted = [f"`{n}`" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _what(conv: Convolution, dims: int, short: bool = False) -> str:
    image = f"`{conv.image}`"
    kernel = f" with `{conv.kernel}`" if conv.kernel and not short else ""
    depthwise = "depthwise " if conv.depthwise else ""
    if short and conv.op is ConvOp.POOL_BACKWARD:
        return f"a {dims}-D pooling gradient into {image}"
    if short and conv.op is ConvOp.CONV_BACKWARD:
        return f"a {dims}-D convolution gradient"
    return {
        ConvOp.CONV: f"a {dims}-D {depthwise}convolution of {image}{kernel}",
        ConvOp.MAX_POOL: (
            f"a moving maximum of {image}" if dims == 1 else f"{dims}-D max pooling of {image}"
        ),
        ConvOp.AVG_POOL: (
            f"a moving average of {image}" if dims == 1 else f"{dims}-D average pooling of {image}"
        ),
        ConvOp.POOL: f"{dims}-D max/average pooling of {image}",
        ConvOp.CONV_BACKWARD: f"a {dims}-D convolution gradient over {image}",
        ConvOp.POOL_BACKWARD: f"a {dims}-D pooling or convolution gradient into {image}",
    }[conv.op]


def _ops(conv: Convolution, dims: int) -> List[str]:
    """The TensorFlow ops doing the whole nest, most specific first."""
    _, _, suffix = _LAYOUTS.get(dims, _LAYOUTS[2])
    if conv.op is ConvOp.CONV and conv.depthwise and dims == 2:
        return ["`tf.nn.depthwise_conv2d`", "`keras.layers.DepthwiseConv2D`"]
    if conv.op is ConvOp.CONV and dims == 1:
        return ["`tf.nn.conv1d`", "`keras.layers.Conv1D`"]
    if conv.op is ConvOp.CONV:
        return [f"`tf.nn.conv{dims}d`", "`tf.nn.convolution`", f"`keras.layers.Conv{suffix}`"]
    if conv.op is ConvOp.MAX_POOL:
        return [f"`tf.nn.max_pool{dims}d`", f"`keras.layers.MaxPooling{suffix}`"]
    if conv.op is ConvOp.AVG_POOL:
        return [f"`tf.nn.avg_pool{dims}d`", f"`keras.layers.AveragePooling{suffix}`"]
    if conv.op is ConvOp.POOL:
        return [f"`tf.nn.max_pool{dims}d` or `tf.nn.avg_pool{dims}d`"]
    return ["`tf.GradientTape` on the forward op"]


def _detail(conv: Convolution, dims: int, ops: List[str]) -> str:
    data, kernel, _ = _LAYOUTS.get(dims, _LAYOUTS[2])
    window = f"Window along {_listing(conv.spatial)}" if conv.spatial else "Window"
    facts = [window]
    if conv.size:
        facts.append(f"size `{conv.size}`")
    facts.append(f"{conv.padding} padding")
    if conv.stride != "1":
        facts.append(f"stride `{conv.stride}`")
    lines = [", ".join(facts) + "."]
    padding = f'`padding="{conv.padding}"`'
    strides = f", `strides={conv.stride}`" if conv.stride != "1" else ""
    if conv.op is ConvOp.CONV:
        layout = (
            f"{data} input, kernel [kh, kw, channels, 1]"
            if conv.depthwise and dims == 2
            else f"{data} input, {kernel} kernel"
        )
        lines.append(f"Use {' or '.join(ops)} ({layout}, {padding}{strides}).")
        if conv.kernel:
            lines.append(f"The kernel is `{conv.kernel}`.")
        lines.append("It computes a correlation (the kernel is not flipped), like the loops.")
    elif conv.op in (ConvOp.MAX_POOL, ConvOp.AVG_POOL, ConvOp.POOL):
        ksize = f", `ksize={conv.size}`" if conv.size else ""
        lines.append(f"Use {' or '.join(ops)} ({data} input{ksize}, {padding}{strides}).")
        if conv.op is ConvOp.AVG_POOL and dims == 1 and conv.size:
            lines.append(
                f'Or `np.convolve({conv.image}, np.ones({conv.size}) / {conv.size}, mode="valid")`.'
            )
    else:
        forward = (
            f"`tf.nn.conv{dims}d`"
            if conv.op is ConvOp.CONV_BACKWARD
            else (f"`tf.nn.max_pool{dims}d` or `tf.nn.avg_pool{dims}d`")
        )
        lines.append(
            f"Compute the forward pass with {forward} ({data} input) and let "
            "`tf.GradientTape` compute this gradient."
        )
    if conv.padding == "SAME":
        lines.append(f"`{conv.image}` is the padded input: pass the input before padding.")
    return "\n".join(lines)
