import CloudSyncModel
import Foundation

/// One upload's hold on its target: at most one upload per target and server at a time, whichever
/// process runs it (`cloudsync upload`, the forwarding of `serve --store`), so that two never send
/// the same batch. Released by `end()` or when the process dies.
public final class UploadTurn {
    private let locks: StoreLocks
    private let targetID: Int64
    private var held = true

    fileprivate init(locks: StoreLocks, targetID: Int64) {
        self.locks = locks
        self.targetID = targetID
    }

    public func end() {
        guard held else { return }
        held = false
        locks.releaseUpload(targetID: targetID)
    }

    deinit { end() }
}

@available(*, unavailable)
extension UploadTurn: Sendable {}

extension StagingStore {
    /// Takes the target's upload turn, or says who has it (`StoreError.uploading`: the running
    /// run's start, when it began one).
    public func takeUploadTurn(targetID: Int64) throws -> UploadTurn {
        guard let locks else { throw StoreError.readOnly(path) }
        guard locks.takeUpload(targetID: targetID) else {
            let row = try storeErrors {
                try database.prepare("""
                    SELECT t.target || ' ' || t.server, (SELECT max(r.started_at) FROM upload_run r WHERE r.target_id = t.id AND r.outcome = 'running')
                    FROM upload_target t WHERE t.id = ?
                    """)
            }
            try storeErrors { try row.bind([.int(targetID)]) }
            let found = try storeErrors { try row.step() }
            let since = found && !row.isNull(1) ? UTCDateFormatter.string(row.int64(1)) : nil
            throw StoreError.uploading(path, target: found ? row.text(0) ?? "its target" : "its target", since: since)
        }
        return UploadTurn(locks: locks, targetID: targetID)
    }
}
