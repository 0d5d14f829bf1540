"""Times `cloudsync mcp` through the official MCP Python SDK on a store: p50/p95 per tool, the first answer
after start, the server's peak RSS.

    python Benchmarks/mcp_bench.py CLOUDSYNC STORE [--calls 20]

Run by Benchmarks/run.sh on the store of the 1 GB generated export. Goal (issue 12): p95 <= 100 ms for every
tool but `sql`, first answer <= 300 ms, RSS <= 96 MiB. Prints one line per tool and a VERDICT line.
"""
import argparse
import asyncio
import os
import statistics
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def server_pid(store):
    """The `cloudsync mcp` process serving `store` (a child of the SDK's stdio client)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"mcp" in cmdline and store.encode() in cmdline:
            return int(pid)
    return None


def peak_rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cloudsync")
    ap.add_argument("store")
    ap.add_argument("--calls", type=int, default=20)
    a = ap.parse_args()
    started = time.monotonic()
    params = StdioServerParameters(command=a.cloudsync, args=["mcp", "--store", a.store])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            overview = (await session.call_tool("overview", {})).structuredContent
            first_answer = time.monotonic() - started
            steps = next(t for t in overview["types"] if t["type"] == "HKQuantityTypeIdentifierStepCount")
            workouts = (await session.call_tool("workouts", {"limit": 1000})).structuredContent["workouts"]
            with_route = next((w for w in workouts if w["hasRoute"]), workouts[0])
            ecgs = (await session.call_tool("ecg", {})).structuredContent["recordings"]
            last = steps["last"][:10]
            calls = {
                "overview": {},
                "series": {"type": "stepCount", "bucket": "day", "timeZone": "Europe/Paris", "mergeSources": True,
                           "start": steps["first"][:10], "end": last},
                # The whole history in one page: every step sample merged, every heart rate sample.
                "series (weeks, all years)": {"type": "stepCount", "bucket": "week", "timeZone": "Europe/Paris"},
                "series (months, all years)": {"type": "stepCount", "bucket": "month", "timeZone": "America/New_York"},
                "series (heart rate months)": {"type": "heartRate", "bucket": "month", "timeZone": "Europe/Paris"},
                "compare_periods": {"type": "heartRate", "timeZone": "Europe/Paris",
                                    "first": {"start": "2024-01-01", "end": "2024-03-31"},
                                    "second": {"start": "2025-01-01", "end": "2025-03-31"}},
                "sleep": {"start": "2025-01-01", "end": "2025-01-31", "timeZone": "Europe/Paris"},
                "workouts": {"type": "running", "start": "2024-01-01", "end": "2024-12-31"},
                "workout_route": {"start": with_route["start"], "maxPoints": 500},
                "ecg": {"recordedAt": ecgs[0]["recordedAt"], "maxSamples": 1000} if ecgs else {},
                "records": {"type": "heartRate", "start": "2024-06-01", "limit": 100},
                "sql": {"query": "SELECT substr(start, 1, 7) AS month, avg(value) FROM metrics "
                                 "WHERE type = 'HKQuantityTypeIdentifierRestingHeartRate' GROUP BY month"},
            }
            pid = server_pid(a.store)
            failed = False
            print(f"mcp: {overview['metrics']} metrics in the store; first answer (overview) {first_answer * 1000:.0f} ms after start")
            for name, arguments in calls.items():
                times = []
                for _ in range(a.calls):
                    t = time.monotonic()
                    result = await session.call_tool(name.split(" ")[0], arguments)
                    times.append((time.monotonic() - t) * 1000)
                    if result.isError:
                        print(f"mcp: {name} failed: {result.content[0].text}")
                        failed = True
                        break
                times.sort()
                p50 = statistics.median(times)
                p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
                goal = "" if name == "sql" else ("  (p95 <= 100 ms)" if p95 <= 100 else "  (p95 > 100 ms: over the goal)")
                failed |= name != "sql" and p95 > 100
                print(f"mcp {name:28s} p50 {p50:8.1f} ms  p95 {p95:8.1f} ms{goal}")
            rss = peak_rss_mib(pid) if pid else float("nan")
    print(f"mcp: server peak RSS {rss:.1f} MiB")
    failed |= first_answer > 0.3 or not rss <= 96
    print("mcp VERDICT:", "FAIL" if failed else "PASS")


asyncio.run(main())
