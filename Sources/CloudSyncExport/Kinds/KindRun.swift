import CloudSyncModel

/// One kind's reading in one run, its record type erased so that the converter holds every kind in
/// one list: it reads elements and files through the kind's reader, applies the date filter, counts,
/// and writes to the sink.
final class KindRun {
    let name: String
    let elements: Set<ElementName>
    let files: ArchiveFiles?
    /// Its files' records are written as they are decoded, beside export.xml, and linked after it
    /// (`KindReader.writesBeforeLink`): the sink can, and no date filter needs the link's date.
    let writesEarly: Bool
    private(set) var count = RecordCount()
    private let readElement: (ElementTree) throws -> Void
    private let decodeFile: (String) -> EntryDecoder
    private let skipHeld: (String) throws -> Bool
    private let unspill: (inout SpillReader) throws -> Void
    private let finishRun: () throws -> Void
    private let damagedFile: (EntryDamage) -> Void
    private let readerNotes: () -> [String]
    /// "2 routes (45 points)".
    let describe: (RecordCount) -> String

    init<Kind: ArchiveKind>(_ kind: Kind.Type, filter: MetricFilter, sink: any RecordSink) {
        let reader = Kind.makeReader()
        name = Kind.name
        elements = reader.elements
        files = reader.files
        var counted = RecordCount()
        let write: (Kind.Record) throws -> Void = { record in
            if let date = Kind.date(of: record), !filter.acceptsDate(date) { return }
            counted.add(record, of: Kind.self)
            try sink.write(record, as: Kind.self)
        }
        readElement = { tree in try reader.read(element: tree, write) }
        let linking = filter.hasDateBounds ? nil : sink as? any LinkingRecordSink
        writesEarly = reader.writesBeforeLink && linking?.writesBeforeLink == true
        let files = reader.files
        decodeFile = { path in
            let fileReader = reader.fileReader()
            let archivePath = files?.archivePath(path) ?? path
            return EntryDecoder(path: path, consume: fileReader.consume) {
                let record = try fileReader.finish(path: archivePath)
                return DecodedEntry(write: { try reader.link(record, write) },
                                    spill: { writer in reader.spill(record, into: &writer) },
                                    writeUnlinked: {
                                        try write(record)
                                        reader.wroteUnlinked(record)
                                    })
            }
        }
        // A file whose record the sink holds is counted as read, unless a date filter is on: the
        // record's date is in the file, and a record the filter drops is not counted.
        let holder = filter.hasDateBounds ? nil : sink as? any FileRecordSink
        skipHeld = { path in
            guard let holder, let held = try holder.alreadyHolds(file: files?.archivePath(path) ?? path, as: Kind.self) else {
                return false
            }
            counted.add(held)
            return true
        }
        unspill = { spilled in try reader.link(reader.unspill(from: &spilled), write) }
        finishRun = {
            if let linking { try reader.linkWritten { record in try linking.relink(record, as: Kind.self) } }
            try reader.finish(write)
        }
        damagedFile = reader.damaged
        readerNotes = { reader.notes }
        describe = Kind.describe
        currentCount = { counted }
    }

    private var currentCount: () -> RecordCount = { RecordCount() }

    /// Records written so far.
    var written: RecordCount { currentCount() }
    var notes: [String] { readerNotes() }

    func read(_ tree: ElementTree) throws { try readElement(tree) }
    func decoder(for path: String) -> EntryDecoder { decodeFile(path) }
    /// True when the sink already holds the record of the file at `path`: counted, and not read.
    func skipsHeldFile(_ path: String) throws -> Bool { try skipHeld(path) }
    func replay(_ spilled: inout SpillReader) throws { try unspill(&spilled) }
    func damaged(_ damage: EntryDamage) { damagedFile(damage) }
    func finish() throws { try finishRun() }
}

/// A file read, before it is linked and written: spilled, and linked and written once export.xml has
/// been read; or written unlinked beside it, when its kind and the sink can (`KindRun.writesEarly`).
struct DecodedEntry {
    let write: () throws -> Void
    let spill: (inout SpillWriter) -> Void
    let writeUnlinked: () throws -> Void
}

/// Decodes one file of a kind: feeds its reader the bytes, and gives the record, or the problem that
/// made the file unreadable.
final class EntryDecoder {
    let path: String
    private let consumeChunk: (ByteText) throws -> Void
    private let finishEntry: () throws -> DecodedEntry
    private var problem: String?

    init(path: String, consume: @escaping (ByteText) throws -> Void, finish: @escaping () throws -> DecodedEntry) {
        self.path = path
        consumeChunk = consume
        finishEntry = finish
    }

    /// Feeds bytes; after a problem the rest of the entry is ignored (the archive goes on).
    func consume(_ chunk: ByteText) {
        guard problem == nil else { return }
        do { try consumeChunk(chunk) } catch { problem = "\(error)" }
    }

    /// The record, or the damage to report (the entry is then skipped).
    func finish() -> Result<DecodedEntry, EntryDamage> {
        if let problem { return .failure(EntryDamage(entry: path, problem: problem)) }
        do { return .success(try finishEntry()) } catch {
            return .failure(EntryDamage(entry: path, problem: "\(error)"))
        }
    }

    /// Marks the entry damaged by the archive itself (a CRC mismatch, a short entry).
    func fail(_ why: String) { if problem == nil { problem = why } }
}
