import CloudSyncModel
import CloudSyncStore
import Foundation

/// The first section: what the page is about. Without a range, the whole store as `status` counts
/// it; with `--since`/`--until`, what the range holds (and, said as such, what the whole store
/// holds), or plainly that the range holds nothing.
enum OverviewSection {
    static func render(_ page: inout HTMLText, _ data: ReportData, time: LocalTime) {
        let overview = data.overview
        let routes = overview.records[RouteKind.name] ?? 0, ecgs = overview.records[ECGKind.name] ?? 0
        ReportPage.section(&page, id: "overview", title: "Overview") { page in
            guard overview.metrics > 0 || overview.workouts > 0 || routes > 0 || ecgs > 0 else {
                page.element("p", text: "The store holds no samples yet: import an export first (cloudsync import export.zip).")
                return
            }
            guard let range = data.range else {
                page.element("p", text: "\(counted(overview.metrics, "sample")) of \(counted(overview.types.count, "type"))\(span(overview, time)); "
                    + "\(counted(overview.workouts, "workout")), \(counted(routes, "route")), \(counted(ecgs, "ECG")).")
                lastImport(&page, overview, time: time)
                page.table(summary: "Sources", columns: ["source", "samples"], rows: overview.sources.map { [$0.name, "\($0.count)"] }, id: "sources")
                page.table(summary: "Types", columns: ["type", "unit", "samples", "first", "last"],
                           rows: overview.types.map { [$0.type, $0.unit, "\($0.count)", time.minute($0.first), time.minute($0.last)] }, id: "types")
                return
            }
            let whole = "The whole store holds \(counted(overview.metrics, "sample"))\(span(overview, time))."
            guard !range.isEmpty else {
                page.element("p", ["class": "empty"], text: "There is no data in this range: no sample, workout, route or ECG starts in it.")
                page.element("p", text: whole)
                return
            }
            let first = range.types.map(\.first).min() ?? "", last = range.types.map(\.last).max() ?? ""
            page.element("p", text: "In this range: \(counted(range.samples, "sample")) of \(counted(range.types.count, "type"))"
                + (first.isEmpty ? "" : first == last ? " on \(first)" : " from \(first) to \(last)")
                + "; \(counted(range.workouts, "workout")), \(counted(range.routes, "route")), \(counted(range.ecgs, "ECG")).")
            page.element("p", ["class": "note"], text: whole)
            lastImport(&page, overview, time: time)
            page.table(summary: "Types in this range", columns: ["type", "unit", "samples", "first day", "last day"],
                       rows: range.types.map { [$0.type, $0.unit, "\($0.count)", $0.first, $0.last] }, id: "types")
        }
    }

    /// " from 2024-10-25 to 2024-10-28", local days.
    private static func span(_ overview: StoreOverview, _ time: LocalTime) -> String {
        guard let first = overview.types.map(\.first).min(), let last = overview.types.map(\.last).max() else { return "" }
        return " from \(time.day(first)) to \(time.day(last))"
    }

    private static func lastImport(_ page: inout HTMLText, _ overview: StoreOverview, time: LocalTime) {
        guard let run = overview.lastImport else { return }
        page.element("p", text: "Last import: \((run.input as NSString).lastPathComponent) on \(time.minute(run.startedAt)) "
            + "(\(run.outcome), \(counted(run.new, "new sample")))."
        )
    }

    /// "1 route", "3 routes".
    static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
