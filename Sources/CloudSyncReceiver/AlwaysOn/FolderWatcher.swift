import CloudSyncHealthAutoExport
import CloudSyncModel
import CloudSyncInputs
package import CloudSyncStore
import Crypto
import Foundation

/// `serve --watch DIR` (it lives with serve, not in the library of sources: no program but serve
/// watches a folder): imports every Health Auto Export file (`*.json`) and every export
/// (`*.zip`, `*.xml`) that appears in a folder (the app's file automation into a synced folder),
/// each once by content, only when it is complete, without ever changing, moving or deleting it.
///
/// Complete means: its size and modification time stayed the same for `settle` seconds (a copy
/// still running changes them), and it ends as its kind ends (a zip with its central directory's
/// end record, JSON with `}` or `]`); a file that stays unfinished for a minute is imported anyway,
/// and its damage said. What was done with each version of each file is in the store
/// (`WatchedFileLedger`): an imported content is not imported again under another name or after a
/// restart, and a damaged file is reported in `status` and not tried again until it changes. An
/// import killed half-way is done again at the next start: the store adds only what is missing.
package final class FolderWatcher: @unchecked Sendable {
    package struct Settings: Sendable {
        package var folder: String
        package var storePath: String
        package var store: StagingStore.Configuration
        /// Seconds a file's size and time must stay the same before it is read.
        package var settle: Double = 2
        /// Seconds between two looks at the folder.
        package var every: Double = 1

        package init(folder: String, storePath: String, store: StagingStore.Configuration) {
            self.folder = folder
            self.storePath = storePath
            self.store = store
        }
    }

    /// What `GET /health` says of the folder.
    package struct Health: Sendable, Encodable {
        package var folder: String
        package var imported = 0
        package var lastImport: String?
        /// File name → its problem, for the files not imported (until they change).
        package var problems: [String: String] = [:]
    }

    private let settings: Settings
    private var said: Health
    private let say: @Sendable (String) -> Void
    private let imported: @Sendable () -> Void
    private let stopped = NSCondition()
    private var stopping = false
    private var thread: Thread?
    /// Versions seen and not yet dealt with: since when each has stayed the same.
    private var settling: [String: (version: WatchedFileVersion, since: Date)] = [:]

    /// `say`: a line for the log; `imported`: after each file imported (forward it).
    package init(settings: Settings, say: @escaping @Sendable (String) -> Void, imported: @escaping @Sendable () -> Void) {
        self.settings = settings
        said = Health(folder: settings.folder)
        self.say = say
        self.imported = imported
    }

    package func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "cloudsync.serve.watch"
        self.thread = thread
        thread.start()
    }

    /// Stops after the import in progress, if any (it stops between two elements), and returns
    /// when the watcher has stopped (at most `wait` seconds).
    package func stop(wait: Double = 10) {
        stopped.lock()
        stopping = true
        stopped.broadcast()
        let deadline = Date().addingTimeInterval(wait)
        while !ended, stopped.wait(until: deadline) {}
        stopped.unlock()
    }
    private var ended = false

    package func health() -> Health {
        stopped.lock()
        defer { stopped.unlock() }
        return said
    }

    private func note(_ change: (inout Health) -> Void) {
        stopped.lock()
        change(&said)
        stopped.unlock()
    }

    private var isStopping: Bool {
        stopped.lock()
        defer { stopped.unlock() }
        return stopping
    }

    private func loop() {
        var store: StagingStore?
        while !isStopping {
            do {
                let opened = try store ?? StagingStore(path: settings.storePath, access: .write, configuration: settings.store)
                store = opened
                try look(opened)
            } catch {
                say("watch \(settings.folder): \(error)")
            }
            stopped.lock()
            if !stopping { _ = stopped.wait(until: Date().addingTimeInterval(settings.every)) }
            stopped.unlock()
        }
        stopped.lock()
        ended = true
        stopped.broadcast()
        stopped.unlock()
    }

    /// One look at the folder: every complete file not dealt with is dealt with.
    func look(_ store: StagingStore) throws {
        let ledger = WatchedFileLedger(store)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: settings.folder)) ?? []
        var present = Set<String>()
        for name in names.sorted() where Self.isCandidate(name) {
            guard !isStopping else { return }
            let path = (settings.folder as NSString).appendingPathComponent(name)
            guard let version = version(of: name, at: path) else { continue }
            present.insert(name)
            if try ledger.knows(version) {
                settling[name] = nil
                continue
            }
            guard isComplete(version, path: path) else { continue }
            settling[name] = nil
            try deal(with: version, path: path, store: store, ledger: ledger)
        }
        settling = settling.filter { present.contains($0.key) }
    }

    /// `*.json`, `*.zip`, `*.xml`, not hidden and not a partial download.
    static func isCandidate(_ name: String) -> Bool {
        let lower = name.lowercased()
        guard !lower.hasPrefix("."), !lower.hasPrefix("~") else { return false }
        return lower.hasSuffix(".json") || lower.hasSuffix(".zip") || lower.hasSuffix(".xml")
    }

    private func version(of name: String, at path: String) -> WatchedFileVersion? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = (attributes[.size] as? NSNumber)?.int64Value,
              let modified = attributes[.modificationDate] as? Date else { return nil }
        return WatchedFileVersion(folder: settings.folder, name: name, size: size,
                                  modifiedAt: Int64((modified.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    /// The same size and time for `settle` seconds, and the end its kind has (or a minute unchanged).
    private func isComplete(_ version: WatchedFileVersion, path: String) -> Bool {
        let now = Date()
        guard let known = settling[version.name], known.version == version else {
            settling[version.name] = (version, now)
            return false
        }
        let still = now.timeIntervalSince(known.since)
        guard still >= settings.settle else { return false }
        return still >= 60 || Self.endsAsItsKindEnds(path, name: version.name)
    }

    /// A zip's last 64 KiB hold its end of central directory record; JSON ends with `}` or `]`;
    /// XML with `>`.
    static func endsAsItsKindEnds(_ path: String, name: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return false }
        let tail = min(size, 65_536 + 22)
        try? handle.seek(toOffset: size - tail)
        guard let bytes = try? handle.read(upToCount: Int(tail)), !bytes.isEmpty else { return false }
        let lower = name.lowercased()
        if lower.hasSuffix(".zip") {
            let signature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
            return bytes.count >= 22 && (0...(bytes.count - 22)).reversed().contains { at in
                bytes[bytes.startIndex + at ..< bytes.startIndex + at + 4].elementsEqual(signature)
            }
        }
        guard let last = bytes.last(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return false }
        return lower.hasSuffix(".json") ? (last == UInt8(ascii: "}") || last == UInt8(ascii: "]")) : last == UInt8(ascii: ">")
    }

    private func deal(with version: WatchedFileVersion, path: String, store: StagingStore, ledger: WatchedFileLedger) throws {
        let sha256: String
        do {
            sha256 = try Self.sha256(of: path)
        } catch {
            return   // gone or unreadable this moment: looked at again next time
        }
        if let earlier = try ledger.imported(sha256: sha256) {
            try ledger.record(version, sha256: sha256, outcome: "same-content", problem: nil, runID: nil)
            say("watch: \(version.name): the same content as \(earlier), imported before; not imported again")
            return
        }
        do {
            let stored = version.name.lowercased().hasSuffix(".json")
                ? try store.importDocument(try HealthAutoExportDocument(path: path),
                                           details: PushDetails(via: "file", automationName: version.name)).stored
                : try store.importExport(path, control: RunControl(shouldStop: { [self] in isStopping })).stored
            try ledger.record(version, sha256: sha256, outcome: "imported", problem: nil, runID: stored.runID)
            say("watch: imported \(version.name): \(stored.new) new, \(stored.already) already there")
            note {
                $0.imported += 1
                $0.lastImport = UTCDateFormatter.string(Int64(Date().timeIntervalSince1970))
                $0.problems[version.name] = nil
            }
            imported()
        } catch let error as StoreError {
            throw error   // the store's own failure: the file is tried again
        } catch ConversionError.interrupted {
            return        // serve stops: the file is imported again at the next start
        } catch {
            try ledger.record(version, sha256: sha256, outcome: "failed", problem: "\(error)", runID: nil)
            note { $0.problems[version.name] = "\(error)" }
            say("watch: \(version.name): not imported: \(error); tried again when the file changes")
        }
    }

    static func sha256(of path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
