import ArgumentParser
import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncStore
import CloudSyncUpload
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the staging store holds: totals, per type, date range, pending uploads, history, identity.",
        usage: """
            cloudsync status [--store PATH] [--count-repeats] [--json] [--upgrade]
            """,
        discussion: """
            Pending is what `cloudsync upload` would send now: to the default target, CloudCare (the \
            server it last sent to), each sample once, of the types CloudCare keeps; --json's "pending" and \
            `export --pending` count the same. Per upload target: steps only to the steps API, Flō's \
            backfill window only, and for CloudCare only the types it keeps (the others are listed as left \
            out). A target that never acknowledged anything is shown as never reached.

            A repeat is a sample stored again with another creation date (a workout re-synced, a food \
            entry logged twice): the store keeps it, and counts it once unless --count-repeats.

            status only reads: it works beside an import, an upload and serve --store. A store that an older \
            cloudsync wrote is not upgraded by a reader: --upgrade does it first (so does any command that writes).

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.missingStore, ExitStatus.damagedStore]))
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Count repeats (samples alike but for their creation date) each time, not once.")
    var countRepeats = false

    @Flag(help: "Print the status as JSON.")
    var json = false

    @Flag(help: "Upgrade a store that an older cloudsync wrote to this one's schema first (readers do not), then print its status.")
    var upgrade = false

    func run() throws {
        var files = SameFileGuard(command: "status")
        files.store(storeOptions.path)
        try files.standardOutput()
        let store = try storeOptions.open(upgrade ? .update : .read)
        var status: StoreStatus
        do {
            status = try StatusQuery(store).status(countRepeats: countRepeats)
            status.healthAutoExport = try StatusQuery(store).pushes()
            for index in status.targets.indices { try scope(&status.targets[index], store) }
        } catch { throw ExitStatus.report(error) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            try StandardOutput.write(try encoder.encode(status) + Data("\n".utf8))
            return
        }
        try StandardOutput.write(Self.text(status) + "\n")
    }

    /// Pending as the upload to that target would count it (the same `UploadScope`).
    private func scope(_ target: inout StoreStatus.Target, _ store: StagingStore) throws {
        guard let kind = UploadTarget(rawValue: target.target),
              let id = try store.ledger.existingUploadTargetID(target: target.target, server: target.server,
                                                               account: target.account ?? "") else { return }
        let window = kind == .flo ? try store.ledger.backfillStart(targetID: id) : nil
        let scope = UploadScope(contract: kind.contract, userFilter: .all, windowStart: window, allTypes: false)
        target.pending = try store.ledger.pendingSummary(targetID: id, filter: scope.filter).count
        target.leftOut = try UploadScope.leftOut(contract: kind.contract, store: store, targetID: id, userFilter: .all)
    }

    static func text(_ status: StoreStatus) -> String {
        var lines = [
            "store:      \(status.store)",
            "identity:   userId \(status.userId), deviceId \(status.deviceId)",
            "metrics:    \(status.metrics)" + Self.repeatsNote(status),
            "pending:    \(status.pending) to upload to \(status.pendingTarget)"
                + (status.pendingLeftOut > 0 ? " (and \(status.pendingLeftOut) of types CloudCare does not keep, not sent to it)" : ""),
            "date range: \(status.firstStart ?? "-") … \(status.lastEnd ?? "-")",
        ]
        // The records besides metrics under one label, each said by its kind ("2 routes (45 points)"):
        // a label per kind was cut to the column's width ("vision pres").
        let records = RecordKinds.all.compactMap { kind in status.records[kind.name].flatMap { $0.records > 0 ? kind.describe($0) : nil } }
        for (index, line) in records.enumerated() { lines.append((index == 0 ? "records:    " : "            ") + line) }
        if let date = status.exportFacts["exportDate"] {
            lines.append("last export: \(date), version \(status.exportFacts["exportVersion"] ?? "?"), locale \(status.exportFacts["locale"] ?? "?")")
        }
        if let phone = status.healthAutoExport { lines += Self.phoneLines(phone) }
        lines.append("by type:")
        for (type, count) in status.byType.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            lines.append("  \(String(count).leftPadded(10))  \(type)")
        }
        if status.byType.isEmpty { lines.append("  none") }
        lines.append("upload targets:")
        for target in status.targets {
            var line = "  \(target.target) \(target.server): "
            line += target.reached ? "\(target.acknowledged) acknowledged, \(target.pending) pending"
                : "never reached (no batch acknowledged; 'cloudsync upload --forget --server \(target.server)' removes it), \(target.pending) pending"
            let leftOut = target.leftOut.values.reduce(0, +)
            if leftOut > 0 { line += "; \(counted(leftOut, "metric")) of types it does not take left out (\(describe(target.leftOut)))" }
            lines.append(line)
        }
        if status.targets.isEmpty { lines.append("  none yet (cloudsync upload --server URL)") }
        for backfill in status.backfill {
            lines.append("backfill \(backfill.target) \(backfill.server): \(backfill.complete ? "complete \(backfill.backfillDate ?? "")" : "not complete")"
                         + (backfill.recommendedStart.map { ", window from \($0)" } ?? ""))
        }
        lines += Self.alwaysOnLines(status)
        lines.append("recent imports:")
        for run in status.imports {
            var line = "  #\(run.id) \(run.startedAt) \(run.outcome): \(run.input), \(run.new) new"
            if run.repeats > 0 { line += " (\(counted(run.repeats, "repeat")))" }
            line += ", \(run.duplicates) already there"
            if run.writtenTwice > 0 { line += ", \(run.writtenTwice) written twice" }
            line += ", \(run.invalid) invalid"
            if let reason = run.reason { line += " (\(reason))" }
            lines.append(line)
        }
        if status.imports.isEmpty { lines.append("  none") }
        lines.append("recent uploads:")
        for run in status.uploads {
            var line = "  #\(run.id) \(run.startedAt) \(run.target) \(run.server) \(run.outcome): \(counted(run.sent, "metric")) in \(counted(run.batches, "batch", "batches"))"
            if run.retries > 0 { line += ", \(counted(run.retries, "retry", "retries"))" }
            let notTaken = run.notTaken.values.reduce(0, +)
            if notTaken > 0 { line += "; the server did not take \(notTaken) (\(describe(run.notTaken)))" }
            if let error = run.error { line += " (\(error))" }
            lines.append(line)
        }
        if status.uploads.isEmpty { lines.append("  none") }
        return lines.joined(separator: "\n")
    }

    /// What `serve --store` does by itself: forwarding to each target, the watched folders' files.
    static func alwaysOnLines(_ status: StoreStatus) -> [String] {
        var lines: [String] = []
        for forward in status.forwarding {
            var line = "forwarding to \(forward.target) \(forward.server) (every \(forward.everySeconds) s): "
            line += forward.lastSuccess.map { "last success \($0) (\(counted(forward.lastSent, "metric")) sent)" } ?? "no success yet"
            if let pending = forward.pending { line += ", \(pending) pending" }
            if forward.failures > 0, let error = forward.lastError {
                line += "; failing (\(counted(forward.failures, "try", "tries")) in a row), last error \(forward.lastErrorAt ?? ""): \(error)"
            }
            if let next = forward.nextTry { line += "; next try \(next)" }
            lines.append(line)
        }
        if status.watchedFilesImported > 0 || !status.watchedFileProblems.isEmpty {
            lines.append("watched folder: \(counted(status.watchedFilesImported, "file")) imported")
            for problem in status.watchedFileProblems {
                let said = problem.problem.hasPrefix(problem.file) ? problem.problem : "\(problem.file): \(problem.problem)"
                lines.append("  not imported (tried again when it changes): \(said)")
            }
        }
        return lines
    }

    /// What is kept but not counted, by reason: the repeats, and the rows the phone pushed where
    /// another source counts (why, in "from the phone").
    static func repeatsNote(_ status: StoreStatus) -> String {
        var notes: [String] = []
        if status.repeats > 0 {
            notes.append(status.countsRepeats
                ? "\(counted(status.repeats, "repeat")) among them: samples alike but for their creation date"
                : "and \(counted(status.repeats, "repeat")) kept: samples alike but for their creation date, counted once")
        }
        if status.superseded > 0 {
            notes.append("\(status.repeats > 0 ? "" : "and ")\(counted(status.superseded, "superseded row")) kept: pushed where another source counts, not counted")
        }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
    }

    /// "HKQuantityTypeIdentifierBasalEnergyBurned 5000, …" as "basalEnergyBurned 5000, …", largest first.
    static func describe(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\(MetricFilter.shortName($0.key)) \($0.value)" }.joined(separator: ", ")
    }
}
