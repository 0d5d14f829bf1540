#!/usr/bin/env python3
"""Generate a large, realistic Apple Health export for benchmarks (deterministic for a given seed and size).

    python3 Benchmarks/generate-export.py --size-mb 1024 --out DIR [--seed 1] [--xml-only | --no-xml] [--dialect ios8]

Writes
  DIR/export.zip    apple_health_export/export.xml (deflate, zip64) + apple_health_export/workout-routes/*.gpx
                    (one point per second of each outdoor workout) + apple_health_export/electrocardiograms/*.csv
                    + apple_health_export/clinical-records/*.json (FHIR R4 resources, each named by a ClinicalRecord)
  DIR/export.xml    the same XML, plain (skipped with --no-xml; --xml-only skips the zip instead)
  DIR/counts.json   exact element counts and metric counts per type, so a benchmark can check what it converted

The data is synthetic: nothing comes from a real person. Its shape follows real v14 exports (iOS 18): Records
grouped by type, each type advancing in time over the years, Apple Watch and iPhone sources with `HKDevice`
strings, ~1/3 of Records with a MetadataEntry, HRV beat lists, sleep stages, blood-pressure Correlations whose
two Records also appear at top level, modern and old-style Workouts, then one ActivitySummary per day.
Proportions follow a real 3.1 GB export (7.4M Records), so a 1 GiB file holds ~2.4M Records.

--dialect ios8 writes the same data as iOS 8 (2014-2015) wrote its exports: no DTD, dates as
`20141018163200+0100`, `source=` instead of `sourceName=`, and a Record's MetadataEntry children as attributes
of the Record, one of them with spaces in its name (`Some App Version="2.6.2"`, not well-formed XML).

Speed matters (1 GiB in well under 2 minutes): every string that does not change per record is precomputed
(dates are a day prefix + one of 86400 precomputed "HH:MM:SS" + the day's UTC offset, values come from
precomputed pools), records are joined into multi-megabyte chunks, and deflate runs in a second thread
(zlib releases the GIL) while the main thread formats the next chunk.
"""
import argparse
import datetime
import json
import os
import queue
import random
import re
import sys
import threading
import time
import zipfile

EXPORT_AT = datetime.datetime(2025, 11, 13, 10, 36, 12)   # local time, Europe/Paris (+0100 in November)
EXPORT_DATE = "2025-11-13 10:36:12 +0100"
ZIP_TIME = (2025, 11, 13, 10, 36, 12)                       # fixed zip timestamps: same seed -> same bytes
ROOT = "apple_health_export"
WATCH = "Zoë’s Apple Watch"                                 # curly apostrophe and a diaeresis, as users have
PHONE = "Zoë’s iPhone"
DAY = 86400

# A real export is internally consistent; this one also exercises the unit conversions a converter needs, so
# records written in the first half of each type's time span use metric units and the second half US units.
METRIC, US = 0, 1

# Device generations over the years: (from, watch hardware, watchOS, iPhone hardware, iOS).
# From watchOS 9 / iOS 16 on, HKDevice descriptions end with ", creation date:…", as in real exports.
ERAS = [
    (datetime.date(2000, 1, 1), "Watch3,4", "5.3", "iPhone10,4", "12.4"),
    (datetime.date(2020, 1, 1), "Watch5,4", "6.2.8", "iPhone12,1", "13.3"),
    (datetime.date(2021, 1, 1), "Watch6,2", "7.6.2", "iPhone12,1", "14.8"),
    (datetime.date(2022, 1, 1), "Watch6,2", "8.7", "iPhone13,2", "15.6"),
    (datetime.date(2023, 1, 1), "Watch6,2", "9.1", "iPhone14,2", "16.1"),
    (datetime.date(2024, 1, 1), "Watch6,2", "10.6.1", "iPhone14,2", "17.5"),
    (datetime.date(2025, 1, 1), "Watch7,2", "11.6.1", "iPhone16,1", "18.6"),
]


# ---------------------------------------------------------------------------------------------------------------
# The internal DTD subset. Written for this generator in the style of Apple's v14 one, but describing what the
# generator really writes (Apple's omits WorkoutActivity), so `xmllint --valid` accepts a generated file.
DTD = """<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 14 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT ExportDate EMPTY>
<!ATTLIST ExportDate
  value CDATA #REQUIRED
>
<!ELEMENT Me EMPTY>
<!ATTLIST Me
  HKCharacteristicTypeIdentifierDateOfBirth                 CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBiologicalSex               CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBloodType                   CDATA #REQUIRED
  HKCharacteristicTypeIdentifierFitzpatrickSkinType         CDATA #REQUIRED
  HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!-- A Record inside a Correlation is also written once more at top level. -->
<!ELEMENT Correlation ((MetadataEntry|Record)*)>
<!ATTLIST Correlation
  type          CDATA #REQUIRED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutActivity|WorkoutStatistics|WorkoutRoute)*)>
<!ATTLIST Workout
  workoutActivityType   CDATA #REQUIRED
  duration              CDATA #IMPLIED
  durationUnit          CDATA #IMPLIED
  totalDistance         CDATA #IMPLIED
  totalDistanceUnit     CDATA #IMPLIED
  totalEnergyBurned     CDATA #IMPLIED
  totalEnergyBurnedUnit CDATA #IMPLIED
  sourceName            CDATA #REQUIRED
  sourceVersion         CDATA #IMPLIED
  device                CDATA #IMPLIED
  creationDate          CDATA #IMPLIED
  startDate             CDATA #REQUIRED
  endDate               CDATA #REQUIRED
>
<!ELEMENT WorkoutActivity ((MetadataEntry|WorkoutEvent|WorkoutStatistics)*)>
<!ATTLIST WorkoutActivity
  uuid          CDATA #REQUIRED
  startDate     CDATA #REQUIRED
  endDate       CDATA #IMPLIED
  duration      CDATA #IMPLIED
  durationUnit  CDATA #IMPLIED
>
<!ELEMENT WorkoutEvent ((MetadataEntry)*)>
<!ATTLIST WorkoutEvent
  type          CDATA #REQUIRED
  date          CDATA #REQUIRED
  duration      CDATA #IMPLIED
  durationUnit  CDATA #IMPLIED
>
<!ELEMENT WorkoutStatistics EMPTY>
<!ATTLIST WorkoutStatistics
  type          CDATA #REQUIRED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
  average       CDATA #IMPLIED
  minimum       CDATA #IMPLIED
  maximum       CDATA #IMPLIED
  sum           CDATA #IMPLIED
  unit          CDATA #IMPLIED
>
<!ELEMENT WorkoutRoute ((MetadataEntry|FileReference)*)>
<!ATTLIST WorkoutRoute
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ELEMENT FileReference EMPTY>
<!ATTLIST FileReference
  path          CDATA #REQUIRED
>
<!ELEMENT ActivitySummary EMPTY>
<!ATTLIST ActivitySummary
  dateComponents          CDATA #IMPLIED
  activeEnergyBurned      CDATA #IMPLIED
  activeEnergyBurnedGoal  CDATA #IMPLIED
  activeEnergyBurnedUnit  CDATA #IMPLIED
  appleMoveTime           CDATA #IMPLIED
  appleMoveTimeGoal       CDATA #IMPLIED
  appleExerciseTime       CDATA #IMPLIED
  appleExerciseTimeGoal   CDATA #IMPLIED
  appleStandHours         CDATA #IMPLIED
  appleStandHoursGoal     CDATA #IMPLIED
>
<!ELEMENT MetadataEntry EMPTY>
<!ATTLIST MetadataEntry
  key           CDATA #REQUIRED
  value         CDATA #REQUIRED
>
<!-- Apple Watch HRV samples may carry the instantaneous heart rate of each beat used. -->
<!ELEMENT HeartRateVariabilityMetadataList (InstantaneousBeatsPerMinute*)>
<!ELEMENT InstantaneousBeatsPerMinute EMPTY>
<!ATTLIST InstantaneousBeatsPerMinute
  bpm           CDATA #REQUIRED
  time          CDATA #REQUIRED
>
<!ELEMENT ClinicalRecord EMPTY>
<!ATTLIST ClinicalRecord
  type              CDATA #REQUIRED
  identifier        CDATA #REQUIRED
  sourceName        CDATA #REQUIRED
  sourceURL         CDATA #REQUIRED
  fhirVersion       CDATA #REQUIRED
  receivedDate      CDATA #REQUIRED
  resourceFilePath  CDATA #REQUIRED
>
]>
"""

ME = ('<Me HKCharacteristicTypeIdentifierDateOfBirth="1991-04-12" '
      'HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" '
      'HKCharacteristicTypeIdentifierBloodType="HKBloodTypeAPositive" '
      'HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" '
      'HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>')


def md(key, value, indent="  "):
    return f'{indent}<MetadataEntry key="{key}" value="{value}"/>\n'


# ---------------------------------------------------------------------------------------------------------------
# Record types. share: records per 1000 (from a heavy Watch user's real export); src: 'watch' | 'phone' |
# 'withings' | 'health'; units: (metric, US) and factor US = metric * factor; pool: draws a metric value;
# fmt: how Apple prints it; dur/lag: seconds (start->end, end->creationDate); meta: (probability, [entries]).
# Types are written in this order, all records of one type together, as Apple does.
Q = "HKQuantityTypeIdentifier"
C = "HKCategoryTypeIdentifier"


def g6(x):
    return "%.6g" % x


def gi(x):
    return "%d" % round(x)


MOTION = [md("HKMetadataKeyHeartRateMotionContext", v) for v in "0001112"]
TZ = [md("HKTimeZone", "Europe/Paris")]
SPECS = [
    dict(type=Q + "Height", share=0.02, src="health", units=(("cm", 1), ("ft", 1 / 30.48), ("in", 1 / 2.54)),
         pool=lambda r: r.gauss(168, 0.3), meta=(1, [md("HKWasUserEntered", "1")])),
    dict(type=Q + "BodyMass", share=0.6, src="withings", units=(("kg", 1), ("lb", 2.20462)),
         pool=lambda r: r.gauss(61, 1.5)),
    dict(type=Q + "BodyMassIndex", share=0.6, src="withings", units=(("count", 1),),
         pool=lambda r: r.gauss(21.6, 0.5)),
    dict(type=Q + "HeartRate", share=320, src="watch", units=(("count/min", 1),), fmt=gi,
         pool=lambda r: min(185, max(42, r.gauss(74, 15))), lag=(30, 900), meta=(0.95, MOTION)),
    dict(type=Q + "StepCount", share=55, src="phone", units=(("count", 1),), fmt=gi,
         pool=lambda r: r.expovariate(1 / 180) + 1, dur=(60, 600), lag=(60, 1200)),
    dict(type=Q + "StepCount", share=35, src="watch", units=(("count", 1),), fmt=gi,
         pool=lambda r: r.expovariate(1 / 90) + 1, dur=(60, 300), lag=(60, 900)),
    dict(type=Q + "DistanceWalkingRunning", share=45, src="phone", units=(("km", 1), ("mi", 0.621371)),
         pool=lambda r: r.expovariate(1 / 0.12) + 0.001, dur=(60, 600), lag=(60, 1200)),
    dict(type=Q + "DistanceWalkingRunning", share=35, src="watch", units=(("km", 1), ("mi", 0.621371)),
         pool=lambda r: r.expovariate(1 / 0.06) + 0.001, dur=(30, 300), lag=(60, 900)),
    dict(type=Q + "BasalEnergyBurned", share=160, src="watch", units=(("kJ", 4.184), ("kcal", 1)),
         pool=lambda r: r.uniform(0.9, 12), dur=(60, 900), lag=(60, 1800)),
    dict(type=Q + "ActiveEnergyBurned", share=200, src="watch", units=(("kJ", 4.184), ("kcal", 1)),
         pool=lambda r: r.expovariate(1 / 0.4) + 0.01, dur=(50, 70), lag=(60, 900)),
    dict(type=Q + "FlightsClimbed", share=8, src="phone", units=(("count", 1),), fmt=gi,
         pool=lambda r: 1 + r.expovariate(1), dur=(10, 300)),
    dict(type=Q + "AppleExerciseTime", share=20, src="watch", units=(("min", 1),), fmt=gi,
         pool=lambda r: 1, dur=(60, 60)),
    dict(type=Q + "OxygenSaturation", share=8, src="watch", units=(("%", 1),), fmt=lambda x: "%.2f" % x,
         pool=lambda r: min(1.0, r.gauss(0.965, 0.015)), lag=(5, 60),
         meta=(0.9, [md("HKMetadataKeyBarometricPressure", "%.4g kPa" % p) for p in (100.9, 101.3, 101.8)])),
    dict(type=Q + "RespiratoryRate", share=15, src="watch", units=(("count/min", 1),),
         pool=lambda r: round(r.gauss(15, 1.2) * 2) / 2, lag=(60, 900)),
    dict(type=Q + "BodyTemperature", share=0.1, src="health", units=(("degC", 1), ("degF", 1.8)),
         pool=lambda r: r.gauss(36.8, 0.25), meta=(1, [md("HKWasUserEntered", "1")])),
    dict(type=Q + "BloodPressureSystolic", kind="bp"),
    dict(type=Q + "BloodPressureDiastolic", kind="bp"),
    dict(type=Q + "RestingHeartRate", share=1, src="watch", units=(("count/min", 1),), fmt=gi,
         pool=lambda r: r.gauss(56, 3), dur=(60000, 80000), lag=(60, 600)),
    dict(type=Q + "VO2Max", share=0.5, src="watch", units=(("mL/min&#183;kg", 1),),
         fmt=lambda x: "%.2f" % x, pool=lambda r: r.gauss(44, 1.5), lag=(1, 3),
         meta=(1, [md("HKVO2MaxTestType", "2") + md("HKMetadataKeySyncVersion", "1")])),
    dict(type=Q + "WalkingHeartRateAverage", share=1, src="watch", units=(("count/min", 1),), fmt=gi,
         pool=lambda r: r.gauss(98, 7), dur=(40000, 60000)),
    dict(type=Q + "HeadphoneAudioExposure", share=10, src="phone", units=(("dBASPL", 1),),
         pool=lambda r: r.gauss(68, 8), dur=(60, 1800)),
    dict(type=Q + "EnvironmentalAudioExposure", share=20, src="watch", units=(("dBASPL", 1),),
         pool=lambda r: r.gauss(62, 10), dur=(1800, 1800)),
    dict(type=Q + "WalkingDoubleSupportPercentage", share=8, src="phone", units=(("%", 1),),
         pool=lambda r: r.gauss(0.29, 0.02), dur=(10, 600)),
    dict(type=Q + "AppleStandTime", share=20, src="watch", units=(("min", 1),), fmt=gi,
         pool=lambda r: 1 + r.expovariate(1 / 2), dur=(60, 300)),
    dict(type=Q + "WalkingSpeed", share=12, src="phone", units=(("km/hr", 1), ("mi/hr", 0.621371)),
         pool=lambda r: r.gauss(4.6, 0.5), dur=(10, 600)),
    dict(type=Q + "WalkingStepLength", share=12, src="phone", units=(("cm", 1), ("in", 1 / 2.54)),
         pool=lambda r: r.gauss(68, 4), dur=(10, 600)),
    dict(type=Q + "WalkingAsymmetryPercentage", share=5, src="phone", units=(("%", 1),),
         pool=lambda r: max(0.0, r.gauss(0.03, 0.03)), dur=(10, 600),
         meta=(1, [md("HKMetadataKeyDevicePlacementSide", v) for v in "1111112220"])),
    dict(type=Q + "PhysicalEffort", share=10, src="watch", units=(("kcal/hr·kg", 1),),
         pool=lambda r: r.uniform(1.2, 9), dur=(60, 60)),
    dict(type="HKDataTypeSleepDurationGoal", share=0.01, src="phone", units=(("hr", 1),), fmt=gi,
         pool=lambda r: r.choice((7, 7.5, 8))),
    dict(type=C + "SleepAnalysis", kind="sleep", share=20, meta=(1, TZ)),
    dict(type=C + "AppleStandHour", kind="stand", share=15),
    dict(type=C + "MindfulSession", share=0.2, src="phone", units=((None, 1),), dur=(300, 900),
         values=["HKCategoryValueNotApplicable"]),
    dict(type=C + "HighHeartRateEvent", share=0.05, src="watch", units=((None, 1),), dur=(600, 600),
         values=[None], meta=(1, [md("HKHeartRateEventThreshold", "120 count/min")])),
    dict(type=C + "LowHeartRateEvent", share=0.3, src="watch", units=((None, 1),), dur=(600, 600),
         values=[None], meta=(1, [md("HKHeartRateEventThreshold", "40 count/min")])),
    dict(type=Q + "HeartRateVariabilitySDNN", kind="hrv", share=2.6),
]


# ---------------------------------------------------------------------------------------------------------------
class Calendar:
    """Local time is seconds since the first day's midnight; strings come from per-day and per-second tables."""

    def __init__(self, days):
        self.days = days
        self.first = EXPORT_AT.date() - datetime.timedelta(days=days)
        self.end = days * DAY + 9 * 3600                      # last sample a little before the export
        self.dayp, self.offs, self.era, self.dates = [], [], [], []
        for d in range(days + 4):                             # margin for creation dates after the last sample
            date = self.first + datetime.timedelta(days=d)
            self.dates.append(date)
            self.dayp.append(date.strftime("%Y-%m-%d "))
            # Like Apple's exports, every date carries the phone's offset at export time (healthmetric.md),
            # so wall-clock times never jump at a DST change and an end is never before its start.
            self.offs.append(EXPORT_DATE[-6:])
            self.era.append(max(i for i, e in enumerate(ERAS) if e[0] <= date))
        self.hms = ["%02d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) for s in range(DAY)]

    def s(self, t):
        d = t // DAY
        return self.dayp[d] + self.hms[t % DAY] + self.offs[d]

    def utc_iso(self, t):
        d = t // DAY
        u = datetime.datetime.combine(self.dates[d], datetime.time()) + datetime.timedelta(
            seconds=t % DAY - (7200 if self.offs[d] == " +0200" else 3600))
        return u.strftime("%Y-%m-%dT%H:%M:%SZ")


class Sources:
    """sourceName / sourceVersion / device per source kind, era and (every few weeks changing) object address."""

    def __init__(self, cal):
        self.cal = cal

    def attrs(self, src, d):
        era = self.cal.era[min(d, len(self.cal.era) - 1)]
        _, whw, wos, phw, ios = ERAS[era]
        addr_n = (d // 19) % 3
        base = 0xc937f0000 if era >= 5 else 0x2837e0000
        salt = {"watch": 1, "phone": 2, "withings": 3}.get(src, 4)
        addr = "0x%x" % (base + ((era * 7919 + addr_n * 104729 + salt * 613) * 2654435761) % 0xfffff * 16)
        created = ", creation date:%s-%02d-%02d 08:14:55 +0000" % (ERAS[era][0].year - 1, 9 + addr_n, 14 + era) \
            if era >= 4 else ""
        if src == "watch":
            return WATCH, wos, (f"&lt;&lt;HKDevice: {addr}&gt;, name:Apple Watch, manufacturer:Apple Inc., "
                                f"model:Watch, hardware:{whw}, software:{wos}{created}&gt;")
        if src == "phone":
            return PHONE, ios, (f"&lt;&lt;HKDevice: {addr}&gt;, name:iPhone, manufacturer:Apple Inc., "
                                f"model:iPhone, hardware:{phw}, software:{ios}{created}&gt;")
        if src == "withings":
            return "Health Mate", "6.4.1", (f"&lt;&lt;HKDevice: {addr}&gt;, name:Withings, manufacturer:Withings, "
                                            "model:BPM Connect, firmware:1770&gt;")
        return "Health", ios, None                              # typed in by hand in the Health app

    def head(self, rtype, src, d, unit):
        """The constant front of a Record: everything up to and including ` creationDate="`."""
        name, ver, dev = self.attrs(src, d)
        s = f' <Record type="{rtype}" sourceName="{name}" sourceVersion="{ver}"'
        if dev:
            s += f' device="{dev}"'
        if unit:
            s += f' unit="{unit}"'
        return s + ' creationDate="'


class IOS8Dialect:
    """Rewrites generated text as iOS 8 wrote it (see the module's docstring); counts the MetadataEntry
    elements it turned into attributes, so that counts.json still says what the file holds."""
    DATE = re.compile(r'(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})')
    RECORD_WITH_METADATA = re.compile(r'<Record ([^>]*[^/])>\n((?:  <MetadataEntry key="[^"]*" value="[^"]*"/>\n)+) </Record>')
    ENTRY = re.compile(r'  <MetadataEntry key="([^"]*)" value="([^"]*)"/>\n')

    def __init__(self):
        self.entries_moved = 0

    def _record(self, m):
        entries = self.ENTRY.findall(m.group(2))
        self.entries_moved += len(entries)
        attrs = "".join(f' {k}="{v}"' for k, v in entries)
        return f'<Record {m.group(1)}{attrs} Some App Version="2.6.2"/>'

    def __call__(self, s):
        s = self.RECORD_WITH_METADATA.sub(self._record, s)
        s = s.replace(' sourceName="', ' source="')
        return self.DATE.sub(r'\1\2\3\4\5\6\7', s)


class Sink:
    """Writes encoded chunks to the plain XML file and, through a queue, to the zip writer thread."""

    def __init__(self, xml_path, zip_path, dialect=None):
        self.dialect = dialect
        self.bytes = 0
        self.f = open(xml_path, "wb") if xml_path else None
        self.q = self.t = self.zf = None
        if zip_path:
            self.zf = zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED, allowZip64=True)
            for name in (ROOT + "/", ROOT + "/workout-routes/", ROOT + "/electrocardiograms/", ROOT + "/clinical-records/"):
                self.zf.writestr(zipfile.ZipInfo(name, ZIP_TIME), b"")
            info = zipfile.ZipInfo(ROOT + "/export.xml", ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            self.zw = self.zf.open(info, "w", force_zip64=True)   # size unknown in advance: may pass 4 GiB
            self.q = queue.Queue(maxsize=6)
            self.t = threading.Thread(target=self._deflate, daemon=True)
            self.t.start()

    def _deflate(self):
        while (b := self.q.get()) is not None:
            self.zw.write(b)

    def write(self, s):
        if self.dialect:
            s = self.dialect(s)
        b = s.encode("utf-8")
        self.bytes += len(b)
        if self.f:
            self.f.write(b)
        if self.q:
            self.q.put(b)

    def close(self, extra_files):
        if self.f:
            self.f.close()
        if self.q:
            self.q.put(None)
            self.t.join()
            self.zw.close()
            for name, data in extra_files:
                info = zipfile.ZipInfo(ROOT + "/" + name, ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                self.zf.writestr(info, data)
            self.zf.close()


# ---------------------------------------------------------------------------------------------------------------
class Generator:
    CHUNK = 8192                                   # records per joined chunk (~3.5 MB of text)

    def __init__(self, size_mb, seed, dialect=None):
        self.dialect = dialect
        self.r = random.Random(seed)
        self.size = size_mb * 1024 * 1024
        # Years of history for big files; small files keep realistic per-day density instead.
        self.cal = Calendar(min(2900, max(14, int(size_mb * 2.8))))
        self.src = Sources(self.cal)
        self.n_bp = max(2, round(size_mb * 0.17))             # 529 blood-pressure Correlations per 3.1 GB
        self.n_workouts = max(4, round(size_mb * 0.93))      # 2917 Workouts per 3.1 GB
        self.n_routes = max(2, round(size_mb * 0.19))        # 584 routes per 3.1 GB
        self.elements = dict.fromkeys(
            ["HealthData", "ExportDate", "Me", "Record", "MetadataEntry", "HeartRateVariabilityMetadataList",
             "InstantaneousBeatsPerMinute", "Correlation", "Workout", "WorkoutEvent", "WorkoutActivity",
             "WorkoutStatistics", "WorkoutRoute", "FileReference", "ActivitySummary", "ClinicalRecord"], 0)
        self.by_type = {}
        self.with_meta = 0
        self.routes = []                                      # (zip name, gpx bytes)
        self.route_points = 0
        self.n_ecgs = max(1, round(size_mb * 0.05))          # ~50 ECGs per GiB of export
        self.ecgs = []                                        # (zip name, csv bytes)
        self.ecg_samples = 0
        self.n_clinical = max(2, round(size_mb * 0.3))       # ~300 hospital records per GiB of export
        self.clinical = []                                    # (zip name, FHIR JSON bytes)

    def count(self, name, n=1):
        self.elements[name] += n

    # ----- per-type record writers: write n records through emit(), return (records with metadata, entries) ---
    def quantity(self, spec, n, emit):
        r, cal = self.r, self.cal
        dayp, hms, offs = cal.dayp, cal.hms, cal.offs
        units = spec["units"]
        fmt = spec.get("fmt", g6)
        if "values" in spec:
            pools = [spec["values"] * (1024 // len(spec["values"]))] * len(units)
        else:
            base = [spec["pool"](r) for _ in range(1024)]
            pools = [[fmt(x * f) for x in base] for _, f in units]
        dmin, dmax = spec.get("dur", (0, 0))
        lmin, lmax = spec.get("lag", (1, 120))
        mprob, mlist = spec.get("meta", (0, [""]))
        nm = len(mlist)
        span = cal.end - 3600 - dmax - lmax           # so that even creationDate stays before the export
        rtype, src = spec["type"], spec["src"]
        heads, n_meta = {}, 0
        rand, bits = r.random, r.getrandbits
        for k0 in range(0, n, self.CHUNK):
            out = []
            ap = out.append
            for k in range(k0, min(n, k0 + self.CHUNK)):
                t = span * k // n + int(rand() * 600)
                ui = 0 if k * 2 < n else (1 + k % (len(units) - 1) if len(units) > 1 else 0)
                d = t // DAY
                key = (d // 19, ui)
                h = heads.get(key)
                if h is None:
                    h = heads[key] = self.src.head(rtype, src, d, units[ui][0])
                e = t + dmin + int(rand() * (dmax - dmin + 1))
                c = e + lmin + int(rand() * (lmax - lmin))
                sd = dayp[d] + hms[t % DAY] + offs[d]
                ed = sd if e == t else dayp[e // DAY] + hms[e % DAY] + offs[e // DAY]
                cd = dayp[c // DAY] + hms[c % DAY] + offs[c // DAY]
                v = pools[ui][bits(10)]
                vs = f'" value="{v}"' if v is not None else '"'
                if rand() < mprob:
                    n_meta += 1
                    ap(f'{h}{cd}" startDate="{sd}" endDate="{ed}{vs}>\n{mlist[bits(8) % nm]} </Record>\n')
                else:
                    ap(f'{h}{cd}" startDate="{sd}" endDate="{ed}{vs}/>\n')
            emit("".join(out))
        return n_meta, mlist[0].count("<MetadataEntry") * n_meta      # every list holds equal-sized entries

    def sleep(self, spec, n, emit):
        """One night = an iPhone InBed span followed by Watch stage records (AsleepUnspecified before watchOS 9)."""
        r, cal = self.r, self.cal
        per_night = 12
        nights = max(1, -(-n // per_night))
        stages = ["AsleepCore", "AsleepDeep", "AsleepCore", "AsleepREM", "AsleepCore", "Awake"]
        heads, out = {}, []
        tz = spec["meta"][1][0]
        for k in range(n):
            night, j = divmod(k, per_night)
            d = min(cal.days - 1, night * cal.days // nights)
            t0 = d * DAY + 22 * 3600 + 1800 + (night * 7919 % 5400)
            src = "phone" if j == 0 else "watch"
            if j == 0:
                t, e, val = t0, t0 + 8 * 3600, "InBed"
            else:
                seg = 7 * 3600 // (per_night - 1)
                t, e = t0 + 900 + (j - 1) * seg, t0 + 900 + j * seg
                val = stages[(j + night) % len(stages)] if cal.era[d] >= 4 else "AsleepUnspecified"
            key = (src, d // 19)
            h = heads.get(key) or heads.setdefault(key, self.src.head(spec["type"], src, d, None))
            c = e + 60 + int(r.random() * 1800)
            out.append(f'{h}{cal.s(c)}" startDate="{cal.s(t)}" endDate="{cal.s(e)}" '
                       f'value="HKCategoryValueSleepAnalysis{val}">\n{tz} </Record>\n')
            if len(out) >= self.CHUNK:
                emit("".join(out))
                out = []
        emit("".join(out))
        return n, n

    def stand(self, spec, n, emit):
        """Hourly Stood/Idle records between 7:00 and 23:00."""
        r, cal = self.r, self.cal
        slots = cal.days * 16
        heads, out = {}, []
        for k in range(n):
            slot = k * slots // n
            d = slot // 16
            t = d * DAY + (7 + slot % 16) * 3600
            key = d // 19
            h = heads.get(key) or heads.setdefault(key, self.src.head(spec["type"], "watch", d, None))
            val = "Stood" if r.random() < 0.7 else "Idle"
            out.append(f'{h}{cal.s(t + 120 + int(r.random() * 3400))}" startDate="{cal.s(t)}" '
                       f'endDate="{cal.s(t + 3600)}" value="HKCategoryValueAppleStandHour{val}"/>\n')
            if len(out) >= self.CHUNK:
                emit("".join(out))
                out = []
        emit("".join(out))
        return 0, 0

    def hrv(self, spec, n, emit):
        """SDNN samples, each with the instantaneous BPM of 60-80 beats, times in the en_US format."""
        r, cal = self.r, self.cal
        heads, out, beats = {}, [], 0
        span = cal.end - 3600
        for k in range(n):
            t = span * k // n + int(r.random() * 3600)
            d = t // DAY
            key = d // 19
            h = heads.get(key) or heads.setdefault(
                key, self.src.head(spec["type"], "watch", d, "ms"))
            e = t + 60 + int(r.random() * 6)
            lines = []
            bpm = 55 + r.random() * 25
            x = (t % DAY) * 100 + int(r.random() * 100)           # centiseconds since midnight
            for _ in range(60 + int(r.random() * 21)):
                bpm = min(110, max(42, bpm + r.gauss(0, 3)))
                hh, rem = divmod(x // 100 % DAY, 3600)
                lines.append(f'   <InstantaneousBeatsPerMinute bpm="{round(bpm)}" time="{(hh % 12) or 12}:'
                             f'{rem // 60:02d}:{rem % 60:02d}.{x % 100:02d} {"AM" if hh < 12 else "PM"}"/>\n')
                x += round(6000 / bpm)
            beats += len(lines)
            out.append(f'{h}{cal.s(e + 1)}" startDate="{cal.s(t)}" endDate="{cal.s(e)}" '
                       f'value="{g6(r.lognormvariate(3.7, 0.45))}">\n  <HeartRateVariabilityMetadataList>\n'
                       + "".join(lines) + "  </HeartRateVariabilityMetadataList>\n </Record>\n")
            if len(out) >= 256:
                emit("".join(out))
                out = []
        emit("".join(out))
        self.count("HeartRateVariabilityMetadataList", n)
        self.count("InstantaneousBeatsPerMinute", beats)
        return 0, 0

    def make_bp(self):
        """Blood pressure readings; the attributes of each Record are kept to write them twice."""
        r, cal = self.r, self.cal
        self.bp = []
        for i in range(self.n_bp):
            t = i * (cal.days - 1) // self.n_bp * DAY + 7 * 3600 + int(r.random() * 3600)   # mornings
            d = t // DAY
            manual = i % 5 == 4
            src = "health" if manual else "withings"
            name, ver, dev = self.src.attrs(src, d)
            common = f'sourceName="{name}" sourceVersion="{ver}"' + (f' device="{dev}"' if dev else "")
            dates = f'creationDate="{cal.s(t + 40)}" startDate="{cal.s(t)}" endDate="{cal.s(t)}"'
            sys_, dia = round(r.gauss(118, 8)), round(r.gauss(76, 6))
            self.bp.append(dict(
                head=f'type="HKCorrelationTypeIdentifierBloodPressure" {common} {dates}', manual=manual,
                sys=f'type="{Q}BloodPressureSystolic" {common} unit="mmHg" {dates} value="{sys_}"',
                dia=f'type="{Q}BloodPressureDiastolic" {common} unit="mmHg" {dates} value="{dia}"'))

    # ----- workouts ------------------------------------------------------------------------------------------
    ACTIVITIES = [("Running", 30, True), ("Walking", 25, True), ("Cycling", 15, True), ("Hiking", 5, True),
                  ("TraditionalStrengthTraining", 10, False), ("Yoga", 5, False),
                  ("HighIntensityIntervalTraining", 5, False), ("Swimming", 5, False)]

    def uuid(self):
        h = "%032X" % self.r.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def workouts(self):
        r, cal = self.r, self.cal
        acts = [a for a in self.ACTIVITIES for _ in range(a[1])]
        plan = []
        for i in range(self.n_workouts):
            d = min(cal.days - 1, i * cal.days // self.n_workouts)
            t = d * DAY + (7 + int(r.random() * 12)) * 3600 + int(r.random() * 3600)
            name, _, outdoor = r.choice(acts)
            modern = i >= self.n_workouts // 5             # the oldest fifth in the pre-iOS 16 style
            plan.append((t, name, outdoor, modern))
        outdoor_modern = [i for i, p in enumerate(plan) if p[2] and p[3] and p[1] != "Swimming"]
        with_route = set(r.sample(outdoor_modern, min(len(outdoor_modern), self.n_routes)))
        texts = []
        for i, (t, name, outdoor, modern) in enumerate(plan):
            texts.append(self.workout(t, name, outdoor, modern, i in with_route))
        return texts

    def workout(self, t, name, outdoor, modern, route):
        r, cal, s = self.r, self.cal, self.cal.s
        dur_s = 1200 + int(r.random() * 4200)
        e = t + dur_s
        d = t // DAY
        us = cal.era[d] >= 4 and d * 2 >= cal.days
        wname, ver, dev = self.src.attrs("watch", d)
        dist_km = {"Running": 10.5, "Walking": 5.5, "Cycling": 24, "Hiking": 4.5, "Swimming": 2.4}.get(name, 0)
        dist_km *= dur_s / 3600 * r.uniform(0.85, 1.15)
        kcal = dur_s / 60 * r.uniform(6, 11)
        body = []
        meta = [md("HKIndoorWorkout", "0" if outdoor else "1"), md("HKTimeZone", "Europe/Paris")]
        if outdoor:
            meta += [md("HKWeatherTemperature", "%s degF" % g6(r.uniform(35, 85))),
                     md("HKWeatherHumidity", "%d %%" % (100 * int(r.uniform(30, 95)))),
                     md("HKElevationAscended", "%d cm" % int(r.uniform(500, 30000)))]
        dmin = g6(dur_s / 60) if not modern else repr(dur_s / 60 + r.random() * 0.01)
        attrs = f'workoutActivityType="HKWorkoutActivityType{name}" duration="{dmin}" durationUnit="min"'
        events = []
        if not modern:
            # Old style: totals as attributes, pause/resume events without duration.
            du = "mi" if us else "km"
            attrs += (f' totalDistance="{repr(dist_km * (0.621371 if us else 1)) if dist_km else 0}" totalDistanceUnit="{du}"'
                      f' totalEnergyBurned="{g6(kcal)}" totalEnergyBurnedUnit="kcal"')
            if r.random() < 0.4:
                p = t + dur_s // 2
                events = [f'  <WorkoutEvent type="HKWorkoutEventTypePause" date="{s(p)}"/>\n',
                          f'  <WorkoutEvent type="HKWorkoutEventTypeResume" date="{s(p + 90)}"/>\n']
            body = meta + events
        else:
            meta.append(md("HKAverageMETs", "%s kcal/hr·kg" % g6(r.uniform(3, 11))))
            if dist_km:
                seg = max(1, int(dist_km // 2))
                for j in range(min(seg, 4)):
                    ts = t + j * dur_s // seg
                    events.append(f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{s(ts)}" '
                                  f'duration="{repr(dur_s / seg / 60)}" durationUnit="min"/>\n')
            if r.random() < 0.3:
                p = t + dur_s // 3
                events += [f'  <WorkoutEvent type="HKWorkoutEventTypePause" date="{s(p)}"/>\n',
                           f'  <WorkoutEvent type="HKWorkoutEventTypeResume" date="{s(p + 60)}"/>\n']
            hr = r.gauss(128, 12)
            stats = [("ActiveEnergyBurned", f'sum="{g6(kcal)}" unit="kcal"'),
                     ("BasalEnergyBurned", f'sum="{g6(dur_s / 60 * 1.1)}" unit="kcal"'),
                     ("HeartRate", f'average="{g6(hr)}" minimum="{int(hr - 35)}" maximum="{int(hr + 25)}" '
                                   'unit="count/min"')]
            if name in ("Running", "Walking", "Hiking"):
                stats += [("StepCount", f'sum="{g6(dur_s * 2.6)}" unit="count"'),
                          ("DistanceWalkingRunning", f'sum="{g6(dist_km)}" unit="km"')]
            if name == "Running":
                stats += [("RunningPower", f'average="{g6(r.uniform(180, 260))}" minimum="78" maximum="355" '
                                           'unit="W"'),
                          ("RunningSpeed", f'average="{g6(dist_km / dur_s * 3600)}" minimum="3.64606" '
                                           'maximum="13.1" unit="km/hr"')]
            if name == "Cycling":
                stats.append(("DistanceCycling", f'sum="{g6(dist_km)}" unit="km"'))
            if name == "Swimming":
                stats += [("DistanceSwimming", f'sum="{g6(dist_km * 1000)}" unit="m"'),
                          ("SwimmingStrokeCount", f'sum="{int(dist_km * 900)}" unit="count"')]
            ad = cal.s(e)
            inner = [f'   <WorkoutStatistics type="{Q}{k}" startDate="{s(t)}" endDate="{ad}" {v}/>\n'
                     for k, v in stats]
            outer = [f'  <WorkoutStatistics type="{Q}{k}" startDate="{s(t)}" endDate="{ad}" {v}/>\n'
                     for k, v in stats]
            activity = (f'  <WorkoutActivity uuid="{self.uuid()}" startDate="{s(t)}" endDate="{ad}" '
                        f'duration="{repr(dur_s / 60)}" durationUnit="min">\n'
                        + "".join(" " + ev for ev in events) + "".join(inner)
                        + md("WOIntervalStepKeyPath", "0.0.0", "   ") + "  </WorkoutActivity>\n")
            body = meta + events + [activity] + outer
            self.count("WorkoutActivity")
            self.count("WorkoutStatistics", 2 * len(stats))
            self.count("MetadataEntry", 1)
            self.count("WorkoutEvent", len(events))          # the copies inside the activity
            if route:
                hh, mm = divmod(t % DAY // 60, 60)
                base = "route_%s_%d.%02d%s" % (cal.dayp[d].strip(), (hh % 12) or 12, mm, "am" if hh < 12 else "pm")
                fname, k = base + ".gpx", 1
                while any(n == "workout-routes/" + fname for n, _ in self.routes):
                    k += 1
                    fname = f"{base}_{k}.gpx"
                title = "Route %s %d:%02d%s" % (cal.dayp[d].strip(), (hh % 12) or 12, mm, "am" if hh < 12 else "pm")
                self.routes.append(("workout-routes/" + fname, self.gpx(t, e, title)))
                body.append(f'  <WorkoutRoute sourceName="{wname}" sourceVersion="{ver}" creationDate="{s(e + 14)}" '
                            f'startDate="{s(t)}" endDate="{ad}">\n'
                            + md("HKMetadataKeySyncVersion", "2", "   ")
                            + md("HKMetadataKeySyncIdentifier", self.uuid(), "   ")
                            + f'   <FileReference path="/workout-routes/{fname}"/>\n  </WorkoutRoute>\n')
                self.count("WorkoutRoute")
                self.count("FileReference")
                self.count("MetadataEntry", 2)
        self.count("Workout")
        self.count("MetadataEntry", len(meta))
        self.count("WorkoutEvent", len(events))
        wt = "HKWorkoutActivityType" + name
        self.by_type[wt] = self.by_type.get(wt, 0) + 1
        return (f' <Workout {attrs} sourceName="{wname}" sourceVersion="{ver}" device="{dev}" '
                f'creationDate="{s(e + 8)}" startDate="{s(t)}" endDate="{s(e)}">\n' + "".join(body) + " </Workout>\n")

    def gpx(self, t, e, title):
        """One point per second of the workout, as Apple's routes have (at most 3 hours)."""
        r, cal = self.r, self.cal
        lat, lon, ele = 48.85 + r.uniform(-0.05, 0.05), 2.35 + r.uniform(-0.05, 0.05), r.uniform(30, 60)
        n = max(2, min(e - t, 3 * 3600))
        self.route_points += n
        # Small pools of formatted values keep this fast; the coordinates walk, so every point differs.
        speeds = [f"{r.uniform(2, 4):.6f}" for _ in range(64)]
        courses = [f"{r.uniform(0, 360):.6f}" for _ in range(64)]
        accs = [f"{r.uniform(2, 9):.6f}" for _ in range(64)]
        pts = []
        for k in range(n):
            lat += ((k * 7919) % 200 - 100) * 2e-7
            lon += ((k * 104729) % 200 - 100) * 3e-7
            j = k & 63
            pts.append(f'      <trkpt lon="{lon:.6f}" lat="{lat:.6f}"><ele>{ele + (k % 40) * 0.05:.6f}</ele>'
                       f'<time>{cal.utc_iso(t + k)}</time><extensions><speed>{speeds[j]}</speed>'
                       f'<course>{courses[j]}</course><hAcc>{accs[j]}</hAcc>'
                       f'<vAcc>{accs[63 - j]}</vAcc></extensions></trkpt>\n')
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export" '
                'xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n'
                f'  <metadata>\n    <time>{cal.utc_iso(e + 60)}</time>\n  </metadata>\n  <trk>\n'
                f'    <name>{title}</name>\n    <trkseg>\n' + "".join(pts)
                + '    </trkseg>\n  </trk>\n</gpx>\n').encode()

    def make_ecgs(self):
        """Apple Watch ECGs in Apple's layout: a header, then 512 Hz for 30 s, one voltage a line."""
        r = self.r
        for i in range(self.n_ecgs):
            day = datetime.date(2019, 1, 1) + datetime.timedelta(days=37 * i)
            name = f"electrocardiograms/ecg_{day.isoformat()}" + (f"_{i}" if i else "") + ".csv"
            header = ("Name,Zoë Example\nDate of Birth,\"Jan 1, 1980\"\n"
                      f"Recorded Date,{day.isoformat()} 08:{i % 60:02d}:00 +0100\n"
                      f"Classification,{'Sinus Rhythm' if i % 5 else 'Inconclusive'}\nSymptoms,\n"
                      "Software Version,2\nDevice,\"Watch7,2\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n")
            wave = [f"{400 * ((k % 512) / 512.0) - 200 + r.uniform(-5, 5):.3f}" for k in range(512 * 30)]
            self.ecg_samples += len(wave)
            self.ecgs.append((name, (header + "\n".join(wave) + "\n").encode()))

    def clinical_records(self):
        """Lab results from a hospital: a ClinicalRecord each in export.xml and its FHIR R4 Observation,
        pretty-printed as Apple writes them, in clinical-records/."""
        r = self.r
        out = []
        for i in range(self.n_clinical):
            day = datetime.date(2018, 1, 1) + datetime.timedelta(days=11 * i)
            rid = f"lab-{i:05d}"
            name = f"clinical-records/Observation-{rid}.json"
            value = round(r.uniform(4.5, 7.5), 2)
            resource = {"resourceType": "Observation", "id": rid, "status": "final",
                        "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category",
                                                  "code": "laboratory"}]}],
                        "code": {"coding": [{"system": "http://loinc.org", "code": "4548-4",
                                             "display": "Hemoglobin A1c/Hemoglobin.total in Blood"}], "text": "HbA1c"},
                        "subject": {"reference": "Patient/example-1"},
                        "effectiveDateTime": f"{day.isoformat()}T08:30:00+01:00",
                        "valueQuantity": {"value": value, "unit": "%", "system": "http://unitsofmeasure.org", "code": "%"},
                        "referenceRange": [{"low": {"value": 4.0, "unit": "%"}, "high": {"value": 5.6, "unit": "%"}}]}
            self.clinical.append((name, json.dumps(resource, indent=2, ensure_ascii=False).encode()))
            out.append(f' <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="{rid}" '
                       f'sourceName="Example Hospital" sourceURL="https://fhir.example.org/r4" fhirVersion="4.0.1" '
                       f'receivedDate="{day.isoformat()} 18:00:00 +0100" resourceFilePath="/{name}"/>\n')
        self.count("ClinicalRecord", len(out))
        return out

    def summaries(self):
        r, cal = self.r, self.cal
        out = []
        for d in range(cal.days):
            us = d * 2 >= cal.days
            goal = 630 if us else 2600
            burned = r.uniform(0.4, 1.5) * goal
            out.append(f' <ActivitySummary dateComponents="{cal.dayp[d].strip()}" activeEnergyBurned="{g6(burned)}" '
                       f'activeEnergyBurnedGoal="{goal}" activeEnergyBurnedUnit="{"kcal" if us else "kJ"}" '
                       f'appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="{int(r.uniform(5, 90))}" '
                       f'appleExerciseTimeGoal="30" appleStandHours="{int(r.uniform(6, 16))}" '
                       'appleStandHoursGoal="12"/>\n')
        self.count("ActivitySummary", len(out))
        self.by_type["ActivitySummary"] = len(out)
        return out

    # ----- the whole file ------------------------------------------------------------------------------------
    def run(self, sink):
        writers = {"sleep": self.sleep, "stand": self.stand, "hrv": self.hrv}
        # Everything but the bulk Records is small: build it first, to know how many bytes the Records get.
        self.make_bp()
        dtd = "" if self.dialect else DTD                    # iOS 8 wrote no DTD
        head = (f'<?xml version="1.0" encoding="UTF-8"?>\n{dtd}<HealthData locale="en_US">\n'
                f' <ExportDate value="{EXPORT_DATE}"/>\n {ME}\n')
        workouts = self.workouts()
        summaries = self.summaries() + self.clinical_records()
        corr = []
        for b in self.bp:
            inner = (md("HKWasUserEntered", "1") if b["manual"] else "")
            corr.append(f' <Correlation {b["head"]}>\n{inner}  <Record {b["sys"]}/>\n  <Record {b["dia"]}/>\n'
                        ' </Correlation>\n')
            self.count("MetadataEntry", 1 if b["manual"] else 0)
        self.count("Correlation", len(corr))
        self.count("Record", 2 * len(corr))
        bp_top = {Q + "BloodPressureSystolic": [f' <Record {b["sys"]}/>\n' for b in self.bp],
                  Q + "BloodPressureDiastolic": [f' <Record {b["dia"]}/>\n' for b in self.bp]}
        fixed = sum(len(x.encode()) for x in [head, "</HealthData>\n"] + workouts + summaries + corr)
        fixed += sum(len(x.encode()) for v in bp_top.values() for x in v)

        # Bytes per record of each type, measured on a sample with a separate generator (keeps output stable).
        bulk = [s for s in SPECS if s.get("kind") != "bp"]
        main_r = self.r
        self.r = random.Random(12345)
        saved = dict(self.elements)
        per = {}
        for i, s in enumerate(bulk):
            sample = []
            (writers.get(s.get("kind")) or self.quantity)(s, 300, sample.append)
            per[i] = sum(len(x.encode()) for x in sample) / 300
        self.elements, self.r = saved, main_r
        total_share = sum(s["share"] for s in bulk)
        per_record = sum(s["share"] / total_share * per[i] for i, s in enumerate(bulk))
        n_total = max(len(bulk), (self.size - fixed) / per_record)
        counts = [max(1, round(n_total * s["share"] / total_share)) for s in bulk]

        sink.write(head)
        self.count("HealthData")
        self.count("ExportDate")
        self.count("Me")
        bi = 0
        for s in SPECS:
            if s.get("kind") == "bp":
                sink.write("".join(bp_top[s["type"]]))
                n = len(bp_top[s["type"]])
            else:
                n = counts[bi]
                bi += 1
                with_meta, entries = (writers.get(s.get("kind")) or self.quantity)(s, n, sink.write)
                self.with_meta += with_meta
                self.count("MetadataEntry", entries)
            self.by_type[s["type"]] = self.by_type.get(s["type"], 0) + n
            self.count("Record", n)
        sink.write("".join(corr))
        sink.write("".join(workouts))
        sink.write("".join(summaries))
        sink.write("</HealthData>\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=int, default=1024, help="approximate size of export.xml in MiB")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=1)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--xml-only", action="store_true", help="write export.xml only, no export.zip")
    g.add_argument("--no-xml", action="store_true", help="write export.zip only, no plain export.xml")
    ap.add_argument("--dialect", choices=["ios8"], help="write the export as iOS 8 did (see above)")
    a = ap.parse_args()

    os.makedirs(a.out, exist_ok=True)
    xml_path = os.path.join(a.out, "export.xml")
    zip_path = os.path.join(a.out, "export.zip")
    counts_path = os.path.join(a.out, "counts.json")
    for p in (xml_path, zip_path, counts_path):              # never leave a stale file beside new counts
        if os.path.exists(p):
            os.remove(p)
    started = time.monotonic()
    dialect = IOS8Dialect() if a.dialect == "ios8" else None
    gen = Generator(a.size_mb, a.seed, dialect)
    # Write under temporary names: an interrupted run must not look like a finished one.
    sink = Sink(None if a.no_xml else xml_path + ".part", None if a.xml_only else zip_path + ".part", dialect)
    gen.run(sink)
    gen.make_ecgs()
    sink.close(gen.routes + gen.ecgs + gen.clinical)
    if dialect:
        gen.elements["MetadataEntry"] -= dialect.entries_moved
    if not a.no_xml:
        os.replace(xml_path + ".part", xml_path)
    if not a.xml_only:
        os.replace(zip_path + ".part", zip_path)

    records = sum(v for k, v in gen.by_type.items() if not k.startswith("HKWorkoutActivityType")
                  and k != "ActivitySummary")
    counts = {
        "format": 1,
        "seed": a.seed,
        "size_mb": a.size_mb,
        "xml_bytes": sink.bytes,
        "zip_bytes": None if a.xml_only else os.path.getsize(zip_path),
        "locale": "en_US",
        "export_date": EXPORT_DATE,
        # What a converter should emit: top-level Records + Workouts + ActivitySummaries (Correlation children
        # are the same measurements as top-level Records, so they are not counted again).
        "metrics": {"total": records + gen.elements["Workout"] + gen.elements["ActivitySummary"],
                    "records": records, "workouts": gen.elements["Workout"],
                    "activity_summaries": gen.elements["ActivitySummary"]},
        "metrics_by_type": dict(sorted(gen.by_type.items())),
        "records_with_metadata": gen.with_meta,
        # Every element in the file, Records inside Correlations included.
        "elements": gen.elements,
        "route_files": [n for n, _ in gen.routes],
        "route_points": gen.route_points,
        "gpx_bytes": sum(len(d) for _, d in gen.routes),
        "ecgs": len(gen.ecgs),
        "ecg_samples": gen.ecg_samples,
        "clinical_records": len(gen.clinical),
        "beats": gen.elements["InstantaneousBeatsPerMinute"],
        "dialect": a.dialect,
    }
    with open(counts_path + ".part", "w") as f:
        json.dump(counts, f, indent=1)
        f.write("\n")
    os.replace(counts_path + ".part", counts_path)
    secs = time.monotonic() - started
    print(f"generate-export: {sink.bytes / 2**20:.0f} MiB XML, {counts['metrics']['total']} metrics, "
          f"{gen.elements['Record']} Records in {secs:.1f} s -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
