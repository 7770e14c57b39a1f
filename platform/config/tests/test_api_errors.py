"""Every API error is the error body, and the schema says which each operation can give."""

import pytest
from django.test import RequestFactory

from config.api import api_server_error, error_statuses
from tests.api import api_error

pytestmark = pytest.mark.django_db


def test_an_api_address_no_route_matches_answers_with_the_error_body(rater, api_for, client):
    api_error(api_for(rater).post("/api/v1/batches/1.5/close/"), 404, "not_found")
    api_error(client.get("/api/v1/no-such-thing/"), 404, "not_found")
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_a_crash_under_the_api_answers_with_the_error_body_and_elsewhere_with_the_page():
    crashed = api_server_error(RequestFactory().get("/api/v1/me/"))
    assert crashed.status_code == 500 and crashed["Content-Type"] == "application/json"
    assert b'"code": "server_error"' in crashed.content
    page = api_server_error(RequestFactory().get("/review/"))
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")


def test_the_errors_an_operation_can_give_follow_from_its_schema():
    signed_in = {"security": [{"tokenAuth": []}]}
    page, worker, path_id = ({"in": "query", "name": "page"}, {"in": "query", "name": "worker"},
                             {"in": "path", "name": "id"})  # fmt: skip
    assert error_statuses("get", {**signed_in}) == [401, 403, 429]
    assert error_statuses("get", {**signed_in, "parameters": [page]}) == [400, 401, 403, 404, 414, 429]
    assert error_statuses("get", {**signed_in, "parameters": [page, worker]}) == [400, 401, 403, 404, 414, 429]
    assert error_statuses("post", {**signed_in, "parameters": [path_id]}) == [400, 401, 403, 404, 409, 414, 429]
    assert error_statuses("post", {**signed_in, "requestBody": {}}) == [400, 401, 403, 404, 409, 415, 429]
    assert error_statuses("get", {"security": [{}]}) == []


def test_the_schema_documents_every_operations_errors_with_the_error_body(client):
    schema = client.get("/api/v1/schema/?format=json").json()
    assert set(schema["components"]["schemas"]["Error"]["properties"]["error"]["required"]) == {
        "code", "message", "fields",
    }  # fmt: skip
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status in set(error_statuses(method, operation)) - {414}:  # gunicorn's own page
                content = operation["responses"][str(status)]["content"]["application/json"]
                assert content["schema"] == {"$ref": "#/components/schemas/Error"}, (method, path, status)
    block = schema["paths"]["/api/v1/workers/{id}/block/"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "414", "429"} <= set(block)
    assert "Retry-After" in block["429"]["headers"]
