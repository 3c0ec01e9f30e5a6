# Writes one corpus case: test/corpus/kernels/<name>/{kernel.ptx, case.json, data.bin}.
# case.json names the entry, the launch, and one arg per .param of the entry (in order); buffers
# point into data.bin for their input and expected bytes, with the tolerance of the comparison.
import json
import os
import shutil

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'test', 'corpus', 'kernels')

DTYPES = {'f16': np.float16, 'f32': np.float32, 'f64': np.float64, 'bf16': np.uint16,
          'i8': np.int8, 'u8': np.uint8, 'i16': np.int16, 'u16': np.uint16, 'i32': np.int32,
          'u32': np.uint32, 'i64': np.int64, 'u64': np.uint64}


def bf16_bits(x):
    """float32 -> bf16 bits, round to nearest even (NaN kept quiet)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, np.float32))
    r[nan] = 0x7FC0
    return r


def bf16_float(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


class Buf:
    """A device buffer: `data` is copied in (None: zero-filled `count` elements); `expect`, when
    given, is compared after the launch with `tol`: ('exact',) bit-equal, ('ulp', n), or
    ('close', rel, abs) meaning |got-want| <= abs + rel*|want| (NaN matches NaN)."""

    def __init__(self, dtype, data=None, count=None, expect=None, tol=('exact',)):
        self.dtype = dtype
        self.data = None if data is None else np.ascontiguousarray(data, DTYPES[dtype])
        self.count = count if data is None else self.data.size
        self.expect = None if expect is None else np.ascontiguousarray(expect, DTYPES[dtype])
        if self.expect is not None:
            assert self.expect.size == self.count, 'expect size'
        self.tol = tol


class TMap:
    """A CUtensorMap passed by value (`.param .align 64 .b8 [128]`), as Triton's launcher makes one
    for a host-side TensorDescriptor: the test harness allocates `buf` and encodes the map over it
    with the driver's cuTensorMapEncodeTiled and these arguments (cuda.h's order: dims, box and
    element strides innermost first, strides in bytes for dims 1..rank-1, enums as numbers)."""

    def __init__(self, buf, data_type, dims, strides, box, element_strides, interleave, swizzle, l2_promotion, oob_fill):
        self.buf = buf
        self.map = {'dataType': int(data_type), 'dims': [int(x) for x in dims], 'strides': [int(x) for x in strides],
                    'box': [int(x) for x in box], 'elementStrides': [int(x) for x in element_strides],
                    'interleave': int(interleave), 'swizzle': int(swizzle), 'l2Promotion': int(l2_promotion),
                    'oobFill': int(oob_fill)}


class Scalar:
    def __init__(self, value):
        self.value = value


class Scratch:
    """A zero-filled device buffer the kernel needs but nobody checks (Triton's scratch pointers)."""

    def __init__(self, nbytes):
        self.nbytes = nbytes


def write_case(name, source, ptx, entry, grid, block, shared, args, note=''):
    d = os.path.join(ROOT, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    blob = bytearray()

    def put(arr):
        while len(blob) % 16:
            blob.append(0)
        off = len(blob)
        blob.extend(arr.tobytes())
        return off

    def buffer(a):
        j = {'kind': 'buffer', 'dtype': a.dtype, 'count': int(a.count)}
        if a.data is not None:
            j['input'] = put(a.data)
        if a.expect is not None:
            j['expect'] = put(a.expect)
            j['tol'] = list(a.tol)
        return j

    out = []
    for a in args:
        if isinstance(a, Buf):
            out.append(buffer(a))
        elif isinstance(a, TMap):
            j = buffer(a.buf)
            j['kind'] = 'tensormap'
            j['map'] = a.map
            out.append(j)
        elif isinstance(a, Scratch):
            out.append({'kind': 'scratch', 'bytes': int(a.nbytes)})
        else:
            v = a.value
            out.append({'kind': 'scalar', 'value': float(v) if isinstance(v, float) else str(int(v))})
    with open(os.path.join(d, 'kernel.ptx'), 'w') as f:
        f.write(ptx)
    with open(os.path.join(d, 'data.bin'), 'wb') as f:
        f.write(bytes(blob))
    case = {'name': name, 'source': source, 'entry': entry, 'grid': list(grid), 'block': list(block),
            'shared': int(shared), 'args': out}
    if note:
        case['note'] = note
    with open(os.path.join(d, 'case.json'), 'w') as f:
        json.dump(case, f, indent=1)
        f.write('\n')
