import CloudSyncKinds
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// `kill -9` at ten points of an import of a whole archive (export.xml's metrics of three types, a
/// route's GPX file, an ECG), then `import` again: the store holds exactly what an uninterrupted
/// import gives (the rows with their flags, the hour summaries, the routes and ECGs), and between
/// the two it is sound and holds only whole commits.
@Suite(.serialized) struct KilledImportTests {
    static let heartRates = 60_000

    /// The archive: heart rates a minute apart, step counts and sleep, a route and an ECG.
    static func archive(in directory: URL) throws -> String {
        var xml = sampleExport(count: heartRates, type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min")
        xml.removeLast("</HealthData>\n".count)
        for day in 0..<200 {
            for hour in stride(from: 8, to: 20, by: 2) {
                let start = 1_700_000_000 + day * 86_400 + hour * 3600
                xml += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"count\" creationDate=\"\(stamp(start + 900))\" startDate=\"\(stamp(start))\" endDate=\"\(stamp(start + 900))\" value=\"\(100 + day + hour)\"/>\n"
            }
            let night = 1_700_000_000 + day * 86_400 - 3 * 3600
            xml += " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Watch\" creationDate=\"\(stamp(night + 28_800))\" startDate=\"\(stamp(night))\" endDate=\"\(stamp(night + 25_200))\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>\n"
        }
        xml += """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="\(stamp(1_700_003_600))" endDate="\(stamp(1_700_005_400))">
              <WorkoutRoute sourceName="Watch" startDate="\(stamp(1_700_003_600))" endDate="\(stamp(1_700_005_400))">
               <FileReference path="/workout-routes/route_1.gpx"/>
              </WorkoutRoute>
             </Workout>
            </HealthData>

            """
        let points = (0..<600).map { i in
            "<trkpt lon=\"\(2.35 + Double(i) * 1e-5)\" lat=\"48.85\"><ele>35</ele><time>\(iso(1_700_003_600 + i * 3))</time></trkpt>"
        }.joined(separator: "\n")
        let gpx = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n\(points)\n</trkseg></trk></gpx>\n"
        let ecg = "Name,Alex\nRecorded Date,2023-11-15 20:55:07 -0500\nClassification,Sinus Rhythm\nSymptoms,\nSoftware Version,1.90\n"
            + "Device,Watch6\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n" + (0..<5120).map { "\(Double($0 % 300) - 150.5)" }.joined(separator: "\n") + "\n"
        return try ZipFixtures.make([("apple_health_export/export.xml", Data(xml.utf8)),
                                     ("apple_health_export/workout-routes/route_1.gpx", Data(gpx.utf8)),
                                     ("apple_health_export/electrocardiograms/ecg_2023-11-15.csv", Data(ecg.utf8))],
                                    in: directory, name: "export.zip")
    }

    static func stamp(_ seconds: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss '+0000'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func iso(_ seconds: Int) -> String { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) }

    /// What the store holds, without what differs between two runs (row ids, import ids and times).
    static func contents(of path: String) throws -> [String] {
        let store = try StagingStore(path: path, access: .read)
        let queries: [(sql: String, columns: Int32)] = [
            ("""
            SELECT t.name, m.start_date, m.end_date, s.name, m.value, u.name, m.category_id, m.created_at, m.is_repeat, m.summary,
                   m.superseded, m.origin, coalesce(m.extra, '')
            FROM metric m JOIN metric_type t ON t.id = m.type_id JOIN source s ON s.id = m.source_id JOIN unit u ON u.id = m.unit_id
            ORDER BY 1, 2, 3, 4, 5
            """, 13),
            ("""
            SELECT t.name, u.name, h.hour, h.count, h.sum, h.minimum, h.maximum, h.merged_count, h.merged_sum, h.merged_minimum, h.merged_maximum
            FROM metric_hour h JOIN metric_type t ON t.id = h.type_id JOIN unit u ON u.id = h.unit_id ORDER BY 1, 2, 3
            """, 11),
            ("SELECT t.name, h.summarised, h.dirty_from IS NULL FROM metric_hour_state h JOIN metric_type t ON t.id = h.type_id ORDER BY 1", 3),
            ("SELECT r.key, r.point_count, p.seq, p.time, p.latitude, p.longitude FROM route r JOIN route_point p ON p.route_id = r.id ORDER BY 1, 3", 6),
            ("SELECT key, recorded_at, sample_count, hex(samples) FROM ecg ORDER BY 1", 4),
        ]
        var lines: [String] = []
        for (sql, columns) in queries {
            let statement = try store.database.prepare(sql)
            while try statement.step() {
                lines.append((0..<columns).map { statement.text($0) ?? "NULL" }.joined(separator: "|"))
            }
        }
        return lines
    }

    static func committedMetrics(_ path: String) -> Int {
        Int((try? StagingStore(path: path, access: .read).database.scalarInt("SELECT count(*) FROM metric")) ?? 0)
    }

    @Test(.timeLimit(.minutes(20))) func killedAtTenPointsThenImportedAgainHoldsWhatOneImportGives() throws {
        let directory = try makeTemporaryDirectory("killed-import")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.archive(in: directory)
        let reference = directory.appendingPathComponent("reference.sqlite").path
        let started = Date()
        let whole = try CLI.run(["import", input, "--store", reference, "-q"])
        let took = Date().timeIntervalSince(started)
        #expect(whole.status == 0, "\(whole.stderr)")
        let expected = try Self.contents(of: reference)
        let metrics = Self.committedMetrics(reference)
        #expect(metrics == Self.heartRates + 200 * 7 + 1)   // and the workout

        var killedWith: [Int] = []
        var committedBeside: [Int] = []
        for point in 0..<10 {
            let store = directory.appendingPathComponent("killed-\(point).sqlite").path
            let child = try BackgroundRun(["import", input, "--store", store, "-q"])
            // A new store is written beside its path and linked there when the import ends
            // (`NewStoreLoad`): its commits are counted in that file.
            let beside = directory.appendingPathComponent(".killed-\(point).sqlite.new-\(child.process.processIdentifier)").path
            // Points 0…7: at once, then after a tenth, two tenths… of the time the whole import
            // took; 8: right after its first commit (of 50,000 rows); 9: once every metric is
            // committed (reading the route, the ECG, or rebuilding the summaries).
            // (Read before the kill: a file killed while its writer held it may not read.)
            var seen = 0
            switch point {
            case 8: while child.isRunning, seen == 0 { seen = Self.committedMetrics(beside); Thread.sleep(forTimeInterval: 0.005) }
            case 9: while child.isRunning, seen < metrics { seen = Self.committedMetrics(beside); Thread.sleep(forTimeInterval: 0.005) }
            default: Thread.sleep(forTimeInterval: took * Double(point) / 10)
            }
            child.send(SIGKILL)
            _ = child.finish()
            committedBeside.append(seen)
            if FileManager.default.fileExists(atPath: store) {
                let killed = try StagingStore(path: store, access: .read)
                #expect(try killed.integrityCheck() == "ok", "point \(point)")
                // Only whole commits: every metric kept is counted in the summary kept with it.
                let summarised = try killed.database.scalarInt("SELECT coalesce(sum(count + repeats + superseded), 0) FROM metric_summary")
                #expect(summarised.map(Int.init) == Self.committedMetrics(store), "point \(point)")
            }
            killedWith.append(Self.committedMetrics(store))
            let again = try CLI.run(["import", input, "--store", store, "-q"])
            #expect(again.status == 0, "point \(point): \(again.stderr)")
            #expect(try Self.contents(of: store) == expected, "point \(point): killed with \(killedWith.last!) metrics committed")
            // What the killed import left beside the path went with the next store made there.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(!names.contains { $0.hasPrefix(".killed-\(point).sqlite.new-") }, "point \(point): \(names)")
        }
        // The kills fell before any commit and between two, and the path held no store until the
        // import that made it ended: a kill left it as it was before the import.
        #expect(committedBeside[8] > 0 && committedBeside[8] < metrics, "\(committedBeside)")
        #expect(killedWith.allSatisfy { $0 == 0 || $0 == metrics }, "\(killedWith)")
    }
}
