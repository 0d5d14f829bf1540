
/// The archive's other files as a zip streams past (from a pipe): each file of a kind being read is
/// decoded on the reader thread and its record kept in a spill, to be linked and written once
/// export.xml has been read. `@unchecked Sendable`: written by the reader thread only, read by the
/// caller after the reader thread has ended (the chunk queue's close orders the two).
final class StreamedEntries: @unchecked Sendable {
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
