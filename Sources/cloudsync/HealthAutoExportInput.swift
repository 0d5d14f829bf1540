import CloudSyncHealthAutoExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Foundation

extension Import {
    /// `import FILE.json` and `import FOLDER`: each document in its own transaction, through the
    /// store's Health Auto Export import. A document that is refused stops the run (65, or 66 when
    /// it cannot be read); the documents before it are kept.
    func importHealthAutoExport(_ files: [String]) throws {
        guard !files.isEmpty else {
            printError("\(self.input): no .json file in the folder")
            throw ExitStatus.noInput
        }
        let store = try storeOptions.open(.write)
        for file in files {
            do {
                let document = try HealthAutoExportDocument(path: file)
                let result = try store.importDocument(document, details: .file)
                if !quiet || !result.report.unmapped.isEmpty { printError(HealthAutoExportSummary.line(result, store: store.path)) }
            } catch let error as HealthAutoExportError {
                printError(error.description)
                printError("nothing of \(file) was imported")
                throw error.kind == .unreadable ? ExitStatus.noInput : ExitStatus.dataError
            } catch {
                throw ExitStatus.report(error)
            }
        }
    }
}

/// One line per document imported: what was added, what was there, what does not count, what was not kept.
enum HealthAutoExportSummary {
    static func line(_ result: DocumentImportResult, store: String) -> String {
        let (report, stored) = (result.report, result.stored)
        var line = "imported \(report.input) into \(store): \(stored.new) new, \(stored.already) already there"
        if stored.superseded > 0 { line += ", \(stored.superseded) kept but superseded (not counted)" }
        if report.workouts > 0 { line += "; \(counted(report.workouts, "workout"))" }
        for kind in RecordKinds.all {
            let records: (new: Int, already: Int) = stored.records[kind.name] ?? (0, 0)
            guard records.new + records.already > 0 else { continue }
            line += "; \(counted(records.new, kind.noun.singular, kind.noun.plural)) new (\(records.already) already there)"
        }
        if !report.unmapped.isEmpty {
            line += "; no mapping, kept under their own names: " + report.unmapped.sorted().joined(separator: ", ")
        }
        if !report.notKept.isEmpty {
            line += "; not kept: " + report.notKept.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.count) (\($0.value.reason))" }
                .joined(separator: ", ")
        }
        line += String(format: " (%.1f s)", report.seconds)
        return line
    }
}

extension Inspect {
    /// `inspect FILE.json`: what a Health Auto Export document holds, read by the same reader as
    /// `import` (nothing is stored): per name, the points, samples and summaries, the unit, the
    /// mapping; workouts and routes; what would not be kept.
    func inspectHealthAutoExport(_ files: [String]) throws {
        var reports: [HealthAutoExportReport] = []
        for file in files {
            do {
                let document = try HealthAutoExportDocument(path: file)
                reports.append(try ReaderRunner.run(HealthAutoExportReader(document: document),
                                                    into: ReaderSinks(metrics: DiscardingSink(), records: CountingRecordSink())))
            } catch let error as HealthAutoExportError {
                printError(error.description)
                throw error.kind == .unreadable ? ExitStatus.noInput : ExitStatus.dataError
            }
        }
        if json {
            let objects = reports.map(Self.jsonObject)
            let value: Any = objects.count == 1 ? objects[0] : objects
            let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            try StandardOutput.write(data + Data("\n".utf8))
        } else {
            try StandardOutput.write(reports.map(Self.text).joined(separator: "\n") + "\n")
        }
    }

    static func jsonObject(_ report: HealthAutoExportReport) -> [String: Any] {
        var metrics: [String: Any] = [:]
        for (name, counts) in report.metrics {
            metrics[name] = ["points": counts.points, "samples": counts.samples, "summarised": counts.summarised, "units": counts.units,
                             "type": HealthAutoExportNames.entry(name).map { $0.type.description } ?? NSNull()]
        }
        return ["input": report.input, "format": "Health Auto Export JSON", "points": report.points, "samples": report.samples,
                "metrics": metrics, "workouts": report.workouts, "routes": report.routes, "routePoints": report.routePoints,
                "arrays": report.items, "records": report.records.mapValues { ["records": $0.records, "parts": $0.parts] },
                "arraySamples": report.arraySamples,
                "unmapped": report.unmapped.sorted(),
                "notKept": report.notKept.mapValues { ["count": $0.count, "reason": $0.reason] }]
    }

    /// What each of the app's other arrays becomes (docs/mapping.md, "The app's other arrays").
    static let keptAs = [
        "medications": "medication doses (--kind medications)", "stateOfMind": "State of Mind entries (--kind state-of-mind)",
        "ecg": "ECGs (--kind ecg)", "symptoms": "category samples (HKCategoryTypeIdentifierHeadache, …)",
        "cycleTracking": "category samples (HKCategoryTypeIdentifierMenstrualFlow, …)",
        "heartRateNotifications": "category samples (HKCategoryTypeIdentifierHighHeartRateEvent, …) and their heart rates (--kind series)",
    ]

    static func text(_ report: HealthAutoExportReport) -> String {
        var lines = ["\(report.input): Health Auto Export JSON, \(counted(report.points, "point")) → \(counted(report.samples, "sample"))"
                     + String(format: " (read in %.2f s)", report.seconds)]
        for (name, counts) in report.metrics.sorted(by: { $0.key < $1.key }) {
            let type = HealthAutoExportNames.entry(name).map { $0.type.description } ?? "no mapping: kept as \(name)"
            var line = "  \(name) (\(counts.units)) → \(type): \(counted(counts.points, "point"))"
            if counts.summarised > 0 { line += ", \(counts.summarised) summarised" }
            lines.append(line)
        }
        if report.workouts > 0 { lines.append("  workouts: \(report.workouts), routes: \(report.routes) (\(report.routePoints) points)") }
        for (array, count) in report.items.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(array): \(counted(count, "item")) → \(Self.keptAs[array] ?? "kept")")
        }
        let records = RecordKinds.all.compactMap { kind in report.records[kind.name].map(kind.describe) }
        if !records.isEmpty { lines.append("  records: " + records.joined(separator: ", ")) }
        for (name, notKept) in report.notKept.sorted(by: { $0.key < $1.key }) {
            lines.append("  not kept: \(name) \(notKept.count) (\(notKept.reason))")
        }
        return lines.joined(separator: "\n")
    }
}

extension Status {
    /// "from the phone:" in `status`: the last push, and what of the pushed data counts.
    static func phoneLines(_ phone: HealthAutoExportStatus) -> [String] {
        var lines: [String] = []
        if let last = phone.last {
            var line = "last push:  \(last.receivedAt) "
            line += last.via == "push" ? "(\(last.automationName.map { "automation \"\($0)\"" } ?? "Health Auto Export"))" : "(file \(last.input))"
            if let aggregation = last.aggregation { line += ", aggregation \(aggregation)" }
            line += ": \(last.stored) new, \(last.already) already there"
            if last.notKept > 0 { line += ", \(last.notKept) not kept" }
            lines.append(line)
        }
        var fromPhone = "from the phone: \(counted(phone.imports, "push or file", "pushes and files")), \(phone.counted) samples counted"
        if phone.superseded > 0 {
            fromPhone += ", \(phone.superseded) superseded (kept, not counted): \(phone.beforeExportDate) before the export's date, "
                + "\(counted(phone.summariesWithSamples, "summary", "summaries")) with samples in them, "
                + "\(counted(phone.summariesPushedAgain, "summary", "summaries")) pushed again"
        }
        lines.append(fromPhone)
        return lines
    }
}
