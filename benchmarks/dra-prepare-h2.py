#!/usr/bin/env python3
"""The kubelet's NodePrepareResources over the plugin's unix socket, without a JVM: HTTP/2 with prior
knowledge written here frame by frame (one connection, one stream per call, literal HPACK headers), so
that the client costs a few Python lines per call in its own process and no JIT beside the plugin.
Each round prepares a new claim and unprepares it; only the prepares are timed, and each prepare's
answer must name the claim's CDI device (npu.huawei.com/npu=<uid>-...), else the script fails. Then
the same for an empty NodePrepareResources (the gRPC round trip alone, answered at once).
Usage: dra-prepare-h2.py SOCKET ROUNDS WARM      (called by benchmarks/dra-prepare-h2.sh)
"""
import socket
import struct
import sys
import time

PATH = "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):  # HPACK: literal header field without indexing, new name, no Huffman
    n, v = name.encode(), value.encode()
    assert len(n) < 127 and len(v) < 127
    return b"\x00" + bytes([len(n)]) + n + bytes([len(v)]) + v


def field(number, value):  # protobuf: length-delimited field
    return bytes([number << 3 | 2, len(value)]) + value


def claims(uid):
    return field(1, field(1, b"bench") + field(2, uid.encode()) + field(3, b"c"))


class Channel:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""
        self.stream = 1
        self.s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0))

    def read(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise SystemExit("dra-prepare-h2.py: the plugin closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def call(self, method, message):
        sid = self.stream
        self.stream += 2
        headers = b"".join(
            literal(k, v)
            for k, v in ((":method", "POST"), (":scheme", "http"), (":path", PATH + method),
                         (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers")))
        body = b"\0" + struct.pack(">I", len(message)) + message
        t0 = time.perf_counter_ns()
        self.s.sendall(frame(1, 4, sid, headers) + frame(0, 1, sid, body))
        data = b""
        while True:
            h = self.read(9)
            length, kind, flags, stream = int.from_bytes(h[:3], "big"), h[3], h[4], struct.unpack(">I", h[5:])[0] & 0x7FFFFFFF
            payload = self.read(length)
            if kind == 4 and not flags & 1:
                self.s.sendall(frame(4, 1, 0))  # SETTINGS ack
            elif kind == 6 and not flags & 1:
                self.s.sendall(frame(6, 1, 0, payload))  # PING ack
            elif kind == 0 and length:
                self.s.sendall(frame(8, 0, 0, struct.pack(">I", length)))  # give the connection window back
            elif kind == 7:
                raise SystemExit("dra-prepare-h2.py: GOAWAY from the plugin")
            elif kind == 3 and stream == sid:
                raise SystemExit("dra-prepare-h2.py: the plugin reset stream %d" % sid)
            if kind == 0 and stream == sid:
                data += payload
            if stream == sid and kind in (0, 1) and flags & 1:
                return (time.perf_counter_ns() - t0) / 1e6, data


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def report(what, xs):
    print("%-40s p50 %.3f / p90 %.3f / p99 %.3f ms, %d calls" % (what, pct(xs, .5), pct(xs, .9), pct(xs, .99), len(xs)))


def main():
    sock, rounds, warm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    ch = Channel(sock)
    n = 0
    times = []
    for i in range(warm + rounds):
        uid = "%08d-0000-4000-8000-00000000c0de" % n
        n += 1
        took, answer = ch.call("NodePrepareResources", claims(uid))
        if b"npu.huawei.com/npu=" + uid.encode() not in answer:
            raise SystemExit("dra-prepare-h2.py: prepare of %s answered %r" % (uid, answer))
        ch.call("NodeUnprepareResources", claims(uid))
        if i >= warm:
            times.append(took)
    report("NodePrepareResources (no JVM client)", times)
    times = []
    for i in range(warm + rounds):
        took, _ = ch.call("NodePrepareResources", b"")
        if i >= warm:
            times.append(took)
    report("empty NodePrepareResources (gRPC alone)", times)


main()
