import CloudSyncModel
import Foundation

/// A record read from an entry other than export.xml.
enum EntryRecord {
    case route(Route)
    case ecg(ECGRecording)
    /// A FHIR resource file, before it is joined to its `<ClinicalRecord>`.
    case clinical(ClinicalResource)
}

/// Decodes one entry of a kind that has a reader: chooses the reader by the entry's path, feeds it
/// the bytes, and gives the record, or the problem that made the entry unreadable.
///
/// The registry of kinds: to add one, write its `EntryReader` and add a case here.
final class EntryDecoder {
    private let path: String
    private let consumeChunk: (ByteText) throws -> Void
    private let finishEntry: () throws -> EntryRecord
    private var problem: String?

    /// nil when no reader takes this entry (or its kind is not wanted).
    init?(path: String, wanted: Set<EntryKind>) {
        let kind = EntryKind.of(path)
        guard wanted.contains(kind) else { return nil }
        self.path = path
        switch kind {
        case .route:
            let reader = GPXReader()
            consumeChunk = reader.consume
            finishEntry = { .route(try reader.finish(path: path)) }
        case .ecg:
            let reader = ECGReader()
            consumeChunk = reader.consume
            finishEntry = { .ecg(try reader.finish(path: path)) }
        case .clinicalRecord:
            let reader = ClinicalResourceReader()
            consumeChunk = reader.consume
            finishEntry = { .clinical(try reader.finish(path: path)) }
        default:
            return nil
        }
    }

    /// Feeds bytes; after a problem the rest of the entry is ignored (the archive goes on).
    func consume(_ chunk: ByteText) {
        guard problem == nil else { return }
        do { try consumeChunk(chunk) } catch { problem = "\(error)" }
    }

    /// The record, or the damage to report (the entry is then skipped).
    func finish() -> Result<EntryRecord, EntryDamage> {
        if let problem { return .failure(EntryDamage(entry: path, problem: problem)) }
        do { return .success(try finishEntry()) } catch {
            return .failure(EntryDamage(entry: path, problem: "\(error)"))
        }
    }

    /// Marks the entry damaged by the archive itself (a CRC mismatch, a short entry).
    func fail(_ why: String) { if problem == nil { problem = why } }
}
