import pytest
from allauth.account.models import EmailAddress

from accounts.models import User

PASSWORD = "a-long-Passphrase-42"


@pytest.fixture
def player(db):
    """A player whose email address is confirmed."""
    user = User.objects.create_user("ada", "ada@example.com", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user
