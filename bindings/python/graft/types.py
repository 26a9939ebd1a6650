"""graft.types.experimental: the abstract types of callables, as tf.types.experimental names them."""
import types as _stdtypes


class Callable:
    """Something that can be called like a function (a traced function, a concrete function)."""

    def __call__(self, *args, **kwargs):
        raise NotImplementedError


class GenericFunction(Callable):
    """A polymorphic function (graft.function): concrete functions per input signature."""

    def get_concrete_function(self, *args, **kwargs):
        raise NotImplementedError

    def experimental_get_tracing_count(self):
        raise NotImplementedError


class ConcreteFunction(Callable):
    """One traced graph function."""


experimental = _stdtypes.SimpleNamespace(Callable=Callable, GenericFunction=GenericFunction,
                                         ConcreteFunction=ConcreteFunction)
