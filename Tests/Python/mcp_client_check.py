"""Drives `cloudsync mcp` with the official MCP Python SDK, as an assistant's client would.

    python mcp_client_check.py CLOUDSYNC WORKDIR

Writes its own export (steps from an iPhone and a Watch overlapping, across the Europe/Paris DST change;
nights of sleep across it; a run with a GPX route; an ECG), imports it with CLOUDSYNC, starts
`CLOUDSYNC mcp --store …` over stdio, calls every tool with valid and hostile arguments, and compares the
answers with numbers it computes itself from the export. Then a second store across the autumn 2024
clock change (days of a week, rounding, long series, ECGs by date), and a third in Los Angeles for the `sql`
tool's `daily` view and the SQL recipes of README.md and docs/mcp.md, run as they are written there. Prints
one line per check; exits 1 on the first failed one. Called by MCPClientTests.swift.
"""
import asyncio
import csv
import datetime as dt
import hashlib
import io
import json
import math
import os
import re
import subprocess
import sys
import time
import zipfile
from fractions import Fraction
from zoneinfo import ZoneInfo

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CLOUDSYNC, WORK = sys.argv[1], sys.argv[2]
PARIS = ZoneInfo("Europe/Paris")
REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKS = 0


def check(condition, what):
    global CHECKS
    if not condition:
        print(f"FAIL {what}", flush=True)
        sys.exit(1)
    CHECKS += 1
    print(f"ok   {what}", flush=True)


def readable(x):
    """docs/mcp.md, "Numbers": four significant digits, never rounding inside the whole part."""
    if x == 0:
        return 0
    decimals = 3 - math.floor(math.log10(abs(x)))
    return round(x) if decimals <= 0 else round(x, decimals)


TEXTS = []            # every text answer, for the checks that hold for all of them


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
    if not result.isError and result.content and name != "sql":
        TEXTS.append((name, arguments, result.content[0].text))
    return result


def text_of(result):
    return result.content[0].text if result.content else ""


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
            check(set(tools) == {"overview", "series", "compare_periods", "sleep", "workouts", "workout_route", "ecg", "medications", "records", "sql"},
                  f"the ten tools are listed ({sorted(tools)})")
            check(all(t.outputSchema and t.inputSchema for t in tools.values()), "every tool has an input and an output schema")

            overview = (await call(session, "overview", {})).structuredContent
            types = {t["type"]: t for t in overview["types"]}
            check(types["HKQuantityTypeIdentifierStepCount"]["count"] == len(steps), "overview counts the steps")
            check(overview["workouts"] == 1 and overview["records"].get("routes") == 1 and overview["records"].get("ecg") == 1,
                  "overview counts workout, route, ECG")
            text = TEXTS[-1][2]
            check("1 workout," in text and "1 route," in text and "1 ECG." in text, f"overview's text in the singular: {text.splitlines()[0]}")

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

            # Type names as people write them: any case, short, everyday (issue 22, item 11).
            want = (await call(session, "series", {"type": "stepCount", "bucket": "day", "timeZone": "Europe/Paris"})).structuredContent
            for name in ("stepcount", "STEPCOUNT", "steps", "Steps", "step count", "HKQuantityTypeIdentifierStepCount"):
                got = (await call(session, "series", {"type": name, "bucket": "day", "timeZone": "Europe/Paris"})).structuredContent
                check(got["buckets"] == want["buckets"] and got["type"] == "HKQuantityTypeIdentifierStepCount" and want["buckets"],
                      f"series of type {name!r} is the steps")
            for name in ("hr", "heart rate", "heartrate"):
                got = (await call(session, "series", {"type": name, "bucket": "hour"})).structuredContent
                check(got["buckets"] == hr["buckets"], f"series of type {name!r} is the heart rate")
            got = (await call(session, "records", {"type": "steps", "limit": 1000})).structuredContent
            check(len(got["records"]) == len(steps), f"records of type 'steps': {len(got['records'])} samples")
            got = (await call(session, "compare_periods", {"type": "STEPS", "first": {"start": "2024-03-28", "end": "2024-03-28"},
                                                           "second": {"start": "2024-03-29", "end": "2024-03-29"}})).structuredContent
            check(got["first"]["count"] > 0 and got["second"]["count"] > 0, "compare_periods of type 'STEPS'")
            for tool, extra in (("series", {"bucket": "day"}), ("records", {}),
                                ("compare_periods", {"first": {"start": "2024-03-28", "end": "2024-03-28"},
                                                     "second": {"start": "2024-03-29", "end": "2024-03-29"}})):
                typo = await call(session, tool, {"type": "stepcont"} | extra)
                check(typo.isError and "did you mean stepCount" in text_of(typo) and "never recorded" not in text_of(typo),
                      f"{tool} of a typo: {text_of(typo)}")
            unknown = await call(session, "series", {"type": "glucose", "bucket": "day"})
            check(unknown.isError and "never recorded" not in text_of(unknown) and "stepCount" in text_of(unknown),
                  f"a name that is no type names the types the store holds: {text_of(unknown)}")
            absent = (await call(session, "series", {"type": "Blood Glucose", "bucket": "day"})).structuredContent
            check(absent["buckets"] == [] and "no bloodGlucose samples" in absent["note"], f"a real type not recorded is named: {absent['note']}")

            comparison = (await call(session, "compare_periods", {
                "type": "stepCount", "timeZone": "Europe/Paris", "first": {"start": "2024-03-28", "end": "2024-03-29"},
                "second": {"start": "2024-03-30", "end": "2024-03-31"}})).structuredContent
            merged = expected_daily_steps(steps, True)
            a = merged["2024-03-28"] + merged["2024-03-29"]
            b = merged["2024-03-30"] + merged["2024-03-31"]
            check(comparison["first"]["value"] == a and comparison["second"]["value"] == b
                  and comparison["difference"]["absolute"] == b - a, f"compare_periods: {a} then {b}")
            # 30–31 March: 47 hours (the clock springs forward on the 31st), two days.
            check(comparison["first"]["days"] == 2 and comparison["second"]["days"] == 2
                  and comparison["second"]["dailyAverage"] == readable(b / 2), f"two days each, whatever the clock: {comparison['second']}")

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

            medications = await call(session, "medications", {"timeZone": "Europe/Paris"})
            check(medications.structuredContent["drugs"] == [] and "no medication doses" in text_of(medications),
                  "medications: none in an export, said so")

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
    await autumn_checks()
    await daily_checks()
    await every_kind_checks()
    texts_read_as_a_person_would()
    print(f"{CHECKS} checks passed", flush=True)


FMT = "%Y-%m-%d %H:%M:%S %z"


def paris(*args):
    return dt.datetime(*args, tzinfo=PARIS)


def utc_minutes(t0, t1):
    """Elapsed minutes (Python subtracts two times of one zone by their wall clocks)."""
    return (t1.astimezone(dt.timezone.utc) - t0.astimezone(dt.timezone.utc)).total_seconds() / 60


def build_autumn_export():
    """Across the Europe/Paris clock change of 27 October 2024 (a 25-hour day): a step sample a day for
    100 days and two in the repeated hour; heart rate whose average is 60.666…; a night across the change;
    a run of 3.1 mi (4.9889664 km); two ECGs of 21 October, one before 02:00 Paris (still the 20th in UTC)."""
    steps, records = [], []
    first = dt.date(2024, 9, 1)
    for i in range(100):
        day = first + dt.timedelta(days=i)
        t0 = paris(day.year, day.month, day.day, 10, 0)
        steps.append((t0, 3000 + (i * 37) % 1000))
    # 02:30 twice on the 27th: summer time, then winter time an hour later.
    steps.append((dt.datetime(2024, 10, 27, 0, 30, tzinfo=dt.timezone.utc).astimezone(PARIS), 111))
    steps.append((dt.datetime(2024, 10, 27, 1, 30, tzinfo=dt.timezone.utc).astimezone(PARIS), 222))
    for t0, value in steps:
        t1 = (t0.astimezone(dt.timezone.utc) + dt.timedelta(minutes=10)).astimezone(PARIS)   # not by the wall clock
        records.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" device="{WATCH}" unit="count" '
                       f'creationDate="{t1.strftime(FMT)}" startDate="{t0.strftime(FMT)}" endDate="{t1.strftime(FMT)}" value="{value}"/>')
    heart = [(paris(2024, 10, 21, 8, m), v) for m, v in ((0, 60), (5, 61), (10, 61))]
    for t0, value in heart:
        records.append(f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" device="{WATCH}" unit="count/min" '
                       f'creationDate="{t0.strftime(FMT)}" startDate="{t0.strftime(FMT)}" endDate="{t0.strftime(FMT)}" value="{value}"/>')
    # 23:00 summer time to 06:07:26 winter time: 8 h 7 min 26 s in bed.
    sleep = [("InBed", paris(2024, 10, 26, 23, 0), dt.datetime(2024, 10, 27, 5, 7, 26, tzinfo=dt.timezone.utc).astimezone(PARIS)),
             ("AsleepCore", paris(2024, 10, 26, 23, 20), dt.datetime(2024, 10, 27, 4, 41, 13, tzinfo=dt.timezone.utc).astimezone(PARIS))]
    for stage, t0, t1 in sleep:
        records.append(f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" device="{WATCH}" '
                       f'creationDate="{t1.strftime(FMT)}" startDate="{t0.strftime(FMT)}" endDate="{t1.strftime(FMT)}" '
                       f'value="HKCategoryValueSleepAnalysis{stage}"/>')
    run = (paris(2024, 10, 21, 18, 0), paris(2024, 10, 21, 18, 31, 14))
    workout = (f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="31.2333333" durationUnit="min" '
               f'totalDistance="3.1" totalDistanceUnit="mi" totalEnergyBurned="312.456" totalEnergyBurnedUnit="kcal" sourceName="Watch" '
               f'device="{WATCH}" creationDate="{run[1].strftime(FMT)}" startDate="{run[0].strftime(FMT)}" endDate="{run[1].strftime(FMT)}"/>')
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n <ExportDate value="2024-12-10 10:00:00 +0100"/>\n'
           + "\n".join(records) + "\n" + workout + "\n</HealthData>\n")
    ecgs = [paris(2024, 10, 21, 0, 30), paris(2024, 10, 21, 15, 0)]
    path = os.path.join(WORK, "autumn.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("apple_health_export/export.xml", xml)
        for n, recorded in enumerate(ecgs):
            csv = (f"Name,Test\nRecorded Date,{recorded.strftime(FMT)}\nClassification,Sinus Rhythm\nSymptoms,\nSoftware Version,2\n"
                   "Device,\"Watch7,2\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n" + "\n".join(str(i % 50) for i in range(5120)) + "\n")
            z.writestr(f"apple_health_export/electrocardiograms/ecg_2024-10-21{'_' + str(n) if n else ''}.csv", csv)
    return path, steps, heart, sleep, ecgs


def paris_steps(steps, first, last):
    """Steps whose start falls on the Paris dates first…last (inclusive), and those dates' count."""
    total = sum(v for t0, v in steps if first <= t0.astimezone(PARIS).date().isoformat() <= last)
    days = (dt.date.fromisoformat(last) - dt.date.fromisoformat(first)).days + 1
    return total, days


async def autumn_checks():
    export, steps, heart, sleep, ecgs = build_autumn_export()
    store = os.path.join(WORK, "autumn.sqlite")
    imported = subprocess.run([CLOUDSYNC, "import", export, "--store", store], capture_output=True, text=True)
    check(imported.returncode == 0, f"import of the autumn export: {imported.stderr.strip()}")
    params = StdioServerParameters(command=CLOUDSYNC, args=["mcp", "--store", store])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            overview = await call(session, "overview", {})
            check(overview.structuredContent["records"].get("ecg") == 2 and "2 ECGs" in text_of(overview) and "1 workout," in text_of(overview)
                  and "route" not in text_of(overview).splitlines()[0], f"overview's text: {text_of(overview).splitlines()[0]}")

            # Days of a period are calendar days in the zone (issue 22, item 8): the week of the change is 7.
            for zone in ("Europe/Paris", "UTC"):
                for first, second in ((("2024-10-14", "2024-10-20"), ("2024-10-21", "2024-10-27")),
                                      (("2024-10-16", "2024-10-31"), ("2024-11-01", "2024-11-03"))):
                    result = await call(session, "compare_periods", {"type": "steps", "timeZone": zone,
                                                                     "first": {"start": first[0], "end": first[1]},
                                                                     "second": {"start": second[0], "end": second[1]}})
                    got = result.structuredContent
                    for name, period in (("first", first), ("second", second)):
                        if zone == "Europe/Paris":
                            total, days = paris_steps(steps, *period)
                        else:
                            total = sum(v for t0, v in steps if period[0] <= t0.astimezone(dt.timezone.utc).date().isoformat() <= period[1])
                            days = (dt.date.fromisoformat(period[1]) - dt.date.fromisoformat(period[0])).days + 1
                        p = got[name]
                        check(p["days"] == days and p["value"] == total and p["dailyAverage"] == readable(total / days),
                              f"compare_periods {zone} {period[0]}…{period[1]}: {p['days']} days (want {days}), "
                              f"{p['value']} (want {total}), {p['dailyAverage']} a day (want {readable(total / days)})")
                    check(f"({got['first']['days']} days" in text_of(result), f"its text says the days: {text_of(result)}")

            # Rounding (item 20): what a person reads, in the structured answer and the text alike.
            hr = await call(session, "series", {"type": "heartRate", "bucket": "day", "timeZone": "Europe/Paris",
                                                "start": "2024-10-21", "end": "2024-10-21"})
            mean = sum(v for _, v in heart) / len(heart)
            check(hr.structuredContent["buckets"][0]["value"] == readable(mean) == 60.67 and "2024-10-21: 60.67" in text_of(hr),
                  f"an average of 60.666…: {hr.structuredContent['buckets'][0]['value']}, {text_of(hr)!r}")
            nights = await call(session, "sleep", {"start": "2024-10-26", "end": "2024-10-26", "timeZone": "Europe/Paris"})
            night = nights.structuredContent["nights"][0]
            in_bed, core = utc_minutes(sleep[0][1], sleep[0][2]), utc_minutes(sleep[1][1], sleep[1][2])
            check(night["inBed"] == readable(in_bed) == 487.4 and night["asleep"] == night["core"] == readable(core) == 441.2
                  and f"asleep {readable(core)} min" in text_of(nights) and f"in bed {readable(in_bed)}" in text_of(nights),
                  f"a night across the change, {in_bed} min in bed: {night}, {text_of(nights)!r}")
            run = await call(session, "workouts", {})
            w = run.structuredContent["workouts"][0]
            check(w["distance"] == readable(3.1 * 1.609344) == 4.989 and w["duration"] == readable(31.2333333) and w["energy"] == 312.5
                  and "4.989 km" in text_of(run) and text_of(run).startswith("1 workout\n"),
                  f"3.1 mi is 4.989 km: {w}, {text_of(run)!r}")

            # A series' text lists every bucket up to 60, else a summary and both ends.
            got = await call(session, "series", {"type": "steps", "bucket": "day", "timeZone": "Europe/Paris",
                                                 "start": "2024-10-01", "end": "2024-11-14"})
            buckets = got.structuredContent["buckets"]
            want = {}
            for t0, v in steps:
                d = t0.astimezone(PARIS).date().isoformat()
                want[d] = want.get(d, 0) + v
            lines = text_of(got).splitlines()
            check(len(buckets) == 45 and all(f"{d}: {want[d]}" in lines for d in (b["label"] for b in buckets))
                  and {b["label"]: b["value"] for b in buckets} == {d: v for d, v in want.items() if "2024-10-01" <= d <= "2024-11-14"},
                  f"45 daily buckets, all 45 in the text ({len(lines)} lines)")
            got = await call(session, "series", {"type": "steps", "bucket": "day", "timeZone": "Europe/Paris"})
            labels = sorted(want)
            text = text_of(got)
            check(len(got.structuredContent["buckets"]) == 100 and all(f"{d}: {want[d]}" in text for d in labels[:5] + labels[-5:])
                  and f"{labels[50]}:" not in text and "90 buckets omitted" in text and f"total {sum(want.values())}" in text,
                  f"100 daily buckets: a summary, both ends, 90 omitted: {text!r}")

            # ECGs by date (item 20): a date is the whole day in the zone (UTC by default).
            def day_of(t, zone):
                return t.astimezone(zone).date().isoformat()
            for zone, args in ((dt.timezone.utc, {}), (PARIS, {"timeZone": "Europe/Paris"})):
                got = await call(session, "ecg", {"recordedAt": "2024-10-21"} | args)
                recordings = got.structuredContent["recordings"]
                want = sorted(t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") for t in ecgs if day_of(t, zone) == "2024-10-21")
                check([r["recordedAt"] for r in recordings] == want and all(len(r["samples"]) == 1000 and r["samplesRateHz"] == 100 for r in recordings)
                      and text_of(got).startswith(f"{len(want)} ECG recording{'s' if len(want) != 1 else ''}\n"),
                      f"ecg on 2024-10-21 in {zone}: {[r['recordedAt'] for r in recordings]} == {want}; {text_of(got).splitlines()[0]!r}")
            got = await call(session, "ecg", {"recordedAt": "2024-10-22", "timeZone": "Europe/Paris"})
            check(got.structuredContent["recordings"] == [] and "no ECG recorded on 2024-10-22" in got.structuredContent["note"], "no ECG that day")
            got = await call(session, "ecg", {"recordedAt": "2024-10-21T13:00:00Z", "maxSamples": 512})
            check(len(got.structuredContent["recordings"]) == 1 and len(got.structuredContent["recordings"][0]["samples"]) == 512,
                  "an instant still gives that one recording")


# The `sql` tool's `daily` view, and the SQL recipes of README.md and docs/mcp.md (issue 22, item 10).

LA = ZoneInfo("America/Los_Angeles")
STEPS = "HKQuantityTypeIdentifierStepCount"
WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
DAILY_FIRST = dt.date(2025, 2, 23)         # a Sunday; three weeks to 15 March, across the 9 March clock change
DAILY_DAYS = 21
NO_STEPS = {3, 11, 16}                    # days without a step: the weekdays are not all seen as often


def la(day, hour, minute=0):
    """A Los Angeles wall-clock time `day` days after DAILY_FIRST (hour 24 is the next day's 00)."""
    date = DAILY_FIRST + dt.timedelta(days=day + hour // 24)
    return dt.datetime(date.year, date.month, date.day, hour % 24, minute, tzinfo=LA)


def record(kind, source, t0, t1, value, unit, created=None):
    device = WATCH if source == "Watch" else PHONE
    return (f' <Record type="{kind}" sourceName="{source}" device="{device}" unit="{unit}" creationDate="{(created or t1).strftime(FMT)}" '
            f'startDate="{t0.strftime(FMT)}" endDate="{t1.strftime(FMT)}" value="{value}"/>')


def build_daily_export():
    """Three weeks in Los Angeles. Each day with steps: a morning walk the Watch and the iPhone both count (the
    same span); the iPhone's own walk at noon; an evening walk across local midnight (already the next day in
    UTC) that the iPhone counts from 23:40 to 00:20 and the Watch in two samples, 23:50–00:10 and 00:10–00:30.
    Heart rate from the Watch and, every other day, the iPhone around 23:30; resting heart rate at 21:30 (05:30
    UTC the next day: 28 February is 1 March in UTC). One Watch sample written twice (a repeat, counted once).
    Returns the export, the steps (source, start, end, value), heart rate and resting heart rate (source, start, value)."""
    steps, heart, resting, records = [], [], [], []
    for i in range(DAILY_DAYS):
        if i not in NO_STEPS:
            walk = 2500 + (i * 1237) % 9000
            steps += [("Watch", la(i, 8), la(i, 8, 30), walk), ("iPhone", la(i, 8), la(i, 8, 30), walk * 9 // 10),
                      ("iPhone", la(i, 12), la(i, 12, 20), 400 + 10 * i)]
            if i + 1 not in NO_STEPS:
                steps += [("iPhone", la(i, 23, 40), la(i, 24, 20), 800 + 4 * i), ("Watch", la(i, 23, 50), la(i, 24, 10), 600 + i),
                          ("Watch", la(i, 24, 10), la(i, 24, 30), 300 + i)]
        heart.append(("Watch", la(i, 23, 30), 60 + i % 9))
        if i % 2 == 0:
            heart.append(("iPhone", la(i, 23, 45), 65 + i % 4))
        resting.append(("Watch", la(i, 21, 30), 52 + (i * 3) % 7))
    records += [record(STEPS, source, t0, t1, value, "count") for source, t0, t1, value in steps]
    repeat = next(s for s in steps if s[0] == "Watch" and s[1] == la(5, 8))
    records.append(record(STEPS, repeat[0], repeat[1], repeat[2], repeat[3], "count", created=la(5, 9)))
    records += [record("HKQuantityTypeIdentifierHeartRate", source, t, t, value, "count/min") for source, t, value in heart]
    records += [record("HKQuantityTypeIdentifierRestingHeartRate", source, t, t, value, "count/min") for source, t, value in resting]
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n <ExportDate value="2025-03-20 10:00:00 -0700"/>\n'
           + "\n".join(records) + "\n</HealthData>\n")
    path = os.path.join(WORK, "daily.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("apple_health_export/export.xml", xml)
    return path, steps, heart, resting


def merged_steps(steps):
    """docs/aggregation.md's rule for this export's two sources, computed here: a Watch sample counts whole; an
    iPhone sample keeps the part of its span that no Watch sample covers, its value prorated by it, and is not
    counted when nothing is left. Returns (start, value) of the samples that count."""
    watch = [(t0.timestamp(), t1.timestamp()) for source, t0, t1, _ in steps if source == "Watch"]
    counted = []
    for source, t0, t1, value in steps:
        start, end = t0.timestamp(), t1.timestamp()
        if source != "Watch":
            covering = sorted((max(a, start), min(b, end)) for a, b in watch if a < end and b > start)
            covered, reach = 0, start
            for a, b in covering:
                covered += max(0, b - max(a, reach))
                reach = max(reach, b)
            value = Fraction(value) * Fraction(int(end - start - covered), int(end - start))
        if value > 0:
            counted.append((t0, value))
    return counted


def per_day(samples, zone):
    """{date: [values]}, each value on the day of its start in `zone`."""
    days = {}
    for t0, value in samples:
        days.setdefault(t0.astimezone(zone).date(), []).append(value)
    return days


def weekday_averages(day_totals):
    """{weekday name: the mean of the totals of that weekday's days}, exact."""
    by_weekday = {}
    for day, total in day_totals.items():
        by_weekday.setdefault(WEEKDAYS[day.isoweekday() % 7], []).append(total)
    return {name: Fraction(sum(totals)) / len(totals) for name, totals in by_weekday.items()}


def sqlite_round(x, digits=0):
    """SQLite's round() of a positive number known exactly: half up. To whole numbers SQLite adds 0.5 and truncates,
    exact for a half; to decimals it prints the double, so a half there is a fixture to change, not a rounding to guess."""
    scaled = Fraction(x) * 10 ** digits
    if digits:
        check(abs(scaled - math.floor(scaled) - Fraction(1, 2)) > Fraction(1, 10 ** 6), f"no tie to round in the fixture: {float(x)}")
    return math.floor(scaled + Fraction(1, 2)) / 10 ** digits


def cli_daily(store, zone):
    """`cloudsync aggregate --bucket day --merge-sources --tz ZONE --format csv`: {(type, unit, day): numbers}."""
    out = subprocess.run([CLOUDSYNC, "aggregate", "--store", store, "--bucket", "day", "--merge-sources", "--tz", zone, "--format", "csv"],
                         capture_output=True, text=True)
    check(out.returncode == 0, f"aggregate --tz {zone}: {out.stderr.strip()}")
    return {(r["type"], r["unit"], r["bucket"]): tuple(float(r[k]) for k in ("count", "sum", "average", "minimum", "maximum"))
            for r in csv.DictReader(io.StringIO(out.stdout))}


async def daily_rows(session, zone):
    """Every row of `daily` in `zone` (UTC: without the argument, its default): {(type, unit, day): numbers}."""
    args = {"query": "SELECT type, unit, day, count, sum, average, minimum, maximum FROM daily", "limit": 10000}
    result = await call(session, "sql", args | ({} if zone == "UTC" else {"timeZone": zone}))
    check(not result.isError and result.structuredContent.get("timeZone") == zone and f"(daily in {zone})" in text_of(result),
          f"daily in {zone}: {text_of(result).splitlines()[0]}")
    rows = result.structuredContent["rows"]
    return {(t, u, d): tuple(float(x) for x in numbers) for t, u, d, *numbers in rows}


def recipes_in_docs():
    """The ```sql blocks of docs/mcp.md's "Recipes", as written there."""
    text = open(os.path.join(REPOSITORY, "docs", "mcp.md"), encoding="utf-8").read()
    section = text.split("### Recipes", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, re.S)


def readme_weekday_recipe():
    """The arguments of the `sql` call README.md gives for "On which weekdays do I walk most?"."""
    text = open(os.path.join(REPOSITORY, "README.md"), encoding="utf-8").read()
    span = text.split('"On which weekdays do I walk most?"', 1)[1].split("`", 2)[1]
    check(span.startswith("sql {"), f"README's weekday recipe is a sql call: {span[:40]}")
    return json.loads(" ".join(span[len("sql "):].split()))       # a line break in a code span is a space


def builds(log):
    """The server's stderr lines that say it built `daily`'s rows."""
    with open(log, encoding="utf-8") as f:
        return [line for line in f if "built the daily view" in line]


async def daily_checks():
    export, steps, heart, resting = build_daily_export()
    store = os.path.join(WORK, "daily.sqlite")
    imported = subprocess.run([CLOUDSYNC, "import", export, "--store", store], capture_output=True, text=True)
    check(imported.returncode == 0 and "1 repeat" in imported.stderr, f"import of the Los Angeles export: {imported.stderr.strip()}")
    zone = "America/Los_Angeles"

    # What the check computes itself: merged steps per local day, and what a wrong recipe would give instead.
    merged = {day: sum(values) for day, values in per_day(merged_steps(steps), LA).items()}
    added = {day: sum(values) for day, values in per_day([(t0, v) for _, t0, _, v in steps], LA).items()}
    utc_days = {day: sum(values) for day, values in per_day(merged_steps(steps), dt.timezone.utc).items()}
    want_weekdays = {name: sqlite_round(mean) for name, mean in weekday_averages(merged).items()}
    check(want_weekdays != {n: sqlite_round(m) for n, m in weekday_averages(added).items()}
          and want_weekdays != {n: sqlite_round(m) for n, m in weekday_averages(utc_days).items()}
          and any(added[d] > 1.5 * merged[d] for d in merged),
          f"the fixture tells merged local days from added sources and from UTC days: {want_weekdays}")

    log = os.path.join(WORK, "daily-server.log")
    params = StdioServerParameters(command=CLOUDSYNC, args=["mcp", "--store", store])
    with open(log, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()

                # A query that does not name `daily` builds nothing (a CTE named daily_steps is not `daily`).
                for query in ("SELECT count(*) FROM metrics", "WITH daily_steps AS (SELECT 1 AS x) SELECT x FROM daily_steps"):
                    result = await call(session, "sql", {"query": query, "timeZone": zone})
                    check(not result.isError and "timeZone" not in result.structuredContent and builds(log) == [],
                          f"{query!r} builds no daily rows ({len(builds(log))} builds)")

                # `daily` is `aggregate --bucket day --merge-sources --tz ZONE`, in three zones (Kolkata: not whole hours).
                # The rows of the last two zones asked are kept: Kolkata lets UTC go, not Los Angeles, used since.
                for name, built, reason in ((zone, 1, "first use"), ("UTC", 2, "first use"), (zone, 2, None), ("Asia/Kolkata", 3, "first use"),
                                            (zone, 3, None), ("UTC", 4, "not kept")):
                    got, want = await daily_rows(session, name), cli_daily(store, name)
                    check(got == want and len(want) > 40, f"daily in {name} is aggregate's CSV: {len(got)} rows, {len(want)} in the CSV")
                    check(len(builds(log)) == built and (reason is None or f"daily.zone={name}" in builds(log)[-1] and reason in builds(log)[-1]),
                          f"daily in {name}: {'built, ' + reason if reason else 'its rows were kept'} ({len(builds(log))} builds)")
                got = await daily_rows(session, zone)
                check(len(builds(log)) == 4, f"{zone} again: its rows were kept ({len(builds(log))} builds)")
                steps_days = {d: v for (t, _, d), v in got.items() if t == STEPS}
                want = {d.isoformat(): (len(vs), sum(vs), min(vs), max(vs)) for d, vs in per_day(merged_steps(steps), LA).items()}
                check({d: (v[0], v[1], v[3], v[4]) for d, v in steps_days.items()} == want,
                      f"daily's steps are the merged sums computed here, per Los Angeles day ({len(want)} days)")

                rows = (await call(session, "sql", {"query": "SELECT day, weekday, weekday_name FROM daily", "timeZone": zone})).structuredContent["rows"]
                check(rows and all(w == dt.date.fromisoformat(d).isoweekday() % 7 and n == WEEKDAYS[w] for d, w, n in rows),
                      f"weekday 0 = Sunday … 6 and its name, for {len(rows)} rows")

                # README's recipe, as written there (in the fixture's zone).
                args = readme_weekday_recipe()
                check("daily" in args["query"] and "timeZone" in args, f"README's recipe reads daily in a time zone: {args}")
                result = await call(session, "sql", args | {"timeZone": zone})
                got = {name: value for name, value in result.structuredContent["rows"]}
                values = [value for _, value in result.structuredContent["rows"]]
                check(got == want_weekdays and values == sorted(values, reverse=True),
                      f"README's weekday recipe: {got} == {want_weekdays}")
                former = (await call(session, "sql", {"query": f"SELECT strftime('%w', start) AS weekday, sum(value) FROM metrics WHERE type = '{STEPS}' "
                                                               "GROUP BY weekday"})).structuredContent["rows"]
                sums = {}
                for day, total in merged.items():
                    sums[str(day.isoweekday() % 7)] = sums.get(str(day.isoweekday() % 7), 0) + total
                check({w: v for w, v in former} != sums, f"the former recipe did not give the merged local weekdays: {former} != {sums}")

                # Every recipe of docs/mcp.md, as written there.
                recipes = recipes_in_docs()
                want_resting = {}
                for month, values in [(m, [v for (_, t, v) in resting if t.astimezone(LA).strftime("%Y-%m") == m]) for m in ("2025-02", "2025-03")]:
                    want_resting[month] = sqlite_round(Fraction(sum(values), len(values)), 1)
                utc_resting = {}
                for _, t, v in resting:
                    utc_resting.setdefault(t.astimezone(dt.timezone.utc).strftime("%Y-%m"), []).append(v)
                check(want_resting != {m: sqlite_round(Fraction(sum(v), len(v)), 1) for m, v in utc_resting.items()},
                      f"the fixture tells local months from UTC ones: {want_resting}")
                big = {}
                for day, total in merged.items():
                    if total >= 10000:
                        big[day.strftime("%Y-%m")] = big.get(day.strftime("%Y-%m"), 0) + 1
                big_added = sum(1 for total in added.values() if total >= 10000)
                check(big and sum(big.values()) != big_added, f"the fixture has days of 10,000 steps, more when adding sources: {big}, {big_added}")
                sources = {}
                for source, _, _ in heart:
                    sources[source] = sources.get(source, 0) + 1
                check(len(recipes) >= 4, f"docs/mcp.md has {len(recipes)} recipes")
                for recipe in recipes:
                    result = await call(session, "sql", {"query": recipe, "timeZone": zone})
                    check(not result.isError, f"recipe runs: {' '.join(recipe.split())[:80]}… {text_of(result)[:100]}")
                    rows = result.structuredContent["rows"]
                    if "weekday" in recipe:
                        got, want = {n: v for n, v in rows}, want_weekdays
                    elif "RestingHeartRate" in recipe:
                        got, want = {m: v for m, v in rows}, want_resting
                    elif "10000" in recipe:
                        got, want = {m: v for m, v in rows}, big
                    elif "FROM metrics" in recipe and "HeartRate" in recipe:
                        got, want = {s: v for s, v in rows}, sources
                    else:
                        got, want = rows, "a check of its own in mcp_client_check.py"
                    check(got == want, f"recipe {' '.join(recipe.split())[:60]}…: {got} == {want}")

                # An import while the server runs: the zone's rows are built again, with the new day.
                more = os.path.join(WORK, "more-daily.xml")
                with open(more, "w") as f:
                    f.write('<?xml version="1.0"?>\n<HealthData locale="en_US">\n'
                            + record(STEPS, "Watch", la(25, 10), la(25, 10, 20), 4321, "count") + "\n</HealthData>\n")
                again = subprocess.run([CLOUDSYNC, "import", more, "--store", store], capture_output=True, text=True)
                check(again.returncode == 0, f"an import while the server runs: {again.stderr.strip()}")
                got, want = await daily_rows(session, zone), cli_daily(store, zone)
                check(got == want and (STEPS, "count", la(25, 10).date().isoformat()) in got and len(builds(log)) == 5
                      and "store changed" in builds(log)[-1], f"after the import, daily is built again: {builds(log)[-1].strip()}")

                # With `daily` built (our own writes, guard lifted), the assistant still cannot write, attach or read tables.
                before = hashlib.sha256(open(store, "rb").read()).hexdigest()
                for query in ("DELETE FROM daily", "UPDATE daily SET sum = 0", "INSERT INTO daily (type) VALUES ('x')", "DROP VIEW daily",
                              "CREATE TEMP TABLE copy AS SELECT * FROM daily", "CREATE TEMP VIEW daily2 AS SELECT * FROM daily",
                              f"ATTACH DATABASE '{os.path.join(WORK, 'daily-other.db')}' AS daily", "PRAGMA query_only = 0",
                              "SELECT * FROM daily, metric", "SELECT name FROM sqlite_temp_master", "SELECT * FROM pragma_table_list",
                              "SELECT * FROM temp.sqlite_master WHERE name LIKE 'daily%'", "DELETE FROM metrics", "SELECT 1; DELETE FROM daily"):
                    result = await call(session, "sql", {"query": query, "timeZone": zone})
                    check(result.isError, f"refused with daily built: {query} → {text_of(result)[:90]}")
                result = await call(session, "sql", {"query": "SELECT * FROM daily", "timeZone": "Mars/Olympus"})
                check(result.isError and "time zone" in text_of(result), f"a time zone that does not exist: {text_of(result)}")
                check(await daily_rows(session, zone) == want and len(builds(log)) == 5, "daily is unchanged by the refused calls")
                check(hashlib.sha256(open(store, "rb").read()).hexdigest() == before, "the store file is byte-identical")
    readme_duckdb_recipe(export, heart)


def readme_duckdb_recipe(export, heart):
    """README's "Average heart rate per day in your time zone with DuckDB", as written there, on this export:
    the days are Los Angeles days whatever DuckDB's own time zone is."""
    import duckdb  # the Swift test runs this check only when .venv has it (MCPClient.isInstalled)
    text = open(os.path.join(REPOSITORY, "README.md"), encoding="utf-8").read()
    recipe = text.split("# Average heart rate per day in your time zone with DuckDB", 1)[1].split('duckdb -c "', 1)[1].split('"\n', 1)[0]
    path = os.path.join(WORK, "hr.jsonl")
    converted = subprocess.run([CLOUDSYNC, "convert", export, "--types", "heartRate", "-o", path], capture_output=True, text=True)
    check(converted.returncode == 0, f"convert of the heart rate: {converted.stderr.strip()}")
    want = {day.isoformat(): float(Fraction(sum(v), len(v))) for day, v in per_day([(t, v) for _, t, v in heart], LA).items()}
    for session_zone in ("UTC", "Asia/Tokyo"):
        connection = duckdb.connect()
        connection.execute(f"SET TimeZone = '{session_zone}'")
        rows = connection.execute(recipe.replace("'hr.jsonl'", f"'{path}'").replace("Europe/Paris", "America/Los_Angeles")).fetchall()
        got = {str(day)[:10]: value for day, value in rows}
        check(got.keys() == want.keys() and all(abs(got[d] - want[d]) < 1e-9 for d in want),
              f"README's DuckDB recipe gives Los Angeles days (DuckDB in {session_zone}): {len(got)} days")


async def every_kind_checks():
    """The repository's sample holds one record of every kind: the overview counts each (audiograms and
    vision prescriptions, the kinds added last, included) and its text names them."""
    sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "export.zip")
    store = os.path.join(WORK, "sample.sqlite")
    imported = subprocess.run([CLOUDSYNC, "import", sample, "--store", store], capture_output=True, text=True)
    check(imported.returncode == 0, f"import of the sample: {imported.stderr.strip()}")
    params = StdioServerParameters(command=CLOUDSYNC, args=["mcp", "--store", store])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            overview = await call(session, "overview", {})
            records = overview.structuredContent["records"]
            check(records == {"beats": 1, "correlations": 1, "routes": 2, "ecg": 1, "clinical": 1, "audiograms": 1,
                              "vision-prescriptions": 1, "medications": 0, "state-of-mind": 0, "series": 0},
                  f"the overview counts every kind: {records}")
            first = text_of(overview).splitlines()[0]
            check("1 audiogram" in first and "1 vision prescription" in first, f"the overview's text names them: {first}")


def texts_read_as_a_person_would():
    """Every text answer (but sql's, the user's own numbers): no unrounded number, no "1 workouts"."""
    plural = re.compile(r"(?<![\d.,:-])1 (?:ECG )?(?:workouts|routes|ECGs|nights|buckets|samples|rows|types|sources|metrics|recordings|days|points)\b")
    unrounded = [(name, arguments, m.group()) for name, arguments, text in TEXTS for m in [re.search(r"\d\.\d{5,}", text)] if m]
    check(len(TEXTS) > 50 and not unrounded, f"numbers rounded in the text of {len(TEXTS)} answers: {unrounded[:3]}")
    wrong = [(name, arguments, m.group()) for name, arguments, text in TEXTS for m in [plural.search(text)] if m]
    check(not wrong, f"counted in the right number in the text of {len(TEXTS)} answers: {wrong[:3]}")


asyncio.run(main())
