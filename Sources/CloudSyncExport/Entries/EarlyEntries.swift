import Foundation

/// The archive's files read beside export.xml whose records are written before their link
/// (`KindRun.writesEarly`: routes), handed from the decoding thread to the mapping thread, which
/// writes them between two elements (`ExportConverter.betweenElements`). At most `most` wait: the
/// decoding thread waits for room, so memory stays flat however many files there are.
///
/// Why: written after export.xml, the 100 MB export's 67,421 route points were 415 M of the main
/// thread's instructions at the import's end, with the other core idle.
///
/// `@unchecked Sendable`: `entries` and `open` are read and written under `condition`'s lock.
final class EarlyEntries: @unchecked Sendable {
    private let condition = NSCondition()
    private var entries: [DecodedEntry] = []
    private var open = true
    static let most = 4

    /// Decoding thread: queues the entry, after waiting for room; false once closed (the caller
    /// then spills it, to be linked and written at the end).
    func offer(_ entry: DecodedEntry) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while open && entries.count >= Self.most { condition.wait() }
        guard open else { return false }
        entries.append(entry)
        return true
    }

    /// Mapping thread: the entries queued, without waiting.
    func take() -> [DecodedEntry] {
        condition.lock()
        defer { condition.unlock() }
        guard !entries.isEmpty else { return [] }
        let taken = entries
        entries.removeAll()
        condition.broadcast()
        return taken
    }

    /// export.xml is read, or the run failed: nothing more is queued (a waiting offer returns
    /// false); returns what was queued and not taken.
    func close() -> [DecodedEntry] {
        condition.lock()
        defer { condition.unlock() }
        open = false
        let rest = entries
        entries.removeAll()
        condition.broadcast()
        return rest
    }
}
