/// The archive's other files, decoded beside export.xml and kept in a spill, to be linked and
/// written once export.xml has been read: from a pipe, on the reader thread as the zip streams past
/// (`StreamingZipBytes`); from a seekable zip, on their own thread (`EntryDecodingThread`).
/// `@unchecked Sendable`: written by the decoding thread only, read by the caller after that thread
/// has ended (the chunk queue's close, or `EntryDecodingThread.finish`, orders the two).
final class DecodedEntries: @unchecked Sendable {
    private let runs: [KindRun]
    let spill: RecordSpill
    /// The records written beside export.xml, on their way to the mapping thread; nil when no kind
    /// read writes so, or the files come from a pipe.
    let early: EarlyEntries?
    private(set) var damages: [EntryDamage] = []

    init(runs: [KindRun], early: Bool = false) throws {
        self.runs = runs
        spill = try RecordSpill()
        self.early = early && runs.contains { $0.writesEarly } ? EarlyEntries() : nil
    }

    /// The decoder of the file at `path`, when a kind being read takes it.
    func decoder(for path: String) -> (index: Int, decoder: EntryDecoder)? {
        guard let index = runs.firstIndex(where: { $0.files?.matches(path) == true }) else { return nil }
        return (index, runs[index].decoder(for: path))
    }

    func finished(_ decoded: (index: Int, decoder: EntryDecoder)) throws {
        switch decoded.decoder.finish() {
        case .success(let entry):
            if runs[decoded.index].writesEarly, let early, early.offer(entry) { return }
            try spill.append(kind: decoded.index, entry)
        case .failure(let damage): damages.append(damage)
        }
    }
}
