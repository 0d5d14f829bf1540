import CloudSyncModel

/// The archive's other entries as a zip streams past (from a pipe): each wanted entry is decoded
/// on the reader thread and its record kept in a spill, to be linked to its workout and written
/// once export.xml has been read. `@unchecked Sendable`: written by the reader thread only, read by
/// the caller after the reader thread has ended (the chunk queue's close orders the two).
final class StreamedEntries: @unchecked Sendable {
    let wanted: Set<EntryKind>
    let spill: RecordSpill
    private(set) var damages: [EntryDamage] = []

    init(wanted: Set<EntryKind>) throws {
        self.wanted = wanted
        spill = try RecordSpill()
    }

    func decoder(for path: String) -> EntryDecoder? { EntryDecoder(path: path, wanted: wanted) }

    func finished(_ decoder: EntryDecoder) throws {
        switch decoder.finish() {
        case .success(let record): try spill.append(record)
        case .failure(let damage): damages.append(damage)
        }
    }
}
