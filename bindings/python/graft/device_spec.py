"""graft.DeviceSpec: a (partial) device specification, "/job:ps/replica:0/task:1/device:GPU:0"."""
import re

_COMPONENT = re.compile(r"^/?(?:(job|replica|task|device|cpu|gpu):)?(.*)$", re.I)


class DeviceSpec:
    """Job, replica, task, device type and index; any may be unset (None)."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = job
        self._replica = None if replica is None else int(replica)
        self._task = None if task is None else int(task)
        self._device_type = _canonical_type(device_type)
        self._device_index = None if device_index is None else int(device_index)

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    @classmethod
    def from_string(cls, spec):
        return cls(*cls._parse(spec))

    @staticmethod
    def _parse(spec):
        job = replica = task = device_type = device_index = None
        for part in (spec or "").split("/"):
            if not part:
                continue
            ly = part.split(":")
            key = ly[0].lower()
            if len(ly) == 2 and key == "job":
                job = ly[1]
            elif len(ly) == 2 and key == "replica":
                replica = int(ly[1])
            elif len(ly) == 2 and key == "task":
                task = int(ly[1])
            elif len(ly) == 3 and key == "device":
                device_type = ly[1]
                device_index = None if ly[2] == "*" else int(ly[2])
            elif len(ly) == 2 and key == "device":
                device_type = ly[1]
            elif len(ly) == 2 and key in ("cpu", "gpu"):
                device_type = key
                device_index = None if ly[1] == "*" else int(ly[1])
            elif len(ly) == 1 and key in ("cpu", "gpu"):
                device_type = key
            else:
                raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
        return job, replica, task, device_type, device_index

    def parse_from_string(self, spec):
        return DeviceSpec.from_string(spec)

    def make_merged_spec(self, dev):
        return self.__class__(*self._merged(dev))

    def _merged(self, dev):
        if isinstance(dev, str):
            dev = DeviceSpec.from_string(dev)
        pick = lambda a, b: b if b is not None else a  # noqa: E731
        return (pick(self._job, dev.job), pick(self._replica, dev.replica), pick(self._task, dev.task),
                pick(self._device_type, dev.device_type), pick(self._device_index, dev.device_index))

    def merge_from(self, dev):
        """Fills this spec's fields from dev where dev has them set (old in-place API)."""
        (self._job, self._replica, self._task, self._device_type, self._device_index) = self._merged(dev)

    def replace(self, **kwargs):
        fields = dict(job=self._job, replica=self._replica, task=self._task, device_type=self._device_type,
                      device_index=self._device_index)
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def to_string(self):
        out = ""
        if self._job is not None:
            out += f"/job:{self._job}"
        if self._replica is not None:
            out += f"/replica:{self._replica}"
        if self._task is not None:
            out += f"/task:{self._task}"
        if self._device_type is not None:
            out += f"/device:{self._device_type}:{'*' if self._device_index is None else self._device_index}"
        return out

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"<DeviceSpec {self.to_string()!r}>"

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())


def _canonical_type(device_type):
    if device_type is None:
        return None
    if device_type.upper() in ("CPU", "GPU"):
        return device_type.upper()
    return device_type
