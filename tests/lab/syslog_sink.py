#!/usr/bin/python3
"""Minimal UDP syslog sink for the lbtriage lab.

Usage: syslog_sink.py [--addr 127.0.0.1] [--ready FILE] PORT=FILE [PORT=FILE ...]

Binds one UDP socket per PORT and appends every datagram it receives to FILE
as one line, byte for byte (a trailing LF or NUL sent by the logger is
dropped, one LF is added).  Several ports may name the same FILE.  Writes the
FILE given with --ready once every socket is bound, and per-port datagram
counts to stderr when it gets SIGTERM or SIGINT.  Standard library only.
"""
import os
import selectors
import signal
import socket
import sys


def main(argv):
    addr = "127.0.0.1"
    ready = None
    maps = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--addr":
            addr = args.pop(0)
        elif a == "--ready":
            ready = args.pop(0)
        elif "=" in a:
            port, path = a.split("=", 1)
            maps.append((int(port), path))
        else:
            sys.stderr.write("syslog_sink: bad argument '%s'\n" % a)
            return 2
    if not maps:
        sys.stderr.write("usage: syslog_sink.py [--addr A] [--ready F] PORT=FILE...\n")
        return 2

    files = {}
    sel = selectors.DefaultSelector()
    counts = {}
    for port, path in maps:
        if path not in files:
            files[path] = open(path, "ab", buffering=0)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for opt in (33, socket.SO_RCVBUF):  # 33 = SO_RCVBUFFORCE (root)
            try:
                s.setsockopt(socket.SOL_SOCKET, opt, 8 << 20)
                break
            except OSError:
                continue
        s.bind((addr, port))
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, (port, files[path]))
        counts[port] = 0

    stop = []

    def on_signal(signum, frame):
        stop.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    if ready:
        with open(ready, "w") as f:
            f.write("%d\n" % os.getpid())

    while not stop:
        try:
            events = sel.select(timeout=0.5)
        except InterruptedError:
            continue
        for key, _ in events:
            port, f = key.data
            while True:
                try:
                    data = key.fileobj.recv(65535)
                except BlockingIOError:
                    break
                except InterruptedError:
                    continue
                data = data.rstrip(b"\n\0")
                f.write(data + b"\n")
                counts[port] += 1

    # drain what is already queued, without blocking
    for key in list(sel.get_map().values()):
        port, f = key.data
        while True:
            try:
                data = key.fileobj.recv(65535)
            except OSError:
                break
            f.write(data.rstrip(b"\n\0") + b"\n")
            counts[port] += 1
    for f in files.values():
        f.close()
    sys.stderr.write("syslog_sink: datagrams per port: %s\n" %
                     " ".join("%d=%d" % kv for kv in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
