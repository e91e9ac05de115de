#!/usr/bin/env python3
"""A FastCGI responder on a unix socket that writes a multi-line message
on FCGI_STDERR (as PHP-FPM does with PHP warnings), then a 500 answer.

Used by tests/data/shapes/gen.sh to make NGINX write its multi-line
"FastCGI sent in stderr" error-log event.  Usage: fcgi_stderr.py SOCKET N
(answers N requests, then exits).
"""
import os
import socket
import struct
import sys

STDERR = ("PHP message: PHP Warning:  Undefined variable $user in "
          "/var/www/app/index.php on line 3\n"
          "PHP message: PHP Warning:  Trying to access array offset on value "
          "of type null in /var/www/app/index.php on line 3\n"
          "PHP message: PHP Fatal error:  Uncaught Error: Call to undefined "
          "function db_open()")


def record(kind, rid, data):
    """One FastCGI record (version 1), padded to 8 bytes."""
    pad = (8 - len(data) % 8) % 8
    return struct.pack("!BBHHBx", 1, kind, rid, len(data), pad) + data + b"\0" * pad


def serve(conn):
    """Read the request (until the empty FCGI_STDIN), answer it."""
    buf = b""
    rid = 1
    while True:
        while len(buf) < 8:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buf += chunk
        _, kind, rid, clen, plen = struct.unpack("!BBHHBx", buf[:8])
        while len(buf) < 8 + clen + plen:
            buf += conn.recv(65536)
        buf = buf[8 + clen + plen:]
        if kind == 5 and clen == 0:          # the end of FCGI_STDIN
            break
    out = b"Status: 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\nerror\n"
    conn.sendall(record(7, rid, STDERR.encode()) + record(7, rid, b"") +
                 record(6, rid, out) + record(6, rid, b"") +
                 record(3, rid, struct.pack("!IB3x", 0, 0)))


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o666)
    s.listen(8)
    for _ in range(n):
        conn, _ = s.accept()
        with conn:
            serve(conn)


if __name__ == "__main__":
    main()
