"""Reading collapsed stacks for the test-data writers (write_jfr.py,
write_pprof.py, write_svg.py): plain or gzip, names kept byte for byte."""
import gzip


def read_collapsed(path):
    """Yields (frames, count) for each line of the file: frames root first."""
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                stack, _, count = line.rpartition(" ")
                yield stack.split(";"), int(count)
