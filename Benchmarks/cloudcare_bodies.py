#!/usr/bin/env python3
"""The CloudCare bodies an upload sends, kept and sent again (Benchmarks/receiver-floor.sh).

  cloudcare_bodies.py capture DIR PORT        answers as CloudCare's backend does, and keeps each
                                              posted body in DIR (00001.json, …); prints "ready PORT"
                                              (PORT 0: one the system picks)
  cloudcare_bodies.py replay DIR PORT TOKEN MODE
                                              posts DIR's bodies in order on one connection; MODE:
      stored   each body as it was sent
      refused  each body with its last metric's endDate made unreadable: serve reads and maps the
               whole body, then refuses it (422), and stores nothing
      unread   each body to the batch route, which answers 501 without reading it
  Prints the answers' statuses and counts, e.g. {201: 167}.
"""
import glob
import http.client
import http.server
import json
import os
import sys

ROUTE = "/api/v1/wearables/import/apple-health"


def capture(folder, port):
    os.makedirs(folder, exist_ok=True)
    posted = [0]

    class Backend(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.answer(200, {"status": "ok"})

        def do_HEAD(self):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            posted[0] += 1
            with open(os.path.join(folder, f"{posted[0]:05d}.json"), "wb") as out:
                out.write(body)
            count = len(json.loads(body)["metrics"])
            self.answer(201, {"message": "Apple Health data imported successfully", "device_id": "d", "device_type": "apple_watch",
                              "total_metrics": count, "stored_count": count, "duplicate_count": 0, "error_count": 0,
                              "was_duplicate": False})

    server = http.server.HTTPServer(("127.0.0.1", port), Backend)
    print("ready", server.server_address[1], flush=True)
    server.serve_forever()


def replay(folder, port, token, mode):
    if mode not in ("stored", "refused", "unread"):
        sys.exit(f"cloudcare_bodies.py: unknown mode {mode}")
    path = ROUTE + ("/batch" if mode == "unread" else "")
    connection = http.client.HTTPConnection("127.0.0.1", port)
    statuses = {}
    for name in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(name, "rb") as f:
            body = f.read()
        if mode == "refused":
            at = body.rfind(b'"endDate":"') + len(b'"endDate":"')
            body = body[:at] + b"X" + body[at + 1:]
        connection.request("POST", path, body=body, headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
    print(statuses)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "capture":
        capture(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 6 and sys.argv[1] == "replay":
        replay(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)
