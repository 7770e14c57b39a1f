"""Requests whose body must never be read: for checking that an upload endpoint answers
from the headers alone."""

import io


class Unreadable(io.RawIOBase):
    """A request body that fails the test if anything reads it."""

    def readable(self):
        return True

    def read(self, *args):
        raise AssertionError("the request body was read")

    readline = readinto = read


def post_unread(client, path, content_length, **extra):
    """POSTs a multipart request declaring ``content_length`` bytes that cannot be read."""
    return client.post(
        path,
        b"",
        content_type="multipart/form-data; boundary=xyz",
        CONTENT_LENGTH=content_length,
        **{"wsgi.input": Unreadable()},
        **extra,
    )
