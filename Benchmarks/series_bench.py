"""Times `cloudsync mcp`'s `series` and `compare_periods` over all years for EVERY type of a store, and
`cloudsync aggregate` of each type by month, with no dependency but Python: raw JSON-RPC, one message
per line (the server's LineTransport).

    python3 Benchmarks/series_bench.py CLOUDSYNC STORE [--calls 10]

Run by Benchmarks/run.sh on the store of the 3 GB export. Goal (issue 24): p95 <= 100 ms per call for
every type, whatever its size. Prints the slowest types and a VERDICT line.
"""
import argparse
import json
import sqlite3
import statistics
import subprocess
import time


class Server:
    def __init__(self, cloudsync, store):
        self.process = subprocess.Popen([cloudsync, "mcp", "--store", store], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, bufsize=0)
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "series_bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    def call(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server went away")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply or reply.get("result", {}).get("isError"):
                    raise RuntimeError(f"{method} {params}: {line[:300]!r}")
                return reply["result"]

    def tool(self, name, arguments):
        return self.call("tools/call", {"name": name, "arguments": arguments})

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def p95(times):
    times = sorted(times)
    return times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cloudsync")
    ap.add_argument("store")
    ap.add_argument("--calls", type=int, default=10)
    a = ap.parse_args()
    db = sqlite3.connect(f"file:{a.store}?mode=ro", uri=True)
    types = [(name, count) for name, count in db.execute(
        "SELECT t.name, sum(s.count) FROM metric_summary s JOIN metric_type t ON t.id = s.type_id "
        "GROUP BY t.name ORDER BY sum(s.count) DESC")]
    last_year = db.execute("SELECT max(last_end) FROM metric_summary").fetchone()[0] // (365 * 86400) + 1970
    summarised = db.execute("SELECT count(*) FROM metric_hour_state WHERE summarised = 1 AND dirty_from IS NULL").fetchone()[0]
    db.close()
    server = Server(a.cloudsync, a.store)
    calls = {
        "series (months, all years)": lambda t: server.tool("series", {"type": t, "bucket": "month",
                                                                       "timeZone": "Europe/Paris"}),
        "series (weeks, all years)": lambda t: server.tool("series", {"type": t, "bucket": "week",
                                                                      "timeZone": "America/New_York"}),
        "compare_periods (years)": lambda t: server.tool("compare_periods", {
            "type": t, "timeZone": "Europe/Paris",
            "first": {"start": f"{last_year - 2}-01-01", "end": f"{last_year - 2}-12-31"},
            "second": {"start": f"{last_year - 1}-01-01", "end": f"{last_year - 1}-12-31"}}),
    }
    worst = {name: (0.0, "") for name in calls}
    failed = False
    for type_name, count in types:
        for name, call in calls.items():
            times = []
            for _ in range(a.calls):
                started = time.monotonic()
                call(type_name)
                times.append((time.monotonic() - started) * 1000)
            if p95(times) > worst[name][0]:
                worst[name] = (p95(times), f"{type_name} ({count} samples), p50 {statistics.median(times):.1f} ms")
            failed |= p95(times) > 100
    server.close()
    # `cloudsync aggregate` by month over all years, each type: the process's whole run.
    aggregate_worst = (0.0, "")
    for type_name, count in types:
        times = []
        for _ in range(max(3, a.calls // 3)):
            started = time.monotonic()
            subprocess.run([a.cloudsync, "aggregate", "--store", a.store, "--types", type_name, "--bucket", "month",
                            "--tz", "Europe/Paris"], check=True, stdout=subprocess.DEVNULL)
            times.append((time.monotonic() - started) * 1000)
        if p95(times) > aggregate_worst[0]:
            aggregate_worst = (p95(times), f"{type_name} ({count} samples)")
        failed |= p95(times) > 100
    print(f"series bench: {len(types)} types, {summarised} with a current hour summary, {a.calls} calls each")
    for name, (slowest, what) in worst.items():
        print(f"series bench: {name:28s} slowest p95 {slowest:7.1f} ms: {what}")
    print(f"series bench: {'aggregate (months, all years)':28s} slowest p95 {aggregate_worst[0]:7.1f} ms: {aggregate_worst[1]} "
          "(the whole process)")
    print("series bench VERDICT:", "FAIL" if failed else "PASS", "(p95 <= 100 ms for every type)")


main()
