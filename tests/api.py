"""Assertions about the API shared by every app's tests."""


def api_error(response, status, code):
    """Checks that ``response`` is the API's error body with ``status`` and ``code``;
    returns the error for further checks."""
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["code"] == code, body
    return body["error"]
