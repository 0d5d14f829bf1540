import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// A workout's series is dropped only when it truly repeats samples of the store (docs/mapping.md,
/// "Workout series"): in a summarised file (a day's heart rate is one point) the minute-by-minute
/// series exist nowhere else and are kept; after a raw file, a workout whose heart rates are that
/// file's own samples keeps none of them.
@Suite(.enabled(if: Paths.haeCorpusExists, "needs the shared corpus at ../shared/corpus/hae"))
struct WorkoutSeriesTests {
    static func series(_ store: String) throws -> [[String: Any]] {
        try PhoneArraysTests.jsonLines(try CLI.run(["export", "--store", store, "--kind", "series"]))
    }

    @Test func aSummarisedFileKeepsItsWorkoutsSeries() throws {
        let file = Paths.haeCorpus.appendingPathComponent("daily-v2-workouts-medications.json").path
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let imported = try CLI.run(["import", file, "--store", store])
        #expect(imported.status == 0 && !imported.stderr.contains("not kept"), "\(imported.stderr)")
        let kept = try Self.series(store)
        // 3 workouts: 11 series, 225 points; each of them also what convert writes of the file.
        #expect(kept.count == 11 && kept.reduce(0) { $0 + (($1["points"] as? [Any])?.count ?? 0) } == 225)
        #expect(Set(kept.compactMap { $0["name"] as? String }) == ["heartRateData", "heartRateRecovery", "activeEnergy", "stepCount",
                                                                   "walkingAndRunningDistance"])
        #expect(try CLI.run(["export", "--store", store, "--kind", "series"]).stdout == (try CLI.run(["convert", file, "--kind", "series"])).stdout)
        // The day's heart rate is still the app's one point a day: the series are not samples of it.
        let status = try OneTruthTests.object(try CLI.run(["status", "--store", store, "--json"]))
        #expect((status["byType"] as? [String: Int])?["HKQuantityTypeIdentifierHeartRate"] == 3)
    }

    @Test func afterARawFileAWorkoutOfItsOwnSamplesKeepsNoHeartRates() throws {
        let raw = Paths.haeCorpus.appendingPathComponent("raw-summarize-off-one-day.json").path
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", raw, "--store", store, "-q"]).status == 0)
        // A workout over ten of the file's own heart rates (their moments and values, as the app
        // repeats them in a workout when Summarize Data is off), and one minute that is not one.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: raw))) as? [String: Any])
        let metrics = try #require((document["data"] as? [String: Any])?["metrics"] as? [[String: Any]])
        let rates = try #require(metrics.first { $0["name"] as? String == "heart_rate" }?["data"] as? [[String: Any]]).prefix(10)
        #expect(rates.count == 10)
        let points = rates.map { #"{"date":"\#($0["date"] as! String)","Min":\#($0["Min"]!),"Avg":\#($0["Avg"]!),"Max":\#($0["Max"]!),"units":"count/min"}"# }
        let start = rates.first!["date"] as! String, end = rates.last!["date"] as! String
        // A moment of no sample of the file: the recovery minute.
        let recovery = "2025-08-24 23:59:01 +0100"
        #expect(!metrics.contains { ($0["data"] as? [[String: Any]] ?? []).contains { $0["date"] as? String == recovery || $0["start"] as? String == recovery } })
        let workout = #"{"data":{"workouts":[{"name":"Outdoor Walk","start":"\#(start)","end":"\#(end)","#
            + #""heartRateData":[\#(points.joined(separator: ","))],"#
            + #""heartRateRecovery":[{"date":"\#(recovery)","Min":90,"Avg":95,"Max":99,"units":"count/min"}]}]}}"#
        let file = try writeFile(workout, named: "HealthAutoExport-workout.json", in: dir)
        let imported = try CLI.run(["import", file, "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        // The heart rates repeat the store's samples: not kept again. The recovery minute is no
        // sample of the store: kept.
        #expect(imported.stderr.contains("1 sample series new (1 already there)"), "\(imported.stderr)")
        #expect(try Self.series(store).map { $0["name"] as? String } == ["heartRateRecovery"])
        // convert writes every series of the file.
        #expect(try PhoneArraysTests.jsonLines(try CLI.run(["convert", file, "--kind", "series"])).count == 2)
    }
}
