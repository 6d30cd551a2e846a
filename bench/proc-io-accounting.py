import os, mmap, sys
def wb():
    d = dict(l.split(": ") for l in open("/proc/self/io").read().strip().split("\n"))
    return int(d["write_bytes"]), int(d["cancelled_write_bytes"])
def case(name, path, flags, n=16, fsync=False, delete=False):
    a = wb()
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC | flags, 0o600)
    buf = mmap.mmap(-1, 1 << 20)  # page-aligned 1 MiB buffer
    buf.write(b"x" * (1 << 20))
    for _ in range(n):
        os.write(fd, buf)
    if fsync: os.fsync(fd)
    os.close(fd)
    if delete: os.unlink(path)
    b = wb()
    print(f"{name}: wrote {n} MiB; write_bytes +{(b[0]-a[0])>>10} KiB, cancelled +{(b[1]-a[1])>>10} KiB")
    if not delete: os.unlink(path)
for d in sys.argv[1:]:
    p = os.path.join(d, "speed-io-test.bin")
    case(f"{d} buffered, no fsync", p, 0)
    case(f"{d} buffered + fsync", p, 0, fsync=True)
    case(f"{d} buffered, deleted before writeback", p, 0, delete=True)
    try:
        case(f"{d} O_DIRECT", p, os.O_DIRECT)
    except OSError as e:
        print(f"{d} O_DIRECT: open/write failed: {e}")
