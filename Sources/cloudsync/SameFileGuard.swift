import Foundation
// `stat` comes from a Clang module of Foundation's on Linux; MemberImportVisibility wants it named.
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// A file as the kernel knows it (device and inode): a path, a symbolic link and a hard link to one
/// file compare equal, where their names would not.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    /// The file at `path`, following symbolic links; nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The file open on `descriptor`, when it is a regular file (a pipe or a terminal is no file a
    /// run could overwrite).
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// Refuses, before anything is opened for writing, an output that is the same file as an input or
/// as the store: `convert export.zip -o export.zip` used to truncate the export before reading it,
/// `report --store S -o S` replaced the store with the page. Exit status 64, every file untouched.
struct SameFileGuard {
    private var protected: [(identity: FileIdentity, what: String)] = []
    private let command: String

    init(command: String) { self.command = command }

    /// An input file (`-`: standard input, when it is redirected from a file).
    mutating func input(_ path: String) {
        if path == "-" {
            if let identity = FileIdentity(descriptor: STDIN_FILENO) { protected.append((identity, "the input (standard input)")) }
        } else if let identity = FileIdentity(path: path) {
            protected.append((identity, "the input \(path)"))
        }
    }

    /// The store and the files SQLite and the lock keep beside it. Those come and go (SQLite removes
    /// its log when the last connection closes), so they are also known by name in their folder.
    mutating func store(_ path: String) {
        let folder = FileIdentity(path: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        for (suffix, what) in Self.storeFiles {
            if let identity = FileIdentity(path: path + suffix) { protected.append((identity, "\(what) \(path + suffix)")) }
            if let folder { storeNames.append((folder, name + suffix, "\(what) \(path + suffix)")) }
        }
    }

    private static let storeFiles = [("", "the store"), ("-wal", "the store's write-ahead log"), ("-shm", "the store's shared memory"),
                                     ("-journal", "the store's journal"), (".lock", "the store's lock file")]
    private var storeNames: [(folder: FileIdentity, name: String, what: String)] = []

    /// An output file named by `option` (`--output`, `--png`).
    func output(_ path: String, option: String) throws {
        let url = URL(fileURLWithPath: path)
        let byName = FileIdentity(path: url.deletingLastPathComponent().path).flatMap { folder in
            storeNames.first { $0.folder == folder && $0.name == url.lastPathComponent }?.what
        }
        let byFile = FileIdentity(path: path).flatMap { identity in protected.first { $0.identity == identity }?.what }
        guard let clash = byFile ?? byName else { return }
        throw usageError("\(option) \(path) is \(clash): refusing to write over it; nothing was changed. Choose another output file",
                         command: command)
    }

    /// An output folder whose files named as `isOurs` says are written or replaced.
    func folder(_ path: String, option: String, isOurs: (String) -> Bool) throws {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where isOurs(entry) {
            guard let identity = FileIdentity(path: path + "/" + entry), let clash = protected.first(where: { $0.identity == identity }) else { continue }
            throw usageError("\(option) \(path) holds \(clash.what) (\(entry)), which this run would replace: refusing; nothing was changed",
                             command: command)
        }
    }

    /// Standard output, when it is redirected into one of the files (`cloudsync export > staging.sqlite`).
    func standardOutput() throws {
        guard let identity = FileIdentity(descriptor: STDOUT_FILENO), let clash = protected.first(where: { $0.identity == identity }) else { return }
        throw usageError("standard output is redirected into \(clash.what): refusing to write data into it; nothing was written "
                         + "(a `>` redirect empties the file before cloudsync starts: check it)", command: command)
    }
}
