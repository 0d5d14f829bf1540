import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Logging

/// What a receiver before this version kept of the samples it received, in tables of its own
/// (`LegacyTable`: CloudCare metrics, Flō samples, steps), moved into each patient's store at start,
/// so that nothing acknowledged then is lost now that every route writes the store: each user of the
/// tokens file (and `default`), a chunk at a time, each chunk one import (the store's identity makes
/// a chunk moved twice, after a stop half-way, count once). A user's old rows are removed once all
/// of them are in their store; rows that cannot be read (a date that does not parse) stay, said in
/// the log, and are tried again at the next start.
enum LegacyReceivedRows {
    static let chunk = 10_000

    static func move(of owners: [String], from storage: any ReceiverStorage, into stores: any PatientStores, logger: Logger) async {
        for owner in owners {
            do {
                var (moved, unread, rows) = (0, 0, 0)
                for table in LegacyTable.allCases {
                    var offset = 0
                    while true {
                        let read = try await storage.legacySamples(owner: owner, in: table, offset: offset, limit: chunk)
                        if read.rows == 0 { break }
                        offset += read.rows
                        rows += read.rows
                        unread += read.rows - read.samples.count
                        let samples = read.samples
                        let origin = ImportOrigin.receivedSamples(input: "what an older cloudsync serve kept in \(table.name)",
                                                                  kindName: "receiver-upgrade")
                        moved += try await stores.write(owner: owner) { try $0.importMetrics(samples, origin: origin) }.get().new
                    }
                }
                if unread > 0 {
                    logger.warning("\(unread) rows an older cloudsync serve kept of \(owner) cannot be read as samples; they stay where they are")
                } else if rows > 0 {
                    try await storage.dropLegacyRows(owner: owner)
                }
                if moved > 0 { logger.notice("moved \(counted(moved, "sample")) that an older cloudsync serve kept of \(owner) into their store") }
            } catch {
                // Stopped with the server (a stop while it looks): it goes on at the next start.
                if Task.isCancelled { return }
                logger.error("the samples an older cloudsync serve kept of \(owner) could not be moved into their store yet: \(error)")
            }
        }
    }
}
