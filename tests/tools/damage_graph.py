#!/usr/bin/env python3
"""Damages one entry of a git commit-graph file in place, as a disk or a
buggy writer might, for the tests of the walk's validation
(tests/sh/hotfiles_shapes.sh).  The file's trailing checksum is left as it
is: git does not verify it on reads either.

usage: damage_graph.py GRAPH COMMIT HOW
  COMMIT  the full hex id of the commit whose entry is changed
  HOW     self-parent   its first parent is itself
          parent-range  its first parent is a position past the last commit
          generation    its topological level is below its first parent's
          tree-bit      one bit of its tree id flipped
          cycle         its first parent is its child (the commit whose
                        first parent it is), and every level 0 (as graphs
                        written before git had levels): a cycle no level
                        check can see
"""
import struct
import sys


def main():
    path, commit, how = sys.argv[1], bytes.fromhex(sys.argv[2]), sys.argv[3]
    data = bytearray(open(path, "rb").read())
    if data[:4] != b"CGPH" or data[5] != 1:
        sys.exit("%s: not a SHA-1 commit-graph" % path)
    chunks = {}
    for i in range(data[6]):
        cid, off = struct.unpack_from(">4sQ", data, 8 + 12 * i)
        chunks[cid] = off
    fanout, oids, cdat = chunks[b"OIDF"], chunks[b"OIDL"], chunks[b"CDAT"]
    n = struct.unpack_from(">I", data, fanout + 255 * 4)[0]
    ids = [bytes(data[oids + 20 * i:oids + 20 * i + 20]) for i in range(n)]
    if commit not in ids:
        sys.exit("%s: %s is not in the graph" % (path, sys.argv[2]))
    pos = ids.index(commit)
    e = cdat + 36 * pos
    p1 = struct.unpack_from(">I", data, e + 20)[0]
    if how == "self-parent":
        struct.pack_into(">I", data, e + 20, pos)
    elif how == "parent-range":
        struct.pack_into(">I", data, e + 20, n + 5)
    elif how == "generation":
        if p1 >= n:
            sys.exit("the commit has no parent")
        # The level is the top 30 bits of the first word of the entry's
        # generation-and-date: make it the parent's, not one more.
        level = struct.unpack_from(">I", data, cdat + 36 * p1 + 28)[0] >> 2
        word = struct.unpack_from(">I", data, e + 28)[0]
        struct.pack_into(">I", data, e + 28, (level << 2) | (word & 3))
    elif how == "tree-bit":
        data[e + 7] ^= 0x10
    elif how == "cycle":
        child = [i for i in range(n) if struct.unpack_from(">I", data, cdat + 36 * i + 20)[0] == pos]
        if not child:
            sys.exit("the commit has no child in the graph")
        struct.pack_into(">I", data, e + 20, child[0])
        for i in range(n):
            word = struct.unpack_from(">I", data, cdat + 36 * i + 28)[0]
            struct.pack_into(">I", data, cdat + 36 * i + 28, word & 3)
    else:
        sys.exit("unknown damage: " + how)
    open(path, "wb").write(data)


main()
