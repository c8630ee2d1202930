"""References that do not keep their target alive, so that nothing the window or a panel owns points back
to its owner: a dropped panel (or the closed window) is freed at once by its last reference, never later
by the cyclic collector — which, freeing Qt objects inside another widget's paint, crashed a test run."""
import weakref


def weakly(method, default=None):
    """``method`` (a bound method) called through a weak reference to its object; ``default`` once it is gone.
    For what a panel hands its own views and controls: a tooltip, a check, a slot with an argument."""
    ref = weakref.WeakMethod(method)

    def call(*args, **kwargs):
        bound = ref()
        return default if bound is None else bound(*args, **kwargs)
    return call


class WeakAttribute:
    """An attribute kept as a weak reference (reads None once its object is gone): ``window = WeakAttribute()``
    in the class of a part the window owns, which reaches the window without keeping it."""

    def __set_name__(self, owner, name):
        self.key = f"_weak_{name}"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        ref = obj.__dict__.get(self.key)
        return None if ref is None else ref()

    def __set__(self, obj, value):
        obj.__dict__[self.key] = weakref.ref(value)
