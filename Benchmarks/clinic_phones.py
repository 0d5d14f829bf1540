#!/usr/bin/env python3
"""The phones of Benchmarks/clinic-load.sh: each of --phones users pushes one day of minute-level data
(heart rate, step count, active energy: 3 x 1,440 samples, Health Auto Export's JSON as the app sends
it) to URL/health-auto-export, all at once, while the export upload runs beside. Prints one JSON line:
pushes, seconds (first request to last answer), pushes/s, p50/p95/max latency, metrics stored, and
the statuses seen. Every push must be answered 200 with all its samples stored.

    clinic_phones.py URL TOKENS_FILE --phones 50 [--day 2025-03-08]
"""
import argparse
import datetime as dt
import http.client
import json
import threading
import time
import urllib.parse

def day_of_data(day, seed):
    start = dt.datetime.fromisoformat(day)
    heart, steps, energy = [], [], []
    for minute in range(1440):
        t = (start + dt.timedelta(minutes=minute)).strftime("%Y-%m-%d %H:%M:%S") + " -0500"
        bpm = 55 + (minute * 7 + seed) % 60
        heart.append({"date": t, "Min": bpm, "Avg": bpm, "Max": bpm, "source": "Apple Watch"})
        steps.append({"date": t, "qty": (minute * 13 + seed) % 120, "source": "iPhone"})
        energy.append({"date": t, "qty": round(0.5 + ((minute + seed) % 40) / 10, 3), "source": "Apple Watch"})
    return json.dumps({"data": {"metrics": [
        {"name": "heart_rate", "units": "count/min", "data": heart},
        {"name": "step_count", "units": "count", "data": steps},
        {"name": "active_energy", "units": "kcal", "data": energy},
    ]}}).encode()

def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("tokens")
    p.add_argument("--phones", type=int, default=50)
    p.add_argument("--day", default="2025-03-08")
    a = p.parse_args()
    tokens = [line.split()[1] for line in open(a.tokens) if line.strip() and not line.startswith("#")][: a.phones]
    bodies = [day_of_data(a.day, i) for i in range(len(tokens))]
    target = urllib.parse.urlparse(a.url)
    results = [None] * len(tokens)
    ready = threading.Barrier(len(tokens) + 1)

    def phone(i):
        ready.wait()
        started = time.monotonic()
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=600)
        connection.request("POST", "/health-auto-export", body=bodies[i],
                           headers={"Authorization": "Bearer " + tokens[i], "Content-Type": "application/json"})
        response = connection.getresponse()
        reply = response.read()
        stored = json.loads(reply).get("stored", 0) if response.status == 200 else 0
        results[i] = (time.monotonic() - started, response.status, stored)

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(len(tokens))]
    for thread in threads:
        thread.start()
    ready.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - began
    latencies = sorted(r[0] for r in results)
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    statuses = {}
    for r in results:
        statuses[str(r[1])] = statuses.get(str(r[1]), 0) + 1
    print(json.dumps({"pushes": len(results), "seconds": round(seconds, 2), "pushesPerSecond": round(len(results) / seconds, 1),
                      "p50": round(pick(0.5), 3), "p95": round(pick(0.95), 3), "max": round(latencies[-1], 3),
                      "stored": sum(r[2] for r in results), "expected": 3 * 1440 * len(results), "statuses": statuses}))

if __name__ == "__main__":
    main()
