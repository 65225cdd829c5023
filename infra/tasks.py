"""The outbox's task: send one row (infra/outbox.py), queued after the commit that wrote it and
again by the sweep (games.sweep) while the row is due."""

from celery import shared_task

from infra import outbox


@shared_task(
    name=outbox.SEND_TASK,
    time_limit=outbox.SEND_TIME_LIMIT,
    soft_time_limit=outbox.SEND_TIME_LIMIT - 5,
)
def send_email(email_id: int) -> str:
    """Send one email of the outbox, if it is due and nobody else is sending it."""
    return outbox.send(email_id)
