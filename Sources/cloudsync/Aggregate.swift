public import ArgumentParser
import CloudSyncExport
import CloudSyncModel
public import CloudSyncStore
import Foundation

struct Aggregate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aggregate",
        abstract: "Count, sum, average, minimum and maximum per type and hour, day, week or month.",
        usage: """
            cloudsync aggregate --bucket hour|day|week|month [--store PATH]
                     [--tz ZONE] [--merge-sources] [--count-repeats]
                     [--format table|jsonl|csv]
                     [--types T,…] [--since DATE] [--until DATE]
            """,
        discussion: """
            A sample counts in the bucket of its startDate, in --tz (default UTC). In --since and --until, \
            a date without a time is midnight in --tz, and --until is not included: --since 2024-03-01 \
            --until 2024-03-08 is the first seven days of March, each whole. Weeks start on Monday and are \
            labelled by that Monday. --merge-sources counts a span recorded by several sources (iPhone and Watch \
            on the same walk) once, for the source of highest priority, as the Health app does; see docs/aggregation.md.

            A repeat (the same sample stored again with another creation date: a re-synced workout, a food entry \
            logged twice) counts once unless --count-repeats; see docs/store.md.

            Example:
              cloudsync aggregate --bucket day --types stepCount \\
                --tz Europe/Paris --merge-sources

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.missingStore, ExitStatus.damagedStore]))
            """
    )

    enum OutputFormat: String, CaseInsensitiveArgument, CaseIterable { case table, jsonl, csv }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "hour, day, week or month.")
    var bucket: AggregateBucket

    @Option(help: "Time zone of the buckets, an IANA name like Europe/Paris (default UTC).")
    var tz: String?

    @Option(help: "table, jsonl or csv.")
    var format: OutputFormat = .table

    @Flag(help: "Do not double-count steps, distance or energy recorded by several sources.")
    var mergeSources = false

    @Flag(help: "Count repeats (samples alike but for their creation date) each time, not once.")
    var countRepeats = false

    @OptionGroup var filters: FilterOptions

    func validate() throws {
        _ = try ZoneName.resolve(tz)
    }

    func run() throws {
        var files = SameFileGuard(command: "aggregate")
        files.store(storeOptions.path)
        try files.standardOutput()
        let store = try storeOptions.open(.read)
        let rows: [AggregateRow]
        do {
            rows = try AggregateQuery(store).aggregate(AggregateOptions(bucket: bucket, filter: try filters.makeFilter(zone: try ZoneName.resolve(tz)),
                                                        timeZone: try ZoneName.resolve(tz), mergeSources: mergeSources,
                                                        countRepeats: countRepeats))
        } catch {
            throw ExitStatus.report(error)
        }
        let number = { (value: Double) in NumberFormatting.string(NumberFormatting.roundedAfterConversion(value)) }
        switch format {
        case .jsonl:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var out = Data()
            for row in rows { out.append(try encoder.encode(row)); out.append(UInt8(ascii: "\n")) }
            try StandardOutput.write(out)
        case .csv:
            // The same RFC 4180 writer as `convert --format csv`.
            var out = ByteBuffer(capacity: 1 << 16)
            out.appendCSVRow(Self.columns(rows))
            for row in rows { out.appendCSVRow(Self.cells(row, rows, number)) }
            try StandardOutput.write(out.withBytes { Data($0) })
        case .table:
            let header = Self.columns(rows)
            let cells = rows.map { Self.cells($0, rows, number) }
            let textColumns = header.count - 5
            let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
            var text = ""
            for row in [header] + cells {
                text += row.enumerated().map { column, cell in
                    column < textColumns ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) : cell.leftPadded(widths[column])
                }.joined(separator: "  ") + "\n"
            }
            try StandardOutput.write(text)
        }
    }
}

extension Aggregate {
    /// The columns: `category` (asleep or in bed) only when sleep is among the rows, so that every
    /// other output keeps its columns.
    static func columns(_ rows: [AggregateRow]) -> [String] {
        let categories = rows.contains { $0.category != nil }
        return ["type"] + (categories ? ["category"] : []) + ["bucket", "unit", "count", "sum", "average", "minimum", "maximum"]
    }

    static func cells(_ row: AggregateRow, _ rows: [AggregateRow], _ number: (Double) -> String) -> [String] {
        let categories = rows.contains { $0.category != nil }
        return [row.type] + (categories ? [row.category ?? ""] : [])
            + [row.bucket, row.unit, String(row.count), number(row.sum), number(row.average), number(row.minimum), number(row.maximum)]
    }
}

extension AggregateBucket: ExpressibleByArgument {
    /// `--bucket Day` is meant as `day` (CaseInsensitiveArgument's rule, for a type of the store).
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
