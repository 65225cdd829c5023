"""django-allauth's account adapter (settings.ACCOUNT_ADAPTER): its emails go through the
outbox like every other email of the site (games/notices/outbox.py).

allauth renders a confirmation, password-reset or notice email and sends it at once, inside the
request: an SMTP server that is slow or down would fail the sign-up, and nothing would send it
again. Here the rendered message is stored as a row of the outbox instead, in the request's
transaction, and a task sends it after the commit, at least once and with one Message-ID.
"""

from allauth.account.adapter import DefaultAccountAdapter

from games import effects
from games.notices import outbox


class AccountAdapter(DefaultAccountAdapter):
    def render_mail(self, template_prefix, email, context, headers=None):
        message = super().render_mail(template_prefix, email, context, headers=headers)
        return _ToOutbox(message)


class _ToOutbox:
    """A rendered message whose `send()` (what allauth calls) writes it to the outbox."""

    def __init__(self, message):
        self.message = message

    def send(self, fail_silently: bool = False) -> int:
        email_id = outbox.add_message(self.message)
        effects.after_commit(effects.Effects(tasks=[effects.send_email(email_id)]))
        return 1
