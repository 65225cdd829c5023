"""A small asyncio HTTP/1.1 and websocket client: just enough to play like a browser page.

The load benchmark opens hundreds of keep-alive connections and sockets from one process; a
client of a few dozen lines keeps its own cost (which shares the machine with the server) low
and its timings free of a library's machinery.
"""

import asyncio
import base64
import contextlib
import os
import struct


class Refused(Exception):
    """The server did not upgrade the websocket."""


class HTTPConnection:
    """A small keep-alive HTTP/1.1 client: enough for the act endpoint."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def request(self, method, path, body: bytes, headers: dict) -> tuple[int, dict, bytes]:
        """Send one request; return the status, the headers (lower-case names) and the body."""
        for attempt in range(2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                return await self._exchange(method, path, body, headers)
            except (OSError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise OSError("unreachable")

    async def _exchange(self, method, path, body, headers):
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 f"Content-Length: {len(body)}", "Connection: keep-alive"]  # fmt: skip
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        status_line = await self.reader.readline()
        if not status_line:  # the server closed a keep-alive connection it had left idle
            raise ConnectionResetError("the server closed the connection")
        status = int(status_line.split()[1])
        length, chunked, closing = None, False, False
        answer_headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin1").partition(":")
            name, value = name.strip().lower(), value.strip()
            answer_headers[name] = value
            value = value.lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value == "close":
                closing = True
        if chunked:
            content = b""
            while size := int((await self.reader.readline()).strip(), 16):
                content += await self.reader.readexactly(size + 2)
                content = content[:-2]
            await self.reader.readline()
        elif length is not None:
            content = await self.reader.readexactly(length)
        else:
            content, closing = await self.reader.read(), True
        if closing:
            self.close()
        return status, answer_headers, content

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class WebSocket:
    """A small RFC 6455 client: text messages in and out, answers pings."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.close_code: int | None = None  # None: no close frame (yet), or dropped (1006)

    @classmethod
    async def connect(cls, host, port, path, headers, source: str | None = None):
        """Open a websocket at `path`; from the local address `source`, if given (any
        127.x.y.z is the loopback: a client of another address, as a proxy sees it)."""
        local = (source, 0) if source else None
        reader, writer = await asyncio.open_connection(host, port, local_addr=local)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        lines += [f"{name}: {value}" for name, value in headers]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        status = await reader.readline()
        if b" 101 " not in status:
            raise Refused(f"websocket refused: {status!r}")
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        return cls(reader, writer)

    async def receive(self) -> str | None:
        message = b""
        while True:
            try:
                head = await self.reader.readexactly(2)
                length = head[1] & 0x7F
                if length == 126:
                    (length,) = struct.unpack("!H", await self.reader.readexactly(2))
                elif length == 127:
                    (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
                payload = await self.reader.readexactly(length)
            except (asyncio.IncompleteReadError, OSError):
                return None
            opcode = head[0] & 0x0F
            if opcode == 0x8:  # close: keep the server's code (e.g. 4404, or 1012 when restarting)
                self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                return None
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if head[0] & 0x80:
                return message.decode()

    def send(self, text: str):
        self._send_frame(0x1, text.encode())

    def _send_frame(self, opcode: int, data: bytes):
        if self.writer.is_closing():
            return  # the server closed it first (a page's heartbeat after a close): as a browser
        mask = os.urandom(4)
        if len(data) < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | len(data))
        elif len(data) < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, len(data))
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, len(data))
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(data))
        self.writer.write(header + mask + masked)

    def close(self, code: int | None = None):
        """Close the connection: with a close frame carrying `code` (a page that goes away,
        1001), or with none at all (a network that drops)."""
        if code is not None:
            with contextlib.suppress(OSError):  # already gone
                self._send_frame(0x8, struct.pack("!H", code))
        self.writer.close()
