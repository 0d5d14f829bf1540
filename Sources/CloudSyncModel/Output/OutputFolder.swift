import Foundation

/// A folder that receives a run's files (CloudCare batches `batch-000001.json`, …; one CSV per type).
///
/// Whatever later reads `DIR/*.json` must see one run's files only, so a folder that holds anything
/// is refused unless the caller asks to replace the earlier run's files (`isOurs` says which).
/// The files are written into a hidden staging folder inside it and moved in by `finish()`, which
/// is also when the earlier run's files are removed: a run that fails or is interrupted leaves the
/// folder as it was.
package final class OutputFolder {
    package let path: String
    private let isOurs: (String) -> Bool
    /// The earlier run's files, removed at `finish()`.
    private let earlier: [String]
    private var staging: String?
    private var files: [(name: String, file: OutputFile)] = []

    private static let stagingPrefix = ".cloudsync-partial-"

    package static func isBatchFile(_ name: String) -> Bool {
        name.hasPrefix("batch-") && name.hasSuffix(".json")
    }

    /// Creates `path` if missing; refuses a folder that holds anything unless `replacing`.
    package init(_ path: String, replacing: Bool, isOurs: @escaping (String) -> Bool = isBatchFile) throws {
        self.path = path
        self.isOurs = isOurs
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            do {
                try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw ConversionError.outputFolder(path, "cannot create the folder (\(Self.reason(error)))")
            }
            earlier = []
            return
        }
        guard isDirectory.boolValue else {
            throw ConversionError.outputFolder(path, "it is a file; --output takes a folder here")
        }
        var entries: [String]
        do { entries = try manager.contentsOfDirectory(atPath: path) } catch {
            throw ConversionError.outputFolder(path, "cannot list the folder (\(Self.reason(error)))")
        }
        // The staging folder of a run that was killed is ours: it goes.
        for stale in entries where stale.hasPrefix(Self.stagingPrefix) { try? manager.removeItem(atPath: path + "/" + stale) }
        entries.removeAll { $0.hasPrefix(Self.stagingPrefix) }
        let ours = entries.filter(isOurs)
        if !replacing && !entries.isEmpty {
            let what = ours.isEmpty ? "\(entries.count) other \(entries.count == 1 ? "file" : "files")"
                : "\(counted(ours.count, "file")) of an earlier run"
            throw ConversionError.outputFolder(path, "the folder is not empty (it holds \(what)); "
                + "choose an empty or new folder, or add --force to replace the files of the earlier run")
        }
        earlier = ours
    }

    /// A new file of this run, named `name` in the folder once the run finishes.
    package func create(_ name: String) throws -> OutputFile {
        if staging == nil {
            let folder = path + "/" + Self.stagingPrefix + "\(getpid())"
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw ConversionError.outputFolder(path, "cannot write in the folder (\(Self.reason(error)))")
            }
            staging = folder
        }
        let file = try OutputFile.create(staging! + "/" + name, durable: false)
        files.append((name, file))
        return file
    }

    /// Completes every file, removes the earlier run's files, and moves this run's in.
    package func finish() throws {
        for (_, file) in files { try file.finish() }
        let manager = FileManager.default
        for name in earlier {
            do { try manager.removeItem(atPath: path + "/" + name) } catch {
                throw ConversionError.outputFolder(path, "cannot remove \(name) of the earlier run (\(Self.reason(error)))")
            }
        }
        if let staging {
            for (name, _) in files where rename(staging + "/" + name, path + "/" + name) != 0 {
                throw ConversionError.outputFolder(path, "cannot move \(name) into the folder (\(String(cString: strerror(errno))))")
            }
            try? manager.removeItem(atPath: staging)
        }
        files.removeAll()
        staging = nil
    }

    /// The run stopped early: its files go, the folder keeps what it had.
    package func abandon() {
        files.removeAll()   // each unfinished file removes its own temporary file
        if let staging { try? FileManager.default.removeItem(atPath: staging) }
        staging = nil
    }

    deinit { abandon() }

    /// Foundation's error as a short reason, without its domain and code.
    private static func reason(_ error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        switch (error as NSError).code {
        case NSFileWriteNoPermissionError, NSFileReadNoPermissionError: return "permission denied"
        case NSFileWriteOutOfSpaceError: return "the disk is full"
        case NSFileWriteVolumeReadOnlyError: return "read-only file system"
        default: return "cannot write there"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
