import CloudSyncModel
import Foundation

/// The `daily` view of the `sql` tool: one row per type, unit and day in a time zone, with the numbers
/// of `cloudsync aggregate --bucket day --merge-sources --tz ZONE` (iPhone and Watch merged, repeats
/// counted once). They are `StagingStore.aggregate`'s own rows, not SQL of ours: a second
/// implementation of the merge would drift from the first, and the merge (proration by the spans of
/// higher-ranked sources) is not something a view over `metrics` can say.
///
/// The rows are kept in a temporary table of the `sql` connection whose name is made at random for
/// the connection (like the store's attachment, `ReadOnlySQL`): a query reaches them through the view
/// only. The table holds the rows of the last `cachedZones` zones asked; a zone's rows are built the
/// first time a query names `daily` in that zone, and again once the store has changed (an import may
/// commit while the server serves). The view is pointed at the zone of the call.
///
/// It writes the temporary schema: `ReadOnlySQL` calls `use(zone:)` with its guard lifted, never while
/// the assistant's statement is prepared or run.
final class DailyTable {
    static let viewName = "daily"
    /// Zones whose rows are kept: an assistant asks in the person's zone, and in UTC when it leaves the
    /// argument out. A zone's rows are days × types (71,700 rows, about 8 MiB, for the 8 years of the 1 GB
    /// generated export), and 4 zones took the server past its 96 MiB goal (docs/mcp.md).
    static let cachedZones = 2

    /// The hidden table's name.
    let table: String
    private let connection: any StoreDatabase
    private let store: StagingStore
    /// The zones built, least recently used first, with the store's data version their rows are of.
    private var built: [(zone: String, version: Int64)] = []
    private var viewZone: String?
    /// Every zone ever built, to tell a first use from a zone let go.
    private var asked: Set<String> = []

    /// Creates the (empty) table and the view; the caller's guard must allow it.
    init(connection: any StoreDatabase, store: StagingStore, suffix: String) throws {
        self.connection = connection
        self.store = store
        table = "daily_" + suffix
        // WITHOUT ROWID on (zone, type, unit, day): a zone's rows are one range of the key, in type
        // and day order, and a query on a type reads only that type's days.
        try connection.execute("""
            CREATE TEMP TABLE \(table) (zone TEXT NOT NULL, type TEXT NOT NULL, category TEXT NOT NULL, unit TEXT NOT NULL,
                day TEXT NOT NULL, weekday INTEGER NOT NULL, count INTEGER NOT NULL, sum REAL NOT NULL, average REAL NOT NULL,
                minimum REAL NOT NULL, maximum REAL NOT NULL, PRIMARY KEY (zone, type, category, unit, day)) WITHOUT ROWID
            """)
        try point(at: "UTC")
    }

    /// Makes `daily` give `zone`'s days as the store is now: from the rows kept when the store has not
    /// changed since they were built, else built again. The build, if there was one.
    func use(zone: TimeZone?) throws -> ReadOnlySQL.DailyBuild? {
        let name = zone?.identifier ?? "UTC"
        let version = try DailyQuery(store).dataVersion()
        var build: ReadOnlySQL.DailyBuild?
        if let index = built.firstIndex(where: { $0.zone == name }) {
            let kept = built.remove(at: index)
            if kept.version != version { build = try self.build(zone: zone, name: name, reason: .storeChanged) }
            else { built.append(kept) }
        } else {
            build = try self.build(zone: zone, name: name, reason: asked.contains(name) ? .notKept : .firstUse)
        }
        if viewZone != name { try point(at: name) }
        return build
    }

    private func build(zone: TimeZone?, name: String, reason: ReadOnlySQL.DailyBuild.Reason) throws -> ReadOnlySQL.DailyBuild {
        let started = Date()
        // The least recently used zones make room (at most one but after a failed build).
        let evicted = Array(built.prefix(max(0, built.count - Self.cachedZones + 1)))
        built.removeFirst(evicted.count)
        let version: Int64
        var count = 0
        // BEGIN, not BEGIN IMMEDIATE: that would ask for the read-only store's write lock too.
        try connection.execute("BEGIN")
        do {
            let delete = try connection.prepare("DELETE FROM temp.\(table) WHERE zone = ?")
            for zone in evicted.map(\.zone) + [name] {
                try delete.run([.text(zone)])
            }
            // The weekday is SQLite's own (`strftime('%w')`, 0 = Sunday), for queries that compare it with theirs.
            let insert = try connection.prepare("""
                INSERT INTO temp.\(table) (zone, type, category, unit, day, weekday, count, sum, average, minimum, maximum)
                VALUES (?1, ?2, ?10, ?3, ?4, CAST(strftime('%w', ?4) AS INTEGER), ?5, ?6, ?7, ?8, ?9)
                """)
            // The numbers as `aggregate` prints them: the float noise of unit conversion and proration
            // rounded off (NumberFormatting), so a day's sum is the CSV's, digit for digit.
            let number = NumberFormatting.roundedAfterConversion
            version = try DailyQuery(store).dailyValues(zone: zone) { rows in
                for row in rows {
                    try insert.run([.text(name), .text(row.type), .text(row.unit), .text(row.bucket), .int(Int64(row.count)),
                                    .double(number(row.sum)), .double(number(row.average)), .double(number(row.minimum)),
                                    .double(number(row.maximum)), .text(row.category ?? "")])
                }
                count += rows.count
            }
            try connection.execute("COMMIT")
        } catch {
            // The zones let go still have their rows (the deletes are rolled back): they are kept.
            connection.rollBack()
            built.insert(contentsOf: evicted, at: 0)
            throw error
        }
        built.append((name, version))
        asked.insert(name)
        return ReadOnlySQL.DailyBuild(zone: name, rows: count, seconds: Date().timeIntervalSince(started), reason: reason)
    }

    /// (Re)creates the view over `zone`'s rows. The zone is an IANA name (or UTC), quoted all the same.
    private func point(at zone: String) throws {
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let names = weekdays.enumerated().map { "WHEN \($0.offset) THEN '\($0.element)'" }.joined(separator: " ")
        try connection.execute("""
            DROP VIEW IF EXISTS temp.\(Self.viewName);
            CREATE TEMP VIEW \(Self.viewName) AS
                SELECT type, nullif(category, '') AS category, unit, day, weekday, CASE weekday \(names) END AS weekday_name, count, sum,
                       average, minimum, maximum
                FROM temp.\(table) WHERE zone = '\(zone.replacingOccurrences(of: "'", with: "''"))'
            """)
        viewZone = zone
    }

    /// Whether `query` names the view: the word `daily` as an SQL token (any case, quoted or not),
    /// not inside another name (`daily_steps`). A mention in a string or a comment builds it for
    /// nothing, which costs time only; the view cannot be reached without its name.
    static func isNamed(in query: String) -> Bool {
        let word = Array(viewName.utf8)
        let bytes = Array(query.utf8)
        // SQLite's identifier characters: letters, digits, `_`, `$` and every byte of a non-ASCII character.
        func isNameByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        guard bytes.count >= word.count else { return false }
        for start in 0...(bytes.count - word.count) {
            guard (0..<word.count).allSatisfy({ bytes[start + $0] | 0x20 == word[$0] }) else { continue }
            let before = start == 0 ? nil : bytes[start - 1]
            let after = start + word.count == bytes.count ? nil : bytes[start + word.count]
            if !(before.map(isNameByte) ?? false) && !(after.map(isNameByte) ?? false) { return true }
        }
        return false
    }
}

@available(*, unavailable)
extension DailyTable: Sendable {}
