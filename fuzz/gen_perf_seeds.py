#!/usr/bin/env python3
"""Structural seeds for fuzz_perfdata (SPEC.md part 6) that ptsim's
perf.data does not have: pipe mode, Intel PT carried in samples
(PERF_SAMPLE_AUX), and every sideband record the reader parses, each
around a short raw trace taken from a perf.data ptsim wrote.
usage: gen_perf_seeds.py PTSIM_PERF_DATA OUT_DIR"""
import struct
import sys


def record(rtype, body, misc=0):
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def records_of(data):
    """The data-section records of a file-mode perf.data, and its attr bytes."""
    attr_size, attrs_off, _, data_off, data_size = struct.unpack_from('<QQQQQ', data, 16)
    attr = data[attrs_off:attrs_off + attr_size - 16]
    pos, end, out = data_off, data_off + data_size, []
    while pos + 8 <= end:
        rtype, _, size = struct.unpack_from('<IHH', data, pos)
        total = size + (struct.unpack_from('<Q', data, pos + 8)[0] if rtype == 71 else 0)
        out.append(data[pos:pos + total])
        pos += total
    return attr, out


def main():
    src, out = sys.argv[1], sys.argv[2]
    data = open(src, 'rb').read()
    attr, recs = records_of(data)
    info = [r for r in recs if struct.unpack_from('<I', r)[0] == 70][0]
    aux = [r for r in recs if struct.unpack_from('<I', r)[0] == 71][0]
    pt = aux[48:48 + 512]
    sideband = [
        record(3, struct.pack('<II', 1000, 1000) + b'prog\0\0\0\0'),                        # COMM
        record(1, struct.pack('<IIQQQ', 1000, 1000, 0x400000, 0x1000, 0) + b'/bin/x\0\0'),  # MMAP
        record(10, struct.pack('<IIQQQ', 1000, 1000, 0x400000, 0x1000, 0) + bytes(24) +
               struct.pack('<II', 5, 2) + b'/bin/x\0\0'),                                   # MMAP2
        record(12, struct.pack('<II', 1000, 1000)),                                         # ITRACE_START
        record(11, struct.pack('<QQQ', 0, 4096, 1)),                                        # AUX, truncated
        record(2, struct.pack('<QQ', 1, 3)),                                                # LOST
        record(14, b'', misc=0x2000),                                                       # SWITCH out
        record(15, struct.pack('<II', 1001, 1001)),                                         # SWITCH_CPU_WIDE
        record(79, struct.pack('<QQQ', 0, 1, 0)),                                           # TIME_CONV
        record(72, struct.pack('<IIIIIIQ', 1, 2, 0, 1000, 1000, 0, 0x401000) + b'overflow'.ljust(64, b'\0')),
    ]
    # pipe mode: the attribute as a HEADER_ATTR record with its id, the CPUID feature
    cpuid = b'GenuineIntel,6,78,3\0'.ljust(24, b'\0')
    pipe = [record(64, attr + struct.pack('<Q', 1)),
            record(80, struct.pack('<QI', 9, len(cpuid)) + cpuid + bytes(4)),
            info] + sideband + [struct.pack('<IHHQ', 71, 0, 48, len(pt)) + aux[16:48] + pt]
    open(out + '/pipe-sideband.data', 'wb').write(b'PERFILE2' + struct.pack('<Q', 16) + b''.join(pipe))
    # AUX samples: sample_type IDENTIFIER | TID | TIME | AUX, one attr with id 1
    sattr = bytearray(attr)
    struct.pack_into('<Q', sattr, 24, (1 << 16) | (1 << 1) | (1 << 2) | (1 << 20))
    samples = [record(9, struct.pack('<QIIQQ', 1, 1000, 1000, 5000 + k, len(pt)) + pt) for k in range(2)]
    sp = [record(64, bytes(sattr) + struct.pack('<Q', 1)), info] + samples
    open(out + '/pipe-aux-samples.data', 'wb').write(b'PERFILE2' + struct.pack('<Q', 16) + b''.join(sp))


main()
