"""The site's VAPID key pair (RFC 8292), which signs every Web Push message it sends.

Production sets VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY (docs/deploy.md: how to make them); a
single host without them keeps a pair generated on first use in var/vapid_keys, as it keeps its
SECRET_KEY (microchip_site/secret_key.py). Both are base64url without padding: the private key
the raw 32-byte P-256 scalar (what pywebpush takes), the public key the uncompressed 65-byte
point (the applicationServerKey a browser subscribes with).
"""

import base64
import json
from pathlib import Path

from microchip_site.secret_key import local_value


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def new_key_pair() -> tuple[str, str]:
    """A new (private, public) VAPID key pair, base64url."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64url(private), b64url(public)


def local_vapid_keys(path: Path) -> tuple[str, str]:
    """Return the pair kept in `path`, generating it (readable by its owner only) on first use."""

    def make() -> str:
        private, public = new_key_pair()
        return json.dumps({"private": private, "public": public})

    pair = json.loads(local_value(path, make))
    return pair["private"], pair["public"]
