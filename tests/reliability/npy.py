"""A tiny .npy reader and writer (Python's standard library only).

write() builds a file from its parts, so that the catalogue can also write broken ones;
read() parses the well-formed files the tool writes (versions 1 to 3, little- or big-endian
numeric, bool and byte-string dtypes, C order) and raises NpyError for anything else.
"""

import ast
import struct

MAGIC = b"\x93NUMPY"

# dtype string (numpy's descr without the byte order) -> struct format of one element.
FORMATS = {"b1": "?", "i1": "b", "i2": "h", "i4": "i", "i8": "q", "u1": "B", "u2": "H", "u4": "I",
           "u8": "Q", "f2": "e", "f4": "f", "f8": "d", "c8": "ff", "c16": "dd"}


class NpyError(Exception):
    pass


def header_text(descr, shape, fortran_order=False):
    return "{'descr': %r, 'fortran_order': %s, 'shape': %r, }" % (descr, fortran_order, tuple(shape))


def write(descr, shape, payload, fortran_order=False, header=None, version=1, magic=MAGIC, hlen=None):
    """The bytes of a .npy file. header overrides the header text; hlen the declared length."""
    text = (header if header is not None else header_text(descr, shape, fortran_order)).encode("latin-1")
    pre = len(magic) + 2 + (2 if version == 1 else 4)
    pad = (-(pre + len(text) + 1)) % 64
    text += b" " * pad + b"\n"
    n = len(text) if hlen is None else hlen
    size = struct.pack("<H", n) if version == 1 else struct.pack("<I", n)
    return magic + bytes([version, 0]) + size + text + payload


def array(descr, shape, values):
    """A well-formed .npy file of numeric values (descr like '<f4')."""
    fmt = FORMATS[descr[1:]]
    flat = []
    for v in values:
        flat.extend([v.real, v.imag] if len(fmt) == 2 else [v])
    return write(descr, shape, struct.pack(descr[0] + fmt[0] * len(flat), *flat))


class Npy:
    """A parsed .npy file: dtype ('f4', 'i8', 'b1', ..., or 'S' for byte strings), shape, values."""

    def __init__(self, data):
        if data[:6] != MAGIC or len(data) < 10:
            raise NpyError("not a .npy file")
        version = data[6]
        if version == 1:
            (hlen,), start = struct.unpack_from("<H", data, 8), 10
        elif version in (2, 3):
            if len(data) < 12:
                raise NpyError("truncated preamble")
            (hlen,), start = struct.unpack_from("<I", data, 8), 12
        else:
            raise NpyError("unsupported version %d" % version)
        if len(data) < start + hlen:
            raise NpyError("truncated header")
        try:
            header = ast.literal_eval(data[start:start + hlen].decode("utf-8" if version == 3 else "latin-1"))
            descr, shape, fortran = header["descr"], tuple(header["shape"]), header["fortran_order"]
        except (ValueError, SyntaxError, KeyError, TypeError) as e:
            raise NpyError("malformed header: %s" % e)
        if fortran and len(shape) > 1:
            raise NpyError("Fortran order")
        order, kind = (descr[0], descr[1:]) if descr[0] in "<>|=" else ("=", descr)
        endian = ">" if order == ">" else "<"
        count = 1
        for d in shape:
            count *= d
        payload = data[start + hlen:]
        self.shape = shape
        if kind[0] in "SU":
            width = int(kind[1:]) * (4 if kind[0] == "U" else 1)
            if len(payload) != count * width:
                raise NpyError("%d data bytes, expected %d" % (len(payload), count * width))
            items = [payload[i * width:(i + 1) * width] for i in range(count)]
            if kind[0] == "U":
                items = [b.decode("utf-32-be" if endian == ">" else "utf-32-le").encode("utf-8") for b in items]
            self.dtype, self.values = "S", [b.rstrip(b"\0") for b in items]
            return
        fmt = FORMATS.get(kind)
        if fmt is None:
            raise NpyError("unsupported dtype %r" % descr)
        size = struct.calcsize("<" + fmt)
        if len(payload) != count * size:
            raise NpyError("%d data bytes, expected %d" % (len(payload), count * size))
        flat = struct.unpack(endian + fmt * count, payload)
        if len(fmt) == 2:
            flat = [complex(flat[2 * i], flat[2 * i + 1]) for i in range(count)]
        self.dtype, self.values = kind, list(flat)


def read(path):
    with open(path, "rb") as f:
        return Npy(f.read())
