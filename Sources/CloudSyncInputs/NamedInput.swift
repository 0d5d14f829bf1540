import CloudSyncArchive
import CloudSyncHealthAutoExport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An input a person names, told apart by the reader that reads it: an Apple Health export (export.zip,
/// export.xml, `-` for standard input) or Health Auto Export's JSON (a `.json` file whose start looks
/// like the app's document, or a folder of them: the app's file automation writes one per period).
/// `convert`, `inspect` and `import` take either.
public enum NamedInput: Sendable, Equatable {
    case export(String)
    /// The documents, in name order (the app names them by date: HealthAutoExport-2024-01-01-….json).
    case healthAutoExport([String])

    /// What `path` names.
    public init(_ path: String) {
        guard path != "-" else {
            // Standard input redirected from a file is told by its first bytes, as a path is (from a
            // pipe, what is read cannot be put back: it takes a zip or XML, and says so of JSON).
            self = Self.standardInputLooksLikeDocument() ? .healthAutoExport([path]) : .export(path)
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            self = .export(path)
            return
        }
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            self = .healthAutoExport(names.filter { $0.lowercased().hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
                .map { (path as NSString).appendingPathComponent($0) })
        } else {
            self = Self.looksLikeDocument(path) ? .healthAutoExport([path]) : .export(path)
        }
    }

    /// Whether standard input is a regular file whose bytes from its offset on look like the app's
    /// document (read with pread: nothing is consumed).
    static func standardInputLooksLikeDocument() -> Bool {
        guard FileKind(descriptor: STDIN_FILENO) == .regular else { return false }
        let offset = lseek(STDIN_FILENO, 0, SEEK_CUR)
        guard offset >= 0 else { return false }
        var prefix = [UInt8](repeating: 0, count: 4096)
        let count = pread(STDIN_FILENO, &prefix, prefix.count, offset)
        guard count > 0 else { return false }
        return HealthAutoExportDocument.looksLikeHealthAutoExport(prefix: Array(prefix[0..<count]))
    }

    static func looksLikeDocument(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let prefix = (try? handle.read(upToCount: 4096)) ?? Data()
        return HealthAutoExportDocument.looksLikeHealthAutoExport(prefix: [UInt8](prefix))
    }
}
