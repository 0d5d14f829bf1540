import CloudSyncArchive
import CloudSyncModel
import Foundation

/// The files of a seekable zip (GPX routes, ECG CSVs, FHIR resources), decoded on their own thread
/// while export.xml is parsed, into the same spill a zip from a pipe uses (`DecodedEntries`); they
/// are linked and written once export.xml has been read, but for the routes a store writes before
/// their link (`EarlyEntries`).
///
/// Why a thread: decoded after export.xml, the 1 GB generated export's 148 MB of GPX and its ECGs
/// took 1.4 s of a 10.2 s import on the parser thread alone while the other two threads waited
/// (perf, 999 Hz by thread); beside export.xml they take the third of a core the three threads
/// leave free.
///
/// `@unchecked Sendable`: `entries` and the spill are written by the decoding thread only and read
/// by the caller after `finish`, which waits for the thread to end (`done`); `stopping` is read and
/// written under its lock.
final class EntryDecodingThread: @unchecked Sendable {
    private let zip: SeekableZip
    private let wanted: [ZipEntry]
    let entries: DecodedEntries
    private let shouldStop: @Sendable () -> Bool
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    @exclusivity(unchecked) private var stopping = false
    @exclusivity(unchecked) private var failure: (any Error)?

    /// - Parameter wanted: the entries to decode, in the directory's order (each a file of a kind
    ///   being read, not already held by the sink).
    init(zip: SeekableZip, wanted: [ZipEntry], entries: DecodedEntries, shouldStop: @escaping @Sendable () -> Bool) {
        self.zip = zip
        self.wanted = wanted
        self.entries = entries
        self.shouldStop = shouldStop
    }

    func start() {
        let thread = Thread { [self] in decode() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits for the last file; throws `interrupted` when the run was told to stop meanwhile, or
    /// the spill's error (a full temporary folder).
    func finish() throws {
        done.wait()
        if let failure { throw failure }
    }

    /// Stops after the file being decoded and waits (export.xml failed: its error is the one told).
    func cancel() {
        lock.withLock { stopping = true }
        done.wait()
    }

    private var cancelled: Bool { lock.withLock { stopping } }

    private func decode() {
        defer { done.signal() }
        let inflater = Inflater()
        do {
            for entry in wanted {
                if cancelled { return }
                if shouldStop() { throw ConversionError.interrupted }
                guard let decoded = entries.decoder(for: entry.path) else { continue }
                do {
                    try zip.directory.readChecked(entry, with: inflater) { decoded.decoder.consume($0) }
                } catch let error as ConversionError {
                    decoded.decoder.fail(ArchiveConverter.reason(error))
                }
                try entries.finished(decoded)
            }
        } catch {
            failure = error
        }
    }
}
