#!/usr/bin/env python3
"""Status lists for the tests, made apart from tokenverify's Swift code: Python's own zlib and the
Token Status List draft's packing (entry i of `bits` bits at bit (i * bits) % 8 of byte
(i * bits) // 8, least significant bits first). Seeded, so the file it writes is the same on
every run: `python3 make_lists.py > lists.json`."""

import base64
import json
import random
import zlib


def pack(statuses: list[int], bits: int) -> bytes:
    """The byte array of `statuses`, `bits` bits each, LSB first."""
    out = bytearray((len(statuses) * bits + 7) // 8)
    for index, status in enumerate(statuses):
        position = index * bits
        out[position // 8] |= status << (position % 8)
    return bytes(out)


def make(seed: int, bits: int, size: int, non_zero: int, level: int) -> dict[str, object]:
    """One list: `non_zero` random entries set to random non-zero statuses, compressed at `level`."""
    chooser = random.Random(seed)
    statuses = [0] * size
    for index in chooser.sample(range(size), non_zero):
        statuses[index] = chooser.randrange(1, 1 << bits)
    compressed = zlib.compress(pack(statuses, bits), level)
    return {
        "bits": bits,
        "size": size,
        "zlib_level": level,
        "lst": base64.urlsafe_b64encode(compressed).rstrip(b"=").decode(),
        "non_zero": [[index, status] for index, status in enumerate(statuses) if status],
    }


def main() -> None:
    lists = []
    for seed, (bits, size, non_zero, level) in enumerate(
        [(1, 1 << 20, 400, 9), (2, 1 << 18, 300, 6), (4, 1 << 16, 300, 1), (8, 1 << 14, 300, 9),
         (1, 4096, 2000, 0), (8, 3000, 2500, 0), (2, 1, 1, 9), (4, 5, 0, 9)]
    ):
        lists.append(make(seed, bits, size, non_zero, level))
    print(json.dumps({"generator": "make_lists.py", "lists": lists}, separators=(",", ":")))


if __name__ == "__main__":
    main()
