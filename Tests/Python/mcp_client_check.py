"""Drives `cloudsync mcp` with the official MCP Python SDK, as an assistant's client would.

    python mcp_client_check.py CLOUDSYNC WORKDIR

Writes its own export (steps from an iPhone and a Watch overlapping, across the Europe/Paris DST change;
nights of sleep across it; a run with a GPX route; an ECG), imports it with CLOUDSYNC, starts
`CLOUDSYNC mcp --store …` over stdio, calls every tool with valid and hostile arguments, and compares the
answers with numbers it computes itself from the export. Prints one line per check; exits 1 on the first
failed one. Called by MCPClientTests.swift.
"""
import asyncio
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from zoneinfo import ZoneInfo

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CLOUDSYNC, WORK = sys.argv[1], sys.argv[2]
PARIS = ZoneInfo("Europe/Paris")
CHECKS = 0


def check(condition, what):
    global CHECKS
    if not condition:
        print(f"FAIL {what}", flush=True)
        sys.exit(1)
    CHECKS += 1
    print(f"ok   {what}", flush=True)


def local(day, hour, minute=0):
    """A Paris wall-clock time as the export writes it, with that moment's offset."""
    t = dt.datetime(2024, 3, day, hour, minute, tzinfo=PARIS)
    return t.strftime("%Y-%m-%d %H:%M:%S %z"), t


WATCH = '&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, model:Watch&gt;'
PHONE = '&lt;&lt;HKDevice: 0x2&gt;, name:iPhone, model:iPhone&gt;'


def build_export():
    """Returns the export.zip path and the samples the checks are computed from."""
    steps, sleep, records = [], [], []
    for day in range(28, 32):                       # 28–31 March 2024; DST starts on the 31st at 02:00
        for hour in (8, 12, 18):
            start, t0 = local(day, hour)
            end, t1 = local(day, hour, 30)
            watch = 1000 + day * 10 + hour
            records.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" device="{WATCH}" unit="count" '
                           f'creationDate="{end}" startDate="{start}" endDate="{end}" value="{watch}"/>')
            steps.append(("Watch", t0, t1, watch))
            # The iPhone counts the same walk (the same span) and, at noon, a walk of its own.
            phone = 900 + day
            records.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" device="{PHONE}" unit="count" '
                           f'creationDate="{end}" startDate="{start}" endDate="{end}" value="{phone}"/>')
            steps.append(("iPhone", t0, t1, phone))
        start, t0 = local(day, 13)
        end, t1 = local(day, 13, 20)
        records.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" device="{PHONE}" unit="count" '
                       f'creationDate="{end}" startDate="{start}" endDate="{end}" value="500"/>')
        steps.append(("iPhone", t0, t1, 500))
    # One walk long before, so that a daily series of everything takes more than one page.
    t0 = dt.datetime(2022, 6, 1, 9, 0, tzinfo=PARIS)
    t1 = t0 + dt.timedelta(minutes=20)
    fmt = "%Y-%m-%d %H:%M:%S %z"
    records.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" device="{WATCH}" unit="count" '
                   f'creationDate="{t1.strftime(fmt)}" startDate="{t0.strftime(fmt)}" endDate="{t1.strftime(fmt)}" value="777"/>')
    steps.append(("Watch", t0, t1, 777))
    # Nights of 27→28 … 30→31 March: in bed 23:00, core, deep, REM, awake, across midnight and the DST change.
    stages = [("InBed", 23, 0, 7 * 60), ("AsleepCore", 23, 10, 120), ("AsleepDeep", 1, 10, 60),
              ("AsleepREM", 3, 10, 45), ("Awake", 3, 55, 10), ("AsleepCore", 4, 5, 90)]
    for night in range(27, 31):
        for stage, hour, minute, minutes in stages:
            day = night if hour >= 12 else night + 1
            t0 = dt.datetime(2024, 3, day, hour, minute, tzinfo=PARIS)
            t1 = (t0.astimezone(dt.timezone.utc) + dt.timedelta(minutes=minutes)).astimezone(PARIS)
            fmt = "%Y-%m-%d %H:%M:%S %z"
            records.append(f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" device="{WATCH}" '
                           f'creationDate="{t1.strftime(fmt)}" startDate="{t0.strftime(fmt)}" endDate="{t1.strftime(fmt)}" '
                           f'value="HKCategoryValueSleepAnalysis{stage}"/>')
            sleep.append((night, stage, t0, t1))
    for minute in range(0, 60, 5):
        start, _ = local(29, 7, minute)
        records.append(f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" device="{WATCH}" unit="count/min" '
                       f'creationDate="{start}" startDate="{start}" endDate="{start}" value="{60 + minute // 5}"/>')
    run_start, _ = local(30, 9)
    run_end, _ = local(30, 9, 31)
    workout = (f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="31" durationUnit="min" sourceName="Watch" '
               f'device="{WATCH}" creationDate="{run_end}" startDate="{run_start}" endDate="{run_end}">\n'
               '  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="{0}" endDate="{1}" sum="5.25" unit="km"/>\n'
               '  <WorkoutRoute sourceName="Watch" startDate="{0}" endDate="{1}"><FileReference path="/workout-routes/route_1.gpx"/></WorkoutRoute>\n'
               ' </Workout>').format(run_start, run_end)
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n <ExportDate value="2024-04-01 10:00:00 +0200"/>\n'
           + "\n".join(records) + "\n" + workout + "\n</HealthData>\n")
    points = "".join(f'<trkpt lon="{2.35 + i * 0.0001:.6f}" lat="{48.85 + i * 0.0001:.6f}"><ele>35</ele>'
                     f'<time>2024-03-30T07:{i // 60:02d}:{i % 60:02d}Z</time></trkpt>' for i in range(1200))
    gpx = f'<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>{points}</trkseg></trk></gpx>'
    ecg = ("Name,Test\nRecorded Date,2024-03-29 08:00:00 +0100\nClassification,Sinus Rhythm\nSymptoms,\nSoftware Version,2\n"
           "Device,\"Watch7,2\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n" + "\n".join(str(i % 50) for i in range(5120)) + "\n")
    path = os.path.join(WORK, "export.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("apple_health_export/export.xml", xml)
        z.writestr("apple_health_export/workout-routes/route_1.gpx", gpx)
        z.writestr("apple_health_export/electrocardiograms/ecg_2024-03-29.csv", ecg)
    return path, steps, sleep


def expected_daily_steps(steps, merged):
    """Per Paris day: every sample (raw), or, merged, an iPhone sample whose span a Watch sample covers left out."""
    watch_spans = {(t0, t1) for source, t0, t1, _ in steps if source == "Watch"}
    days = {}
    for source, t0, t1, value in steps:
        if merged and source == "iPhone" and (t0, t1) in watch_spans:
            continue
        day = t0.astimezone(PARIS).date().isoformat()
        days[day] = days.get(day, 0) + value
    return days


def expected_nights(sleep):
    nights = {}
    for night, stage, t0, t1 in sleep:
        name = dt.date(2024, 3, night).isoformat()
        n = nights.setdefault(name, {"inBed": 0, "asleep": 0, "core": 0, "deep": 0, "rem": 0, "awake": 0})
        # Elapsed time in UTC: Python subtracts two times of the same zone by their wall clocks.
        minutes = (t1.astimezone(dt.timezone.utc) - t0.astimezone(dt.timezone.utc)).total_seconds() / 60
        key = {"InBed": "inBed", "AsleepCore": "core", "AsleepDeep": "deep", "AsleepREM": "rem", "Awake": "awake"}[stage]
        n[key] += minutes
        if key in ("core", "deep", "rem"):
            n["asleep"] += minutes
    return nights


async def call(session, name, arguments):
    result = await session.call_tool(name, arguments)
    return result


async def main():
    export, steps, sleep = build_export()
    store = os.path.join(WORK, "staging.sqlite")
    imported = subprocess.run([CLOUDSYNC, "import", export, "--store", store], capture_output=True, text=True)
    check(imported.returncode == 0, f"import: {imported.stderr.strip()}")
    before = hashlib.sha256(open(store, "rb").read()).hexdigest()
    params = StdioServerParameters(command=CLOUDSYNC, args=["mcp", "--store", store])
    started = time.monotonic()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.serverInfo.name == "cloudsync", "initialize names the server")
            tools = {t.name: t for t in (await session.list_tools()).tools}
            first_answer = time.monotonic() - started
            check(set(tools) == {"overview", "series", "compare_periods", "sleep", "workouts", "workout_route", "ecg", "records", "sql"},
                  f"the nine tools are listed ({sorted(tools)})")
            check(all(t.outputSchema and t.inputSchema for t in tools.values()), "every tool has an input and an output schema")

            overview = (await call(session, "overview", {})).structuredContent
            types = {t["type"]: t for t in overview["types"]}
            check(types["HKQuantityTypeIdentifierStepCount"]["count"] == len(steps), "overview counts the steps")
            check(overview["workouts"] == 1 and overview["routes"] == 1 and overview["ecgs"] == 1, "overview counts workout, route, ECG")

            for merged in (False, True):
                result = await call(session, "series", {"type": "stepCount", "bucket": "day", "timeZone": "Europe/Paris",
                                                        "start": "2024-03-28", "end": "2024-03-31", "mergeSources": merged})
                got = {b["label"]: b["value"] for b in result.structuredContent["buckets"]}
                want = {d: v for d, v in expected_daily_steps(steps, merged).items() if "2024-03-28" <= d <= "2024-03-31"}
                check(result.structuredContent["statistic"] == "sum" and got == want,
                      f"daily steps in Europe/Paris across DST, {'merged' if merged else 'raw'}: {got} == {want}")
            # Everything, a page of at most 400 days at a time: the pages add up to every step.
            pages, total, start = 0, 0, None
            while True:
                args = {"type": "stepCount", "bucket": "day", "timeZone": "Europe/Paris", "mergeSources": False} | ({"start": start} if start else {})
                page = (await call(session, "series", args)).structuredContent
                pages += 1
                check(len(page["buckets"]) <= 400, f"page {pages} has {len(page['buckets'])} buckets")
                total += sum(b["value"] for b in page["buckets"])
                start = page.get("cursor")
                if not start:
                    break
            check(pages == 2 and total == sum(v for _, _, _, v in steps), f"daily steps since 2022 in {pages} pages: {total}")
            # No page before the first sample or after the last, and none for a type never recorded.
            early = (await call(session, "series", {"type": "stepCount", "bucket": "day", "start": "1990-01-01", "end": "2022-12-31"})).structuredContent
            check(early["buckets"][0]["label"] == "2022-06-01" and "cursor" not in early, "a start long before the first sample: no empty pages")
            never = (await call(session, "series", {"type": "bloodGlucose", "bucket": "day", "start": "2020-01-01"})).structuredContent
            check("cursor" not in never and never["buckets"] == [], "a type never recorded: no cursor")
            hr = (await call(session, "series", {"type": "HKQuantityTypeIdentifierHeartRate", "bucket": "hour"})).structuredContent
            check(hr["statistic"] == "average" and hr["buckets"][0]["value"] == sum(60 + m // 5 for m in range(0, 60, 5)) / 12,
                  "heart rate is averaged per hour")

            comparison = (await call(session, "compare_periods", {
                "type": "stepCount", "timeZone": "Europe/Paris", "first": {"start": "2024-03-28", "end": "2024-03-29"},
                "second": {"start": "2024-03-30", "end": "2024-03-31"}})).structuredContent
            merged = expected_daily_steps(steps, True)
            a = merged["2024-03-28"] + merged["2024-03-29"]
            b = merged["2024-03-30"] + merged["2024-03-31"]
            check(comparison["first"]["value"] == a and comparison["second"]["value"] == b
                  and comparison["difference"]["absolute"] == b - a, f"compare_periods: {a} then {b}")

            nights = (await call(session, "sleep", {"start": "2024-03-27", "end": "2024-03-30", "timeZone": "Europe/Paris"})).structuredContent
            got = {n["night"]: {k: v for k, v in n.items() if k != "night"} for n in nights["nights"]}
            want = expected_nights(sleep)
            check(got == want, f"sleep per night across midnight and DST: {got} == {want}")

            workouts = (await call(session, "workouts", {"type": "running"})).structuredContent["workouts"]
            check(len(workouts) == 1 and workouts[0]["distance"] == 5.25 and workouts[0]["duration"] == 31 and workouts[0]["hasRoute"],
                  f"the run, its distance and its route: {workouts}")
            route = (await call(session, "workout_route", {"start": workouts[0]["start"], "maxPoints": 100})).structuredContent
            coordinates = route["feature"]["geometry"]["coordinates"]
            check(route["found"] and len(coordinates) == 100 and coordinates[0][:2] == [2.35, 48.85], "the route, simplified to 100 points")

            ecgs = (await call(session, "ecg", {})).structuredContent["recordings"]
            check(len(ecgs) == 1 and ecgs[0]["classification"] == "Sinus Rhythm" and ecgs[0]["sampleCount"] == 5120, "the ECG is listed")
            strip = (await call(session, "ecg", {"recordedAt": ecgs[0]["recordedAt"], "maxSamples": 512})).structuredContent["recordings"][0]
            check(len(strip["samples"]) == 512, "one recording, downsampled")

            page1 = (await call(session, "records", {"type": "stepCount", "limit": 10})).structuredContent
            page2 = (await call(session, "records", {"type": "stepCount", "limit": 10, "cursor": page1["cursor"]})).structuredContent
            check(page1["truncated"] and len(page1["records"]) == 10 and page2["records"][0]["start"] >= page1["records"][-1]["start"]
                  and page2["records"][0] != page1["records"][-1], "records page with a cursor")
            total = 0
            cursor = None
            while True:
                args = {"type": "stepCount", "limit": 7} | ({"cursor": cursor} if cursor else {})
                page = (await call(session, "records", args)).structuredContent
                total += len(page["records"])
                cursor = page.get("cursor")
                if not cursor:
                    break
            check(total == len(steps), "paging through every step sample")

            rows = (await call(session, "sql", {"query": "SELECT source, sum(value) AS steps FROM metrics WHERE type = 'HKQuantityTypeIdentifierStepCount' GROUP BY source ORDER BY source"})).structuredContent
            want = sorted((s, sum(v for source, _, _, v in steps if source == s)) for s in {"iPhone", "Watch"})
            check([tuple(r) for r in rows["rows"]] == [tuple(w) for w in want] and rows["columns"] == ["source", "steps"], f"sql over the metrics view: {rows['rows']}")
            rows = (await call(session, "sql", {"query": "SELECT activity, distance_km FROM workouts"})).structuredContent
            check(rows["rows"] == [["running", 5.25]], "sql over the workouts view")

            # Data the store does not hold: an empty answer that says so.
            empty = (await call(session, "series", {"type": "bloodGlucose", "bucket": "day"})).structuredContent
            check(empty["buckets"] == [] and "never recorded" in empty["note"], "a type never recorded: empty, said so")
            empty = (await call(session, "series", {"type": "stepCount", "bucket": "day", "start": "2001-01-01", "end": "2001-12-31"})).structuredContent
            check(empty["buckets"] == [] and "2022-06-01" in empty["note"], "a range before the first sample: empty, with the range the store has")

            hostile = [
                ("sql", {"query": "DELETE FROM metrics"}),
                ("sql", {"query": "INSERT INTO metric_type(name) VALUES ('x')"}),
                ("sql", {"query": "ATTACH DATABASE '" + os.path.join(WORK, "other.db") + "' AS other"}),
                ("sql", {"query": "SELECT * FROM sqlite_master"}),
                ("sql", {"query": "SELECT * FROM metric"}),
                ("sql", {"query": "SELECT * FROM pragma_database_list"}),
                ("sql", {"query": "SELECT sql FROM sqlite_temp_master"}),
                ("sql", {"query": "PRAGMA writable_schema = 1"}),
                ("sql", {"query": "SELECT load_extension('/tmp/x.so')"}),
                ("sql", {"query": "SELECT fts3_tokenizer('simple')"}),
                ("sql", {"query": "SELECT instr(printf('%.*c', 100000000, 'a'), printf('%.*c', 10000, 'a') || 'b')"}),
                ("sql", {"query": "SELECT 1; DROP VIEW metrics"}),
                ("sql", {"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"}),
                ("sql", {"query": "SELECT 1", "limit": 10_000_000}),
                ("series", {"type": 42, "bucket": "day"}),
                ("series", {"type": "stepCount", "bucket": "fortnight"}),
                ("series", {"type": "stepCount", "bucket": "day", "start": "0001-01-01", "end": "9999-12-31"}),
                ("series", {"type": "stepCount", "bucket": "day", "timeZone": "Mars/Olympus"}),
                ("records", {"type": "stepCount", "limit": 1_000_000_000}),
                ("records", {"type": "stepCount", "cursor": "nonsense"}),
                ("compare_periods", {"type": "stepCount", "first": "last week", "second": {}}),
                ("workouts", {"limit": "many"}),
                ("nonexistent_tool", {}),
            ]
            for name, arguments in hostile:
                started_call = time.monotonic()
                result = await call(session, name, arguments)
                text = result.content[0].text if result.content else ""
                check(result.isError and time.monotonic() - started_call < 10, f"refused as a tool error: {name} {json.dumps(arguments)[:80]} → {text[:100]}")
            million = (await call(session, "sql", {"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000000) SELECT x FROM c"})).structuredContent
            check(million["truncated"] and len(million["rows"]) == 1000, "a million rows: the first 1000, truncated")
            check((await call(session, "overview", {})).structuredContent["metrics"] == overview["metrics"], "the server keeps serving")

            # An import while the server runs: its committed rows are seen by the next call.
            more = os.path.join(WORK, "more.xml")
            with open(more, "w") as f:
                f.write('<?xml version="1.0"?>\n<HealthData locale="en_GB">\n' + "".join(
                    f' <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2024-04-0{d} 07:00:00 +0200" '
                    f'endDate="2024-04-0{d} 07:00:00 +0200" value="{70 + d}"/>\n' for d in range(1, 4)) + "</HealthData>\n")
            again = subprocess.run([CLOUDSYNC, "import", more, "--store", store], capture_output=True, text=True)
            check(again.returncode == 0, f"an import while the server runs: {again.stderr.strip()}")
            body = (await call(session, "series", {"type": "bodyMass", "bucket": "day"})).structuredContent
            check([b["value"] for b in body["buckets"]] == [71, 72, 73], "the server sees what the import committed")
            before = hashlib.sha256(open(store, "rb").read()).hexdigest()
            for name, arguments in hostile[:11]:
                await call(session, name, arguments)
    after = hashlib.sha256(open(store, "rb").read()).hexdigest()
    check(before == after, "the store file is byte-identical after the hostile calls")
    check(first_answer < 5, f"first answer {first_answer:.3f} s after start")
    print(f"{CHECKS} checks passed", flush=True)


asyncio.run(main())
