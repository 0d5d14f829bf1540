@testable import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// The archive's other entries, each to its reader: routes (GPX and inline locations) and ECGs,
/// read from real zips, in both orders, from a file and through a pipe; hostile entries skipped.
@Suite struct ArchiveEntryTests {
    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
          <trk><name>Route</name><trkseg>
            <trkpt lon="2.352200" lat="48.856600"><ele>35.1</ele><time>2024-11-02T08:00:05Z</time><extensions><speed>2.5</speed><course>90.5</course><hAcc>3.2</hAcc><vAcc>2.1</vAcc></extensions></trkpt>
            <trkpt lon="2.352300" lat="48.856700"><ele>35.4</ele><time>2024-11-02T08:00:06Z</time><extensions><speed>-1</speed><course>-1</course><hAcc>3.0</hAcc><vAcc>2.0</vAcc></extensions></trkpt>
            <trkpt lon="2.352400" lat="48.856800"><ele>35.9</ele><time>2024-11-02T08:00:07Z</time></trkpt>
          </trkseg></trk>
        </gpx>
        """

    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2024-11-03 10:00:00 +0000"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2024-11-02 09:00:00 +0100" endDate="2024-11-02 09:30:00 +0100">
          <WorkoutRoute sourceName="Watch" startDate="2024-11-02 09:00:00 +0100" endDate="2024-11-02 09:30:00 +0100">
           <FileReference path="/workout-routes/route_2024-11-02_9.00am.gpx"/>
          </WorkoutRoute>
         </Workout>
         <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="60" durationUnit="min" sourceName="Watch" startDate="2024-11-03 09:00:00 +0100" endDate="2024-11-03 10:00:00 +0100"/>
        </HealthData>
        """

    static let ecg = """
        Name,Alex
        Date of Birth,"Jun 12, 1990"
        Recorded Date,2023-03-04 20:55:07 -0500
        Classification,Sinus Rhythm
        Symptoms,
        Software Version,1.90
        Device,"Watch6,7"
        Sample Rate,512 hertz


        Lead,Lead I
        Unit,µV

        -107.825
        -121.163
        14.5

        """

    /// The same ECG as a French phone writes it: other labels, decimal commas.
    static let ecgFrench = """
        Nom,Alex
        Date de naissance,"12 juin 1990"
        Date d’enregistrement,2023-03-04 20:55:07 -0500
        Classification,Rythme sinusal
        Symptômes,
        Version du logiciel,1.90
        Appareil,"Watch6,7"
        Fréquence d’échantillonnage,"512 hertz"
        Dérivation,Dérivation I
        Unité,µV

        "-107,825"
        "-121,163"
        "14,5"

        """

    func archive(_ entries: [(String, String)], name: String = "export.zip") throws -> String {
        try ZipFixtures.make(entries.map { ($0.0, Data($0.1.utf8)) }, in: try makeTemporaryDirectory(), name: name)
    }

    func read(_ input: String, kinds: [any ArchiveKind.Type] = [RouteKind.self, ECGKind.self]) throws -> (CollectingSink, ArchiveConverter.Report) {
        let records = CollectingSink()
        let report = try ReaderRunner.run(ArchiveConverter(input: input, kinds: kinds), into: ReaderSinks(metrics: DiscardingSink(), records: records))
        return (records, report)
    }

    /// The same input through a real pipe (a zip is then read as a stream, in archive order).
    func readThroughPipe(_ path: String) throws -> (CollectingSink, ArchiveConverter.Report) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let fifo = try makeTemporaryDirectory().appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            signal(SIGPIPE, SIG_IGN)
            let fd = open(fifo, O_WRONLY)
            bytes.withUnsafeBytes { var offset = 0; while offset < $0.count { let n = write(fd, $0.baseAddress! + offset, min(4096, $0.count - offset)); if n <= 0 { break }; offset += n } }
            close(fd)
        }
        writer.start()
        return try read(fifo)
    }

    @Test(arguments: [true, false])
    func routesAreLinkedToTheirWorkoutInEitherOrder(exportFirst: Bool) throws {
        var entries = [("apple_health_export/export.xml", Self.export),
                       ("apple_health_export/workout-routes/route_2024-11-02_9.00am.gpx", Self.gpx)]
        if !exportFirst { entries.reverse() }
        let path = try archive(entries)
        for (records, report) in [try read(path), try readThroughPipe(path)] {
            #expect(records.finished)
            #expect(report.count("routes") == RecordCount(records: 1, parts: 3))
            let route = try #require(records.routes.first)
            #expect(route.file == "workout-routes/route_2024-11-02_9.00am.gpx")
            #expect(route.workoutType == "HKWorkoutActivityTypeRunning")
            #expect(route.workoutStart == 1_730_534_400)   // 2024-11-02T08:00:00Z
            #expect(route.points.first == RoutePoint(time: 1_730_534_405, latitude: 48.8566, longitude: 2.3522, elevation: 35.1, speed: 2.5,
                                                      course: 90.5, horizontalAccuracy: 3.2, verticalAccuracy: 2.1))
            // Core Location's -1 means "unknown": no value.
            #expect(route.points[1].speed == nil && route.points[1].course == nil)
            #expect(route.points.last?.speed == nil && route.points.last?.elevation == 35.9)
        }
    }

    /// Names are told apart by their first byte and then compared whole: a name that only starts
    /// like a point's field (or is one cut short) is not that field.
    @Test func namesThatOnlyStartLikeAPointsFieldsAreNotRead() throws {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="1.5" lon="2.5"><elevation>9</elevation><ele>3</ele><t>4</t><tim>5</tim><timex>6</timex><trkptx>7</trkptx>\
            <extensions><speedy>8</speedy><c>9</c><e>1</e><s>2</s><h>3</h><v>4</v><hAccuracy>10</hAccuracy><vAcc>11</vAcc></extensions></trkpt>
            <trkpt lat="3.5" lon="4.5"><time>2024-11-02T08:00:05Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let reader = GPXReader()
        try Array(gpx.utf8).withUnsafeBufferPointer { try reader.consume($0) }
        let route = try reader.finish(path: "workout-routes/r.gpx")
        #expect(route.points == [RoutePoint(time: nil, latitude: 1.5, longitude: 2.5, elevation: 3, speed: nil, course: nil,
                                            horizontalAccuracy: nil, verticalAccuracy: 11),
                                 RoutePoint(time: 1_730_534_405, latitude: 3.5, longitude: 4.5)])
    }

    @Test func aRouteNoWorkoutReferencesIsLinkedByTime() throws {
        let path = try archive([("apple_health_export/export.xml", Self.export.replacingOccurrences(of: "route_2024-11-02_9.00am", with: "other")),
                                ("apple_health_export/workout-routes/route_2024-11-02_9.00am.gpx", Self.gpx)])
        let route = try #require(try read(path).0.routes.first)
        #expect(route.workoutType == "HKWorkoutActivityTypeRunning")   // its first point is inside that workout
        let lonely = try archive([("apple_health_export/export.xml", Self.export.replacingOccurrences(of: "2024-11-02 09", with: "2024-11-05 09")),
                                  ("apple_health_export/workout-routes/route_x.gpx", Self.gpx)])
        #expect(try read(lonely).0.routes.first?.workoutType == nil)
    }

    @Test func ecgsAreReadWhateverThePhonesLanguage() throws {
        let path = try archive([("apple_health_export/export.xml", Self.export),
                                ("apple_health_export/electrocardiograms/ecg_2023-03-04.csv", Self.ecg),
                                ("apple_health_export/electrocardiograms/ecg_2023-03-04_fr.csv", Self.ecgFrench)])
        for (records, report) in [try read(path), try readThroughPipe(path)] {
            #expect(report.count("ecg") == RecordCount(records: 2, parts: 6))
            for ecg in records.ecgs {
                #expect(ecg.recordedAt == 1_677_981_307)
                #expect(ecg.samples == [-107.825, -121.163, 14.5])
                #expect(ecg.sampleRateHz == 512)
                #expect(ecg.device == "Watch6,7")
                #expect(ecg.unit == "µV")
            }
            #expect(records.ecgs.first?.classification == "Sinus Rhythm" && records.ecgs.first?.lead == "Lead I")
            #expect(records.ecgs.first?.symptoms == nil)
            #expect(records.ecgs.last?.classification == "Rythme sinusal")
        }
    }

    @Test func hostileEntriesAreReportedAndSkippedAndTheRestConverts() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
            <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">]>
            <gpx><trk><trkseg><trkpt lat="1" lon="2"><ele>&f;</ele></trkpt></trkseg></trk></gpx>
            """
        let deep = "<gpx>" + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000) + "</gpx>"
        let longLine = "Name\nRecorded Date,2023-03-04 20:55:07 -0500\n" + String(repeating: "7", count: 100 << 20) + "\n"
        let words = Self.ecg.replacingOccurrences(of: "14.5", with: "fourteen")
        let path = try archive([("apple_health_export/export.xml", Self.export),
                                ("apple_health_export/workout-routes/bomb.gpx", bomb),
                                ("apple_health_export/workout-routes/deep.gpx", deep),
                                ("apple_health_export/electrocardiograms/long.csv", longLine),
                                ("apple_health_export/electrocardiograms/words.csv", words),
                                ("apple_health_export/workout-routes/../../escaped.gpx", Self.gpx),
                                ("apple_health_export/workout-routes/route_2024-11-02_9.00am.gpx", Self.gpx)])
        for (records, report) in [try read(path), try readThroughPipe(path)] {
            let damaged = Dictionary(uniqueKeysWithValues: report.damaged.map { ($0.entry.split(separator: "/").last.map(String.init) ?? "", $0.problem) })
            #expect(damaged.keys.sorted() == ["bomb.gpx", "deep.gpx", "long.csv", "words.csv"], "\(report.damaged)")
            #expect(damaged["deep.gpx"]?.contains("nested deeper") == true)
            #expect(damaged["long.csv"]?.contains("longer than") == true)
            #expect(damaged["words.csv"]?.contains("'fourteen' is not a number") == true)
            // The good route converts; the `../` name is only ever a name (nothing is written to disk).
            #expect(records.routes.map(\.points.count) == [3, 3])
            #expect(records.routes.contains { $0.workoutType == "HKWorkoutActivityTypeRunning" })
            #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: path).deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("escaped.gpx").path))
        }
    }

    @Test func inlineLocationsOfOlderExportsAreRoutes() throws {
        let xml = Self.export.replacingOccurrences(of: "<FileReference path=\"/workout-routes/route_2024-11-02_9.00am.gpx\"/>", with: """
            <Location date="2024-11-02 09:00:05 +0100" latitude="48.8566" longitude="2.3522" altitude="35.1" horizontalAccuracy="3.2" verticalAccuracy="2.1" course="-1" speed="2.5"/>
            <Location date="2024-11-02 09:00:06 +0100" latitude="48.8567" longitude="2.3523" altitude="35.4" horizontalAccuracy="3.0" verticalAccuracy="2.0" course="12" speed="2.6"/>
            """)
        let path = try writeFile(xml)
        let (records, report) = try read(path)
        #expect(report.count("routes") == RecordCount(records: 1, parts: 2))
        let route = try #require(records.routes.first)
        #expect(route.file == nil && route.workoutType == "HKWorkoutActivityTypeRunning")
        #expect(route.points.first?.course == nil && route.points.last?.course == 12)
    }
}

/// The corpus's routes, inline locations and ECG, counted independently from the raw bytes.
@Suite(.enabled(if: Paths.corpusExists, "../shared/corpus is not present: corpus route and ECG tests skipped"))
struct ArchiveCorpusTests {
    /// Every `<trkpt` of every GPX in a zip, with the first and last point's lat and lon, read
    /// with ZIPFoundation and a regular expression (not our parser).
    func independentPoints(_ zip: URL) throws -> [String: (count: Int, first: (Double, Double), last: (Double, Double))] {
        let archive = try Archive(url: zip, accessMode: .read)
        var result: [String: (Int, (Double, Double), (Double, Double))] = [:]
        for entry in archive where entry.path.hasSuffix(".gpx") {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            let text = String(decoding: data, as: UTF8.self)
            let regex = try NSRegularExpression(pattern: #"<trkpt lon="([-0-9.]+)" lat="([-0-9.]+)""#)
            let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
            func pair(_ match: NSTextCheckingResult) -> (Double, Double) {
                (Double(text[Range(match.range(at: 2), in: text)!])!, Double(text[Range(match.range(at: 1), in: text)!])!)
            }
            result[ArchiveFiles(folder: "workout-routes/", suffix: ".gpx").archivePath(entry.path)] = (matches.count, pair(matches.first!), pair(matches.last!))
        }
        return result
    }

    @Test func theCorpusRoutesConvertPointForPoint() throws {
        let zip = Paths.corpus.appendingPathComponent("exports/v13-en_FR-hrv-routes.zip")
        let expected = try independentPoints(zip)
        #expect(expected.count == 2)
        let records = CollectingSink()
        _ = try ReaderRunner.run(ArchiveConverter(input: zip.path, kinds: [RouteKind.self]), into: ReaderSinks(metrics: DiscardingSink(), records: records))
        #expect(records.routes.count == expected.count)
        for route in records.routes {
            let truth = try #require(expected[route.file ?? ""])
            #expect(route.points.count == truth.count)
            #expect(route.points.first.map { ($0.latitude, $0.longitude) } ?? (0, 0) == truth.first)
            #expect(route.points.last.map { ($0.latitude, $0.longitude) } ?? (0, 0) == truth.last)
        }
    }

    @Test func theCorpusInlineLocationsConvert() throws {
        let path = Paths.corpus.appendingPathComponent("exports/v-old-inline-locations.xml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let count = text.components(separatedBy: "<Location ").count - 1
        let records = CollectingSink()
        _ = try ReaderRunner.run(ArchiveConverter(input: path, kinds: [RouteKind.self]), into: ReaderSinks(metrics: DiscardingSink(), records: records))
        #expect(records.routes.flatMap(\.points).count == count)
        let firstLatitude = try #require(text.range(of: #"latitude="([-0-9.]+)""#, options: .regularExpression))
        #expect("latitude=\"\(records.routes.first?.points.first?.latitude ?? 0)\"" == String(text[firstLatitude]))
    }

    @Test func theCorpusGPXAndECGConvertFromAnArchive() throws {
        let gpx = try Data(contentsOf: Paths.corpus.appendingPathComponent("routes/route_2019-06-11_3.00pm.gpx"))
        let csv = try Data(contentsOf: Paths.corpus.appendingPathComponent("ecg/ecg_2023-03-04.csv"))
        let zip = try ZipFixtures.make([("apple_health_export/export.xml", Data(ArchiveEntryTests.export.utf8)),
                                        ("apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx", gpx),
                                        ("apple_health_export/electrocardiograms/ecg_2023-03-04.csv", csv)], in: try makeTemporaryDirectory())
        let records = CollectingSink()
        let report = try ReaderRunner.run(ArchiveConverter(input: zip, kinds: [RouteKind.self, ECGKind.self]), into: ReaderSinks(metrics: DiscardingSink(), records: records))
        #expect(report.damaged.isEmpty)
        let gpxText = String(decoding: gpx, as: UTF8.self)
        #expect(records.routes.first?.points.count == gpxText.components(separatedBy: "<trkpt ").count - 1)
        // The ECG's samples: every line after the header that is a number, counted from the raw text.
        let lines = String(decoding: csv, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        let numbers = lines.compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let ecg = try #require(records.ecgs.first)
        #expect(ecg.samples.count == numbers.count)
        #expect(ecg.samples.first == numbers.first && ecg.samples.last == numbers.last)
        #expect(ecg.sampleRateHz == 512 && ecg.classification == "Poor Recording")
    }
}
