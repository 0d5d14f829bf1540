/// The archive's other files, decoded beside export.xml and kept in a spill, to be linked and
/// written once export.xml has been read: from a pipe, on the reader thread as the zip streams past
/// (`StreamingZipBytes`); from a seekable zip, on their own thread (`EntryDecodingThread`).
/// `@unchecked Sendable`: written by the decoding thread only, read by the caller after that thread
/// has ended (the chunk queue's close, or `EntryDecodingThread.finish`, orders the two).
final class DecodedEntries: @unchecked Sendable {
    private let runs: [KindRun]
    let spill: RecordSpill
    private(set) var damages: [EntryDamage] = []

    init(runs: [KindRun]) throws {
        self.runs = runs
        spill = try RecordSpill()
    }

    /// The decoder of the file at `path`, when a kind being read takes it.
    func decoder(for path: String) -> (index: Int, decoder: EntryDecoder)? {
        guard let index = runs.firstIndex(where: { $0.files?.matches(path) == true }) else { return nil }
        return (index, runs[index].decoder(for: path))
    }

    func finished(_ decoded: (index: Int, decoder: EntryDecoder)) throws {
        switch decoded.decoder.finish() {
        case .success(let entry): try spill.append(kind: decoded.index, entry)
        case .failure(let damage): damages.append(damage)
        }
    }
}
