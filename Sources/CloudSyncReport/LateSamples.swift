import CloudSyncModel
import CloudSyncStore
import Foundation

/// Samples dated after the export they came in (a real 2019 export held two samples of 2030: a
/// clock set wrong). The store keeps them and the overview counts them, but the page's time axes
/// (charts, calendars, the workouts' months) end at the export, or eleven mostly empty years would
/// squeeze the real ones; a note at the top says how many were left out and when they are dated.
struct LateSamples {
    /// What sets the last instant drawn.
    enum Limit { case export, phone, now }
    /// The last instant drawn: the newest export's `ExportDate` or the phone's last push or file,
    /// whichever is later (the store is current up to then), or the report's time when neither is.
    let limit: Int64
    let limitSetBy: Limit
    /// Samples (workouts among them, each counted once) and ECGs of the range dated after `limit`.
    var count = 0
    var ecgs = 0
    /// The local days of the first and last of those samples.
    var firstDay: String?
    var lastDay: String?

    /// What is drawn, as an exclusive `--until`: the samples starting at or before `limit`.
    var until: Int64 { limit + 1 }

    /// "after the export", "after the phone's last push", or "after the report was made".
    var after: String {
        switch limitSetBy {
        case .export: "after the export"
        case .phone: "after the phone's last push"
        case .now: "after the report was made"
        }
    }

    /// Looks for them among the types whose last sample ends after `limit` (from the overview's
    /// summary), so that a store without any reads nothing more.
    static func find(_ store: StagingStore, overview: StoreOverview, now: Int64, since: Int64?, until: Int64?,
                     zone: TimeZone?) throws -> LateSamples {
        let exportDate = try OverviewQuery(store).latestExportDate(), pushed = try OverviewQuery(store).latestPushDate()
        var late = switch (exportDate, pushed) {
        case (let export?, let push?) where push > export: LateSamples(limit: push, limitSetBy: .phone)
        case (let export?, _): LateSamples(limit: export, limitSetBy: .export)
        case (nil, let push?): LateSamples(limit: push, limitSetBy: .phone)
        case (nil, nil): LateSamples(limit: now, limitSetBy: .now)
        }
        let from = max(since ?? .min, late.until)
        let types = overview.types.filter { (ReportData.epochSeconds($0.last) ?? .max) >= late.until }.map(\.type)
        if !types.isEmpty && from < (until ?? .max) {
            let counts = try OverviewQuery(store).counts(filter: MetricFilter(types: types, since: from, until: until), zone: zone)
            late.count = counts.reduce(0) { $0 + $1.count }
            late.firstDay = counts.map(\.firstDay).min()
            late.lastDay = counts.map(\.lastDay).max()
        }
        if from < (until ?? .max) { late.ecgs = try ECGQuery(store).ecgs(since: from, until: until).count }
        return late
    }

    /// "2 samples dated after the export (2030-01-01 to 2030-05-02) are not drawn: the export was
    /// made on 2019-06-01 10:00." Nil when there are none.
    func note(_ time: LocalTime) -> String? {
        guard count > 0 || ecgs > 0 else { return nil }
        var what: [String] = []
        if count > 0 { what.append(count == 1 ? "1 sample" : "\(count) samples") }
        if ecgs > 0 { what.append(ecgs == 1 ? "1 ECG" : "\(ecgs) ECGs") }
        let days = firstDay.map { first in lastDay.map { $0 == first ? " (\(first))" : " (\(first) to \($0))" } ?? "" } ?? ""
        let plural = count + ecgs > 1
        let made = switch limitSetBy {
        case .export: "the export was made on \(time.minute(limit))"
        case .phone: "the phone last sent data on \(time.minute(limit))"
        case .now: "the store has no export date, so the report's own time (\(time.minute(limit))) is the limit"
        }
        return "\(what.joined(separator: " and ")) dated \(after)\(days) \(plural ? "are" : "is") not drawn: \(made)."
    }
}
