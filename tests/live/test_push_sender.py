"""The process's push sender: batches leave in the order they were given, a failing batch does
not stop the ones after it, and a forked child gets a sender of its own."""

import asyncio
import os
import threading

from games.live.push_sender import PushSender


def recording_sender(fail_on=()):
    sent, threads = [], set()

    async def send_batch(messages):
        threads.add(threading.current_thread().name)
        await asyncio.sleep(0.001 * (len(sent) % 3))  # batches take different times
        if messages[0] in fail_on:
            raise ConnectionError("Redis went away")
        sent.append(messages[0])

    return PushSender(send_batch), sent, threads


def test_batches_leave_in_the_order_they_were_given_from_one_thread_of_their_own():
    sender, sent, threads = recording_sender()
    for number in range(50):
        sender.submit([number])

    assert sender.flush(timeout=5)
    assert sent == list(range(50))
    assert threads == {"push-sender"}


def test_a_failing_batch_is_logged_and_the_next_ones_still_leave(caplog):
    sender, sent, _ = recording_sender(fail_on={1})
    for number in range(3):
        sender.submit([number])

    assert sender.flush(timeout=5)
    assert sent == [0, 2]
    assert "a batch of 1 push(es) failed" in caplog.text


def test_a_forked_child_starts_a_sender_of_its_own():
    sender, sent, _ = recording_sender()
    sender.submit([1])
    assert sender.flush(timeout=5)

    child = os.fork()
    if child == 0:  # the child: the parent's sender thread is not here
        try:
            sender.submit([2])
            os._exit(0 if sender.flush(timeout=5) and sent == [1, 2] else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(child, 0)

    assert os.waitstatus_to_exitcode(status) == 0
    assert sent == [1]  # the child's push went from the child
