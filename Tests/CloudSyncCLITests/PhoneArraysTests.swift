import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// Every array Health Auto Export sends is kept, through the binary (docs/mapping.md, "The app's
/// other arrays"): medications, State of Mind and ECGs as their kinds, symptoms, cycle tracking and
/// heart-rate notifications as the category samples export.xml writes, and the series of workouts
/// and notifications with what they belong to. Nothing the app documents is "not kept".
@Suite struct PhoneArraysTests {
    static let arrays = Paths.samples.appendingPathComponent("health-auto-export-arrays.json").path

    static func jsonLines(_ result: CLIResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return try result.lines.filter { !$0.isEmpty }.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test(.enabled(if: Paths.haeCorpusExists, "needs the shared corpus at ../shared/corpus/hae"))
    func theCorpusMedicationsAreKeptWithTheirCodings() throws {
        let file = Paths.haeCorpus.appendingPathComponent("daily-v2-workouts-medications.json").path
        let doses = try Self.jsonLines(try CLI.run(["convert", file, "--kind", "medications"]))
        #expect(doses.count == 4)
        let coded = doses.filter { (($0["codings"] as? [[String: Any]]) ?? []).contains { $0["code"] as? String == "1744007" } }
        #expect(coded.count == 2)
        #expect(coded.allSatisfy { ($0["codings"] as? [[String: Any]])?.first?["system"] as? String == "http://www.nlm.nih.gov/research/umls/rxnorm" })
        #expect(doses.allSatisfy { $0["status"] as? String == "Not Interacted" && $0["outcome"] as? String == "notInteracted" })
        let csv = try CLI.run(["convert", file, "--kind", "medications", "--format", "csv"])
        let rows = String(decoding: csv.stdout, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 5 && rows[0].hasPrefix("name,nickname,start"), "\(rows)")

        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let imported = try CLI.run(["import", file, "--store", store])
        #expect(imported.status == 0 && !imported.stderr.contains("not kept"), "\(imported.stderr)")
        #expect(imported.stderr.contains("4 medication doses new"), "\(imported.stderr)")
        let inspected = String(decoding: try CLI.run(["inspect", file]).stdout, as: UTF8.self)
        #expect(!inspected.contains("not kept") && inspected.contains("medications: 4 items"), "\(inspected)")
        // The store gives back what convert wrote, byte for byte.
        #expect(try CLI.run(["export", "--store", store, "--kind", "medications"]).stdout == (try CLI.run(["convert", file, "--kind", "medications"])).stdout)
        let status = try OneTruthTests.object(try CLI.run(["status", "--store", store, "--json"]))
        #expect((status["records"] as? [String: Any]).flatMap { ($0["medications"] as? [String: Any])?["records"] as? Int } == 4)
    }

    @Test func everyArrayOfTheAppIsKept() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let inspected = String(decoding: try CLI.run(["inspect", Self.arrays]).stdout, as: UTF8.self)
        for array in ["medications: 4 items", "stateOfMind: 2 items", "symptoms: 2 items", "cycleTracking: 3 items", "ecg: 1 item",
                      "heartRateNotifications: 1 item"] {
            #expect(inspected.contains(array), "\(inspected)")
        }
        #expect(!inspected.contains("not kept"), "\(inspected)")
        let imported = try CLI.run(["import", Self.arrays, "--store", store])
        #expect(imported.status == 0 && !imported.stderr.contains("not kept"), "\(imported.stderr)")

        // Medications and State of Mind, as their kinds.
        let doses = try Self.jsonLines(try CLI.run(["export", "--store", store, "--kind", "medications"]))
        #expect(doses.map { $0["name"] as? String } == ["Examplestatin 20 mg", "Examplestatin 20 mg", "Examplestatin 20 mg", "Ibuprofen 400 mg"])
        #expect(doses.map { $0["outcome"] as? String } == ["taken", "notInteracted", "skipped", "taken"])
        let moods = try Self.jsonLines(try CLI.run(["export", "--store", store, "--kind", "state-of-mind"]))
        #expect(moods.map { $0["classification"] as? String } == ["slightly_pleasant", "unpleasant"])
        #expect(moods.map { $0["start"] as? String } == ["2026-03-02T20:15:00Z", "2026-03-03T08:30:00Z"])

        // The ECG, the export's kind: µV, its average heart rate.
        let ecgs = try Self.jsonLines(try CLI.run(["export", "--store", store, "--kind", "ecg"]))
        #expect(ecgs.count == 1 && ecgs.first?["recordedAt"] as? String == "2026-03-02T20:10:05Z")
        #expect((ecgs.first?["samples"] as? [NSNumber])?.map(\.doubleValue) == [12.5, 14.1, 15, -3.25, -8, 2])
        #expect(ecgs.first?["unit"] as? String == "µV" && ecgs.first?["averageHeartRate"] as? Int == 68)

        // Symptoms, cycle tracking and the notification: the samples export.xml writes for them.
        let metrics = try Self.jsonLines(try CLI.run(["export", "--store", store]))
        func sample(_ type: String) -> [String: Any]? { metrics.first { $0["type"] as? String == type } }
        func metadata(_ type: String) -> [String: String] { sample(type)?["metadata"] as? [String: String] ?? [:] }
        #expect(metadata("HKCategoryTypeIdentifierHeadache")["categoryValue"] == "HKCategoryValueSeverityModerate")
        // The category name as export.xml's same record gets it (CategoryRules: HKCategoryValue and
        // the type's own name stripped).
        #expect(metadata("HKCategoryTypeIdentifierHeadache")["category"] == "severityModerate")
        #expect(metadata("HKCategoryTypeIdentifierHeadache")["HKWasUserEntered"] == "1")
        #expect(sample("HKCategoryTypeIdentifierHeadache")?["value"] as? Int == 150 && sample("HKCategoryTypeIdentifierHeadache")?["unit"] as? String == "minutes")
        #expect(metadata("HKCategoryTypeIdentifierSleepChanges")["categoryValue"] == "HKCategoryValuePresencePresent")
        #expect(metadata("HKCategoryTypeIdentifierMenstrualFlow")["categoryValue"] == "HKCategoryValueMenstrualFlowLight")
        #expect(metadata("HKCategoryTypeIdentifierMenstrualFlow")["HKMenstrualCycleStart"] == "1")
        #expect(metadata("HKCategoryTypeIdentifierCervicalMucusQuality")["categoryValue"] == "HKCategoryValueCervicalMucusQualityEggWhite")
        #expect(sample("HKQuantityTypeIdentifierBasalBodyTemperature")?["value"] as? Double == 36.55)
        #expect(metadata("HKCategoryTypeIdentifierHighHeartRateEvent")["HKHeartRateEventThreshold"] == "120 count/min")
        #expect(sample("HKCategoryTypeIdentifierHighHeartRateEvent")?["sourceApp"] as? String == "Example Watch")

        // The series: the workout's four, the notification's heart rates.
        let series = try Self.jsonLines(try CLI.run(["export", "--store", store, "--kind", "series"]))
        #expect(series.map { "\($0["owner"]!) \($0["name"]!) \(($0["points"] as? [Any])?.count ?? 0)" }.sorted()
                == ["heartRateNotification heartRateData 3", "workout heartRateData 2", "workout heartRateRecovery 1",
                    "workout stepCount 1", "workout walkingAndRunningDistance 1"])
        let workoutRate = try #require(series.first { $0["owner"] as? String == "workout" && $0["name"] as? String == "heartRateData" })
        #expect(workoutRate["type"] as? String == "HKQuantityTypeIdentifierHeartRate" && workoutRate["unit"] as? String == "bpm")
        #expect(series.allSatisfy { $0["unit"] is String }, "a notification's heart rates, written without units, are in bpm")
        #expect((workoutRate["points"] as? [[String: Any]])?.first.map { "\($0["value"]!) \($0["minimum"]!) \($0["maximum"]!)" } == "90.5 82 97")

        // The same file again: nothing new.
        let again = try CLI.run(["import", Self.arrays, "--store", store])
        #expect(again.stderr.contains("0 new,") && again.stderr.contains("0 medication doses new (4 already there)"), "\(again.stderr)")
    }

    /// An assistant asks what was taken and missed, by drug and week; the report shows the same.
    @Test func whatWasTakenAndMissedByDrugAndWeek() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", Self.arrays, "--store", store, "-q"]).status == 0)
        let answer = try HealthAutoExportMCPTests.call(store, "medications", ["timeZone": "Europe/Paris"])
        let drugs = try #require(answer["drugs"] as? [[String: Any]])
        let statin = try #require(drugs.first { $0["name"] as? String == "Examplestatin 20 mg" })
        #expect(statin["scheduled"] as? Int == 3 && statin["taken"] as? Int == 1 && statin["skipped"] as? Int == 1 && statin["missed"] as? Int == 2)
        let ibuprofen = try #require(drugs.first { $0["name"] as? String == "Ibuprofen 400 mg" })
        #expect(ibuprofen["scheduled"] as? Int == 0 && ibuprofen["takenAsNeeded"] as? Int == 1 && ibuprofen["missed"] as? Int == 0)
        let weeks = try #require(answer["weeks"] as? [[String: Any]])
        #expect(weeks.map { "\($0["week"]!) \($0["name"]!) \($0["taken"]!)/\($0["scheduled"]!)" }
                == ["2026-03-02 Examplestatin 20 mg 1/3", "2026-03-02 Ibuprofen 400 mg 1/0"])
        #expect((answer["doses"] as? [[String: Any]])?.count == 4)
        let one = try HealthAutoExportMCPTests.call(store, "medications", ["name": "ibu", "start": "2026-03-03", "end": "2026-03-03"])
        #expect((one["drugs"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Ibuprofen 400 mg"])

        let report = dir.appendingPathComponent("report.html").path
        #expect(try CLI.run(["report", "--store", store, "--tz", "Europe/Paris", "--output", report]).status == 0)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("<td>Examplestatin 20 mg</td><td>3</td><td>1</td><td>0</td><td>1</td><td>2</td><td>2026-03-02 08:00</td>"),
                "\(html.components(separatedBy: "medications").count)")
    }

    /// A dose pushed again with its outcome known replaces what was kept of it.
    @Test func aDosePushedAgainIsOneDoseAsLastPushed() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        func dose(_ status: String) throws -> String {
            try writeFile(#"{"data":{"medications":[{"displayText":"Examplestatin","start":"2026-03-03 08:00:00 +0100","scheduledDate":"2026-03-03 08:00:00 +0100","status":"\#(status)","codings":[]}]}}"#,
                          named: "dose-\(status.filter(\.isLetter)).json", in: dir)
        }
        #expect(try CLI.run(["import", try dose("Not Interacted"), "--store", store, "-q"]).status == 0)
        #expect(try CLI.run(["import", try dose("Tomado"), "--store", store, "-q"]).status == 0)
        let doses = try Self.jsonLines(try CLI.run(["export", "--store", store, "--kind", "medications"]))
        #expect(doses.map { "\($0["status"]!) \($0["outcome"]!)" } == ["Tomado taken"])
    }
}
