#!/usr/bin/env python3
"""Seeds for fuzz_image (fuzz/fuzz_image.c): small ELF files of both
classes, a libxdc page cache, and lists of additions. Each seed ends with
the byte that picks its kind (0 ELF, 1 page cache, 2 additions), after the
parameters fuzz_take reads from the end.
usage: gen_image_seeds.py CORPUS_DIR"""
import struct
import sys


def elf(is64, loads):
    """An ELF with the given (offset, vaddr, filesz) PT_LOADs and a PT_NOTE."""
    eh, ph = (64, 56) if is64 else (52, 32)
    phdrs = [(1, o, v, f) for o, v, f in loads] + [(4, 0, 0, 0)]
    head = bytearray(0x400)
    head[0:7] = b"\x7fELF" + bytes([2 if is64 else 1, 1, 1])
    if is64:
        struct.pack_into("<QHH", head, 32, eh, 0, 0)
        struct.pack_into("<HH", head, 54, ph, len(phdrs))
    else:
        struct.pack_into("<I", head, 28, eh)
        struct.pack_into("<HH", head, 42, ph, len(phdrs))
    for k, (t, o, v, f) in enumerate(phdrs):
        at = eh + k * ph
        if is64:
            struct.pack_into("<IIQQQQ", head, at, t, 5, o, v, v, f)
        else:
            struct.pack_into("<IIIII", head, at, t, o, v, v, f)
    for i in range(0x200, 0x400):
        head[i] = (i * 7) & 0xFF
    return bytes(head)


def main():
    out = sys.argv[1]
    seeds = {
        # ELF: the file, then (base drawn or not) and the kind byte
        "seed-elf64": elf(True, [(0x200, 0x400000, 0x40), (0x300, 0x401000, 0x20)]) + b"\x00\x00",
        "seed-elf64-based": elf(True, [(0x200, 0x400000, 0x40)]) + b"\x12\x34\x56\x78\x01\x00",
        "seed-elf32": elf(False, [(0x200, 0x8048000, 0x80)]) + b"\x00\x00",
        "seed-elf-big-endian": elf(True, [])[:5] + b"\x02" + elf(True, [])[6:] + b"\x00\x00",
        # a page cache: two adjacent pages, an unmapped one, a duplicate; addr_size 32 (2 bytes), kind 1
        "seed-pagecache": struct.pack("<4Q", 0x401000, 0x402000, 0x403001, 0x401000)
        + bytes((i * 3) & 0xFF for i in range(4 * 4096)) + struct.pack(">H", 32) + b"\x01",
        # additions: (base hi, base lo, size, size/offset, offset) records, kind 2
        "seed-additions-split": bytes([0x10, 0x00, 0x40, 0x00, 0x00, 0x10, 0x80, 0x01, 0x00, 0x10]) + b"\x02",
        "seed-additions-many": bytes(b for k in range(12) for b in (k * 3, 0, 0x08, 0x00, k)) + b"\x02",
    }
    for name, data in seeds.items():
        with open(f"{out}/{name}", "wb") as f:
            f.write(data)


main()
