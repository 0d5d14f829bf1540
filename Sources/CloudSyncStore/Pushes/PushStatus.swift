import CloudSyncModel

/// What `status` says of Health Auto Export: the last push (or file), and how much of what was
/// pushed counts and how much is superseded, and why (docs/store.md, "Two sources").
public struct HealthAutoExportStatus: Sendable, Codable, Equatable {
    public struct Push: Sendable, Codable, Equatable {
        public var receivedAt: String
        /// `push` or `file`.
        public var via: String
        public var input: String
        public var automationName: String?
        public var aggregation: String?
        public var period: String?
        public var sessionID: String?
        public var stored: Int
        public var already: Int
        public var notKept: Int
    }

    /// Pushes and files imported.
    public var imports: Int
    public var last: Push?
    /// The pushed samples (and summaries) that count.
    public var counted: Int
    /// Kept but not counted: before the export's ExportDate; summaries with individual samples in
    /// their interval; summaries pushed again later.
    public var beforeExportDate: Int
    public var summariesWithSamples: Int
    public var summariesPushedAgain: Int

    public var superseded: Int { beforeExportDate + summariesWithSamples + summariesPushedAgain }
}

extension StatusQuery {
    /// What came from Health Auto Export (nil when nothing did): the last push or file, and what of
    /// the pushed rows counts and, for the rest, why not.
    public func pushes() throws -> HealthAutoExportStatus? {
        try storeErrors {
            let imports = Int(try database.scalarInt("SELECT count(*) FROM hae_push") ?? 0)
            guard imports > 0 else { return nil }
            var last: HealthAutoExportStatus.Push?
            let latest = try database.prepare("""
                SELECT p.received_at, p.via, r.input, p.automation_name, p.aggregation, p.period, p.session_id, p.stored, p.already, p.not_kept
                FROM hae_push p JOIN import_run r ON r.id = p.run_id ORDER BY p.run_id DESC LIMIT 1
                """)
            if try latest.step() {
                last = .init(receivedAt: UTCDateFormatter.string(latest.int64(0)), via: latest.text(1) ?? "", input: latest.text(2) ?? "",
                             automationName: latest.text(3), aggregation: latest.text(4), period: latest.text(5), sessionID: latest.text(6),
                             stored: Int(latest.int64(7)), already: Int(latest.int64(8)), notKept: Int(latest.int64(9)))
            }
            // The pushed rows through their own index (metric_pushed), never the export's rows.
            var byState = [Int64: Int]()
            let count = try database.prepare("SELECT superseded, count(*) FROM metric WHERE origin = 1 AND start_date > ? GROUP BY superseded")
            try count.bind([.int(.min)])
            while try count.step() { byState[count.int64(0), default: 0] += Int(count.int64(1)) }
            return HealthAutoExportStatus(imports: imports, last: last, counted: byState[0] ?? 0, beforeExportDate: byState[1] ?? 0,
                                          summariesWithSamples: byState[2] ?? 0, summariesPushedAgain: byState[3] ?? 0)
        }
    }
}
