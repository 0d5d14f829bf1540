import CloudSyncModel

/// What `status` shows: totals, per type and by reason, the date range, pending per target, recent imports and uploads, the phone's pushes.
public struct StatusQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// How many samples the store holds, per type, and from when to when.
    public struct Counts: Sendable {
        /// Each sample once (with the repeats when counted); by type, the types with any.
        public var metrics: Int
        public var byType: [String: Int]
        /// Each sample once, whatever was asked: what an upload can send.
        public var counted: Int
        public var repeats: Int
        public var superseded: Int
        /// The first start and the last end of any stored sample (`2024-03-10T00:00:00Z`).
        public var firstStart: String?
        public var lastEnd: String?

        /// A store with nothing in it.
        public static let none = Counts(metrics: 0, byType: [:], counted: 0, repeats: 0, superseded: 0)
    }

    /// The counts `status` starts with, from the counts the import and the trigger keep
    /// (`CountedRows`), not from every row: what `serve`'s summary route answers.
    public func counts(countRepeats: Bool = false) throws -> Counts {
        try storeErrors {
            var counts = Counts(metrics: 0, byType: [:], counted: 0, repeats: 0, superseded: 0)
            let types = try database.prepare("""
                SELECT t.name, sum(s.count), sum(s.repeats), sum(s.superseded) FROM metric_summary s JOIN metric_type t ON t.id = s.type_id
                GROUP BY s.type_id, t.name
                """)
            while try types.step() {
                let (typeCounted, typeRepeats) = (Int(types.int64(1)), Int(types.int64(2)))
                counts.counted += typeCounted
                counts.repeats += typeRepeats
                counts.superseded += Int(types.int64(3))
                let shown = typeCounted + (countRepeats ? typeRepeats : 0)
                if shown > 0 { counts.byType[types.text(0) ?? ""] = shown }
            }
            counts.metrics = counts.byType.values.reduce(0, +)
            let range = try database.prepare("SELECT min(first_start), max(last_end) FROM metric_summary")
            _ = try range.step()
            counts.firstStart = range.isNull(0) ? nil : UTCDateFormatter.string(range.int64(0))
            counts.lastEnd = range.isNull(1) ? nil : UTCDateFormatter.string(range.int64(1))
            return counts
        }
    }

    /// Totals, per type, date range, pending per target, recent imports and uploads, backfill, identity.
    /// Each sample counts once unless `countRepeats`.
    public func status(recent: Int = 10, countRepeats: Bool = false) throws -> StoreStatus {
        try storeErrors {
            let identity = try self.identity()
            let counts = try self.counts(countRepeats: countRepeats)
            let (metrics, byType, firstStart, lastEnd) = (counts.metrics, counts.byType, counts.firstStart, counts.lastEnd)
            let samples = counts.counted   // each once: what an upload can send

            var targets: [StoreStatus.Target] = []
            let targetRows = try database.prepare("""
                SELECT t.target, t.server, (SELECT count(*) FROM upload_ack a WHERE a.target_id = t.id),
                       EXISTS (SELECT 1 FROM upload_batch b WHERE b.target_id = t.id AND b.success = 1), t.account
                FROM upload_target t ORDER BY t.id
                """)
            while try targetRows.step() {
                let acknowledged = Int(targetRows.int64(2))
                var target = StoreStatus.Target(target: targetRows.text(0) ?? "", server: targetRows.text(1) ?? "",
                                                acknowledged: acknowledged, pending: samples - acknowledged)
                target.reached = acknowledged > 0 || targetRows.int64(3) != 0
                target.account = targetRows.text(4)
                targets.append(target)
            }
            let defaultPending = try store.ledger.defaultPending()
            let pending = try store.ledger.pendingSummary(targetID: defaultPending.targetID, filter: defaultPending.filter).count

            let imports = try recentImports(recent)
            let uploads = try recentUploads(recent)

            var backfill: [StoreStatus.Backfill] = []
            let backfillRows = try database.prepare("""
                SELECT t.target, t.server, b.complete, b.backfill_date, b.recommended_start
                FROM backfill_state b JOIN upload_target t ON t.id = b.target_id ORDER BY t.id
                """)
            while try backfillRows.step() {
                backfill.append(.init(target: backfillRows.text(0) ?? "", server: backfillRows.text(1) ?? "",
                                      complete: backfillRows.int64(2) != 0, backfillDate: backfillRows.text(3),
                                      recommendedStart: backfillRows.text(4)))
            }

            var facts: [String: String] = [:]
            let factRows = try database.prepare("SELECT key, value FROM export_fact")
            while try factRows.step() { facts[factRows.text(0) ?? ""] = factRows.text(1) ?? "" }

            var status = StoreStatus(store: path, schemaVersion: StoreSchema.currentVersion,
                               userId: identity.userId, deviceId: identity.deviceId,
                               metrics: metrics, pending: pending, byType: byType,
                               firstStart: firstStart, lastEnd: lastEnd, targets: targets,
                               imports: imports, uploads: uploads, backfill: backfill, exportFacts: facts)
            status.pendingTarget = "cloudcare" + (defaultPending.server.map { " \($0)" } ?? "")
            status.pendingLeftOut = try store.ledger.pendingByType(targetID: defaultPending.targetID, filter: .all)
                .filter { !CloudCareContract.takes($0.key) }.values.reduce(0, +)
            status.repeats = counts.repeats
            status.superseded = counts.superseded
            status.healthAutoExport = try pushes()
            status.forwarding = try store.forwarding()
            let watched = WatchedFileLedger(store)
            status.watchedFilesImported = try watched.importedCount()
            status.watchedFileProblems = try watched.problems()
            status.countsRepeats = countRepeats
            status.records = try recordCounts()
            return status
        }
    }
}

extension StoreAccess {
    /// The last `count` import runs, newest first.
    func recentImports(_ count: Int) throws -> [StoreStatus.ImportRun] {
        var imports: [StoreStatus.ImportRun] = []
        let importRows = try database.prepare("""
            SELECT id, input, input_size, export_date, export_version, started_at, ended_at, outcome, reason,
                   new_count, duplicate_count, invalid_count, filtered_count, repeat_count, written_twice_count
            FROM import_run ORDER BY id DESC LIMIT ?
            """)
        try importRows.bind(1, Int64(count))
        while try importRows.step() {
            imports.append(.init(
                id: importRows.int64(0), input: importRows.text(1) ?? "",
                inputSize: importRows.isNull(2) ? nil : importRows.int64(2), exportDate: importRows.text(3),
                exportVersion: importRows.isNull(4) ? nil : Int(importRows.int64(4)),
                startedAt: UTCDateFormatter.string(importRows.int64(5)),
                endedAt: importRows.isNull(6) ? nil : UTCDateFormatter.string(importRows.int64(6)),
                outcome: importRows.text(7) ?? "", reason: importRows.text(8),
                new: Int(importRows.int64(9)), duplicates: Int(importRows.int64(10)),
                repeats: Int(importRows.int64(13)), writtenTwice: Int(importRows.int64(14)),
                invalid: Int(importRows.int64(11)), filtered: Int(importRows.int64(12))))
        }
        return imports
    }

    /// The last `count` upload runs, newest first, with what the server did not take.
    func recentUploads(_ count: Int) throws -> [StoreStatus.UploadRun] {
        var uploads: [StoreStatus.UploadRun] = []
        let uploadRows = try database.prepare("""
            SELECT r.id, t.target, t.server, r.started_at, r.ended_at, r.outcome, r.sent, r.batches, r.retries, r.error
            FROM upload_run r JOIN upload_target t ON t.id = r.target_id ORDER BY r.id DESC LIMIT ?
            """)
        try uploadRows.bind(1, Int64(count))
        let notTakenRows = try database.prepare("SELECT type, count FROM upload_not_taken WHERE run_id = ?")
        while try uploadRows.step() {
            var notTaken: [String: Int] = [:]
            notTakenRows.reset()
            try notTakenRows.bind(1, uploadRows.int64(0))
            while try notTakenRows.step() { notTaken[notTakenRows.text(0) ?? ""] = Int(notTakenRows.int64(1)) }
            uploads.append(.init(
                id: uploadRows.int64(0), target: uploadRows.text(1) ?? "", server: uploadRows.text(2) ?? "",
                startedAt: UTCDateFormatter.string(uploadRows.int64(3)),
                endedAt: uploadRows.isNull(4) ? nil : UTCDateFormatter.string(uploadRows.int64(4)),
                outcome: uploadRows.text(5) ?? "", sent: Int(uploadRows.int64(6)), batches: Int(uploadRows.int64(7)),
                retries: Int(uploadRows.int64(8)), error: uploadRows.text(9), notTaken: notTaken))
        }
        return uploads
    }
}
