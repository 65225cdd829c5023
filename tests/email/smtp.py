"""A real SMTP server for tests (aiosmtpd on a free loopback port), keeping what it receives."""

import contextlib
import email
import email.policy
import threading
import time
from collections.abc import Iterator

from aiosmtpd.controller import Controller

from infra.services import free_port


class Inbox:
    """The messages the server accepted, parsed, in arrival order."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[email.message.EmailMessage]:
        with self._lock:
            return [m for m in self.messages if address in m["To"]]

    def wait_for(self, predicate, timeout: float = 20.0):
        """Return the first message matching `predicate`, waiting up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                found = [m for m in self.messages if predicate(m)]
            if found:
                return found[0]
            time.sleep(0.05)
        subjects = [m["Subject"] for m in self.messages]
        raise AssertionError(f"no such email within {timeout} s; received: {subjects}")


@contextlib.contextmanager
def smtp_server(inbox: Inbox | None = None) -> Iterator[tuple[Inbox, int]]:
    """Run an SMTP server on 127.0.0.1 that keeps what it receives in `inbox` (a new Inbox by
    default); yield the inbox and the port."""
    inbox = inbox or Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def text_part(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def html_part(message) -> str:
    return message.get_body(preferencelist=("html",)).get_content()
