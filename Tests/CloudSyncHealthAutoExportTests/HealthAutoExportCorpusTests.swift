import CloudSyncHealthAutoExport
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// The real files of ../shared/corpus/hae (never copied into the repository): every one is read,
/// every name in them has a mapping, every point is kept or reported.
@Suite(.enabled(if: Paths.haeCorpusExists, "needs the shared corpus at ../shared/corpus/hae"))
struct HealthAutoExportCorpusTests {
    @Test(arguments: Paths.haeCorpusExists ? Paths.haeCorpusFiles : [])
    func everyRealFileIsRead(path: String) throws {
        let (out, report) = try Collected.read(path: path)
        #expect(report.unmapped.isEmpty, "names without a mapping: \(report.unmapped.sorted())")
        // Every point gave a sample or is reported as not kept.
        for (name, counts) in report.metrics where counts.points > 0 {
            let notKept = report.notKept[name]?.count ?? 0
            #expect(counts.samples + notKept >= counts.points, "\(name): \(counts.points) points, \(counts.samples) samples, \(notKept) not kept")
        }
        #expect(out.metrics.count == report.samples)
        #expect(out.metrics.allSatisfy { $0.endDate >= $0.startDate && $0.value.isFinite && !$0.sourceApp.isEmpty })
    }

    @Test func theRouteOfTheChineseRun() throws {
        let (out, report) = try Collected.read(path: Paths.haeCorpus.appendingPathComponent("workout-with-route-zh.json").path)
        #expect(report.workouts == 1 && out.routes.count == 1)
        #expect(out.routes[0].points.count == 2611)
        #expect(out.of("workout")[0].metadata["activityType"] == "running")
        #expect(out.routes[0].points.allSatisfy { $0.time != nil })
    }

    @Test func rawSamplesStayIndividual() throws {
        let (out, report) = try Collected.read(path: Paths.haeCorpus.appendingPathComponent("raw-summarize-off-one-day.json").path)
        #expect(report.metrics.values.allSatisfy { $0.summarised == 0 })
        #expect(out.metrics.allSatisfy { $0.metadata["aggregation"] == nil })
        #expect(out.of("HKCategoryTypeIdentifierSleepAnalysis").count == 36)
    }

    @Test func dailyFilesAreDays() throws {
        let (out, _) = try Collected.read(path: Paths.haeCorpus.appendingPathComponent("daily-2010-2025-steps-sleep-hrv.json").path)
        let steps = out.of("HKQuantityTypeIdentifierStepCount")
        #expect(!steps.isEmpty && steps.allSatisfy { $0.metadata["aggregation"] == "day" })
    }
}
