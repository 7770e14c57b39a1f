"""Local stand-ins for the providers' servers, each a real HTTP server in a thread that
records every request it gets: Prolific's API, MTurk's requester endpoint (JSON 1.1, as
boto3 speaks it) and MTurk's worker site (which frames the HIT and takes its submission)."""

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict
    body: bytes

    @property
    def json(self):
        return json.loads(self.body)

    @property
    def form(self):
        return {key: values[0] for key, values in parse_qs(self.body.decode()).items()}


@dataclass
class FakeServer:
    """Answers each request with ``answer(fake, recorded) -> (status, content_type, body)``."""

    answer: object
    requests: list = field(default_factory=list)

    def __post_init__(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                recorded = Recorded(self.command, self.path, dict(self.headers), self.rfile.read(length))
                fake.requests.append(recorded)
                status, content_type, body = fake.answer(fake, recorded)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _handle

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _json(status, data):
    return status, "application/json", json.dumps(data).encode()


def prolific_answer(fake, recorded):
    if recorded.path.endswith("/transition/"):
        return _json(200, {"id": recorded.path.split("/")[4], "status": recorded.json["action"] + "D"})
    if recorded.path == "/api/v1/submissions/bonus-payments/":
        return _json(201, {"id": "65f0c0ffee0000000000b0b0", "study": recorded.json["study_id"], "amount": 50})
    if recorded.path.startswith("/api/v1/bulk-bonus-payments/"):
        return 202, "application/json", b""
    return _json(404, {"error": "not found"})


def mturk_answer(fake, recorded):
    operation = recorded.headers.get("X-Amz-Target", "").rpartition(".")[2]
    if operation == "CreateHIT":
        body = recorded.json
        number = len(operations(fake, "CreateHIT")) - 1  # this request is already recorded
        hit = {
            "HITId": f"3HITFAKE{number:012d}",
            "HITTypeId": "3TYPEFAKE0000000000",
            "Title": body["Title"],
            "MaxAssignments": body["MaxAssignments"],
            "CreationTime": 1700000000.0,
            "HITStatus": "Assignable",
        }
        return 200, "application/x-amz-json-1.1", json.dumps({"HIT": hit}).encode()
    if operation in ("ApproveAssignment", "RejectAssignment", "SendBonus"):
        return 200, "application/x-amz-json-1.1", b"{}"
    return 400, "application/x-amz-json-1.1", json.dumps({"__type": "ServiceFault", "Message": "?"}).encode()


def operations(fake, operation):
    """The requests ``fake`` (MTurk) got for one API operation, e.g. ``CreateHIT``."""
    return [r for r in fake.requests if r.headers.get("X-Amz-Target", "").endswith("." + operation)]


def fake_prolific():
    return FakeServer(prolific_answer)


def fake_mturk():
    return FakeServer(mturk_answer)
