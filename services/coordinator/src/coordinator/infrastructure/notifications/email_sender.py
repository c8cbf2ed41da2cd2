"""An e-mail channel: a multipart/alternative message (plain text and HTML) sent through the configured SMTP
server with aiosmtplib, to the target's comma-separated addresses.

A refusal with a 5xx reply (a recipient, the sender, the credentials) is permanent; a 4xx reply, a timeout or a
lost connection is retryable; a server that lacks what the settings ask for (STARTTLS, AUTH) is permanent.
Messages name the SMTP host and its reply, never the password.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime

import aiosmtplib

from coordinator.domain.model.channel import Channel
from coordinator.domain.ports.notification_sender import SendFailedError
from coordinator.infrastructure.notifications.http_delivery import receiver_text, utc
from coordinator.infrastructure.notifications.message import Message
from coordinator.infrastructure.notifications.text_formats import email_html, plain_text
from shared_contracts.redaction import describe_connection_failure


@dataclass(frozen=True)
class SmtpSettings:
    """The SMTP server e-mail channels send through (``host`` None: e-mail is not set up)."""

    host: str | None = None
    port: int = 587
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    sender: str | None = None
    """The From address."""
    starttls: bool = True
    """Upgrade the connection with STARTTLS (refused when the server does not offer it)."""
    use_tls: bool = False
    """Connect with TLS from the start (port 465)."""
    timeout_seconds: float = 30.0


def recipients_of(target: str) -> list[str]:
    """The target's addresses (comma-separated, blanks dropped)."""
    return [address.strip() for address in target.split(",") if address.strip()]


def email_message(message: Message, *, sender: str, recipients: list[str], sent_at: datetime) -> EmailMessage:
    """The e-mail: Subject = title, a plain part and an HTML part (multipart/alternative)."""
    mail = EmailMessage()
    mail["Subject"] = message.title
    mail["From"] = sender
    mail["To"] = ", ".join(recipients)
    mail["Date"] = format_datetime(utc(sent_at))
    mail.set_content(plain_text(message))
    mail.add_alternative(email_html(message), subtype="html")
    return mail


async def send_email(smtp: SmtpSettings, channel: Channel, message: Message, *, sent_at: datetime) -> None:
    if not smtp.host or not smtp.sender:
        raise SendFailedError("e-mail is not set up on this server (SMTP_HOST, SMTP_FROM)", permanent=True)
    recipients = recipients_of(channel.target)
    if not recipients:
        raise SendFailedError("the e-mail channel has no address", permanent=True)
    try:
        mail = email_message(message, sender=smtp.sender, recipients=recipients, sent_at=sent_at)
    except (ValueError, TypeError):
        raise SendFailedError("the e-mail channel's addresses cannot be written in a header", permanent=True) from None
    try:
        await aiosmtplib.send(
            mail,
            hostname=smtp.host,
            port=smtp.port,
            username=smtp.username or None,
            password=smtp.password or None,
            start_tls=smtp.starttls and not smtp.use_tls,
            use_tls=smtp.use_tls,
            timeout=smtp.timeout_seconds,
        )
    except aiosmtplib.SMTPException as exc:
        raise _failure(exc, smtp) from None
    except OSError as exc:
        raise SendFailedError(f"could not reach {smtp.host}: {describe_connection_failure(exc)}") from None


def _failure(exc: aiosmtplib.SMTPException, smtp: SmtpSettings) -> SendFailedError:
    host = smtp.host
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        codes = [r.code for r in exc.recipients]
        said = "; ".join(f"{r.recipient}: {r.code} {_said(r.message, smtp)}" for r in exc.recipients[:5])
        return SendFailedError(f"{host} refused every recipient ({said})", permanent=all(c >= 500 for c in codes))
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        what = "the credentials" if isinstance(exc, aiosmtplib.SMTPAuthenticationError) else "the message"
        said = _said(exc.message, smtp)
        return SendFailedError(f"{host} refused {what}: SMTP {exc.code} {said}".rstrip(), permanent=exc.code >= 500)
    if isinstance(exc, aiosmtplib.SMTPTimeoutError):
        return SendFailedError(f"{host} did not answer within {smtp.timeout_seconds:g} s")
    if isinstance(exc, aiosmtplib.SMTPConnectError | aiosmtplib.SMTPServerDisconnected):
        return SendFailedError(f"could not reach {host}: {describe_connection_failure(exc)}")
    if isinstance(exc, aiosmtplib.SMTPNotSupported) or "not supported" in str(exc):
        said = _said(str(exc), smtp)
        return SendFailedError(f"{host} does not support what the SMTP settings ask: {said}", permanent=True)
    return SendFailedError(f"SMTP failure with {host} ({type(exc).__name__})")


def _said(text: str, smtp: SmtpSettings) -> str:
    return receiver_text(text, hidden=(smtp.password,))
