"""graft.autograph: Python control flow on tensors as graph control flow (tf.autograph).

graft.function converts the functions it traces (autograph=True, the default): an `if`,
`while` or `for` whose condition or iterable is a tensor becomes graft.cond / graft.while_loop,
and so do `break`, `continue` and `return` inside them; `and`, `or`, `not`, `print`, `assert`
and `len` on tensors become ops; user functions they call are converted too. On Python values
the converted code does what Python does.

    graft.autograph.to_code(f)     # the converted source
    graft.autograph.to_graph(f)    # the converted function
"""
import types as _types

from graft.autograph.conversion import (ConversionError, do_not_convert, set_verbosity, to_code,  # noqa: F401
                                        to_graph)
from graft.autograph.operators import set_element_type, set_loop_options, stack  # noqa: F401

experimental = _types.ModuleType("graft.autograph.experimental")
experimental.do_not_convert = do_not_convert
experimental.set_loop_options = set_loop_options
experimental.set_element_type = set_element_type
experimental.stack = stack
