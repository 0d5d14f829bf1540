import ArgumentParser
import CloudSyncCore
import CloudSyncStore
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what the staging store holds: totals, per type, date range, pending uploads, history, identity.",
        discussion: "\(ExitStatus.helpText)"
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print the status as JSON.")
    var json = false

    func run() throws {
        let store = try storeOptions.open(.read)
        let status: StoreStatus
        do { status = try store.status() } catch { throw ExitStatus.report(error) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(status))
            FileHandle.standardOutput.write(Data("\n".utf8))
            return
        }
        var lines = [
            "store:      \(status.store)",
            "identity:   userId \(status.userId), deviceId \(status.deviceId)",
            "metrics:    \(status.metrics) (\(status.pending) not yet acknowledged by a CloudCare upload)",
            "date range: \(status.firstStart ?? "-") … \(status.lastEnd ?? "-")",
        ]
        if let date = status.exportFacts["exportDate"] {
            lines.append("last export: \(date), version \(status.exportFacts["exportVersion"] ?? "?"), locale \(status.exportFacts["locale"] ?? "?")")
        }
        lines.append("by type:")
        for (type, count) in status.byType.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            lines.append("  \(String(count).leftPadded(10))  \(type)")
        }
        if !status.targets.isEmpty {
            lines.append("upload targets:")
            for target in status.targets { lines.append("  \(target.target) \(target.server): \(target.acknowledged) acknowledged, \(target.pending) pending") }
        }
        for backfill in status.backfill {
            lines.append("backfill \(backfill.target) \(backfill.server): \(backfill.complete ? "complete \(backfill.backfillDate ?? "")" : "not complete")")
        }
        lines.append("recent imports:")
        for run in status.imports {
            var line = "  #\(run.id) \(run.startedAt) \(run.outcome): \(run.input), \(run.new) new, \(run.duplicates) duplicates, \(run.invalid) invalid"
            if let reason = run.reason { line += " (\(reason))" }
            lines.append(line)
        }
        if status.imports.isEmpty { lines.append("  none") }
        lines.append("recent uploads:")
        for batch in status.uploads {
            lines.append("  \(batch.at) \(batch.target) \(batch.server): \(batch.count) metrics, \(batch.success ? "ok" : "failed: \(batch.error ?? "")")")
        }
        if status.uploads.isEmpty { lines.append("  none") }
        print(lines.joined(separator: "\n"))
    }
}
