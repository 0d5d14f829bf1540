import CloudSyncModel
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of one Health Auto Export document: a request's body, or a file mapped into memory
/// (read by the kernel as the reader walks it, never copied whole).
public final class HealthAutoExportDocument: @unchecked Sendable {
    public let name: String
    private let storage: Storage

    private enum Storage {
        case bytes([UInt8])
        case mapped(UnsafeMutableRawPointer, Int)
        /// Someone else's bytes (a request's body), valid while the document is used.
        case borrowed(UnsafeRawBufferPointer)
    }

    public init(bytes: [UInt8], name: String) {
        self.name = name
        storage = .bytes(bytes)
    }

    /// Reads `bytes` in place, without a copy: a request's body of 50 MB stays one copy in memory.
    /// The caller keeps the bytes alive while the document is read (`ByteBuffer.withUnsafeReadableBytes`).
    public init(borrowing bytes: UnsafeRawBufferPointer, name: String) {
        self.name = name
        storage = .borrowed(bytes)
    }

    /// Maps the file at `path`; `-` reads standard input whole (named "standard input").
    public init(path: String) throws {
        if path == "-" {
            name = "standard input"
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = read(STDIN_FILENO, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw Self.unreadable(name) }
                if count == 0 { break }
                bytes.append(contentsOf: chunk[0..<count])
            }
            storage = .bytes(bytes)
            return
        }
        name = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Self.unreadable(path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.unreadable(path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw HealthAutoExportError(kind: .unreadable, input: path, path: "$", problem: "not a regular file")
        }
        let size = Int(info.st_size)
        if size == 0 {
            storage = .bytes([])
            return
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else { throw Self.unreadable(path) }
        storage = .mapped(address, size)
    }

    deinit {
        if case .mapped(let address, let size) = storage { munmap(address, size) }
    }

    public var count: Int {
        switch storage {
        case .bytes(let bytes): return bytes.count
        case .mapped(_, let size): return size
        case .borrowed(let bytes): return bytes.count
        }
    }

    func withBytes<R>(_ body: (ByteText) throws -> R) rethrows -> R {
        switch storage {
        case .bytes(let bytes): return try bytes.withUnsafeBufferPointer { try body($0) }
        case .mapped(let address, let size):
            return try body(ByteText(start: address.assumingMemoryBound(to: UInt8.self), count: size))
        case .borrowed(let bytes):
            return try body(ByteText(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
        }
    }

    /// Whether the bytes start like a JSON document holding Health Auto Export's `"data"` (for
    /// `inspect` and `import` to tell it from an export): the first non-blank byte is `{` or `[` and
    /// `"data"` appears in the first 4 KiB.
    public static func looksLikeHealthAutoExport(prefix: [UInt8]) -> Bool {
        guard let first = prefix.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return false }
        let needle = Array("\"data\"".utf8)
        guard prefix.count >= needle.count else { return false }
        for i in 0...(prefix.count - needle.count) where prefix[i] == needle[0] && Array(prefix[i..<(i + needle.count)]) == needle {
            return true
        }
        return false
    }

    private static func unreadable(_ path: String) -> HealthAutoExportError {
        HealthAutoExportError(kind: .unreadable, input: path, path: "$", problem: String(cString: strerror(errno)))
    }
}
