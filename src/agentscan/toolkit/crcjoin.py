"""The CRC-32 of two pieces of bytes joined, from the two pieces' own CRCs.

A file read by halves on two cores (``claude/usagehalves``) keeps, in its
resume state, the CRC of every byte the one pass would have read; each half
takes the CRC of its own bytes, and this joins them without reading either
again.  It is zlib's ``crc32_combine`` (Python's ``zlib`` does not offer it):
appending ``length`` bytes to a message advances its CRC by a linear map over
GF(2), applied here by repeated squaring, so the cost grows with the log of
the length (about 4 ms for 600 MB, a few tens of thousands of operations on
32-bit integers).
"""

from __future__ import annotations

#: the CRC-32 polynomial, reflected (zlib's)
_POLYNOMIAL = 0xEDB88320


def _times(matrix: list[int], vector: int) -> int:
    total = 0
    row = 0
    while vector:
        if vector & 1:
            total ^= matrix[row]
        vector >>= 1
        row += 1
    return total


def _square(matrix: list[int]) -> list[int]:
    return [_times(matrix, matrix[row]) for row in range(32)]


def crc32_combine(first: int, second: int, second_length: int) -> int:
    """``zlib.crc32(a + b)`` from ``first = zlib.crc32(a)``, ``second = zlib.crc32(b)`` and
    ``second_length = len(b)``."""
    one_bit = [_POLYNOMIAL] + [1 << row for row in range(31)]  # the map of one zero bit
    zero_byte = _square(_square(_square(one_bit)))  # of eight
    # The map of ``second_length`` zero bytes applied to ``first``, a bit of the length at a time.
    length = second_length
    while length > 0:
        if length & 1:
            first = _times(zero_byte, first)
        length >>= 1
        if length:
            zero_byte = _square(zero_byte)
    return first ^ second
