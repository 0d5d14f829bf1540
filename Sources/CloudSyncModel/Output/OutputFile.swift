/// Where output bytes go: standard output or a file, written with `write(2)` in large blocks.
///
/// Callers append whole records to `buffer` and call `flushIfFull()` between records, so the
/// destination only ever receives complete lines: if the run stops on damaged input, stdout ends
/// with the last complete metric, never half of one.
public final class OutputFile {
    public let name: String
    @exclusivity(unchecked) public var buffer = ByteBuffer(capacity: flushThreshold + (64 << 10))
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    @exclusivity(unchecked) public private(set) var bytesWritten = 0

    package static let flushThreshold = 1 << 20

    public static func standardOutput() -> OutputFile {
        OutputFile(name: "standard output", descriptor: STDOUT_FILENO, owns: false)
    }

    /// Creates (or truncates) `path`.
    public static func create(_ path: String) throws -> OutputFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ConversionError.output(path, String(cString: strerror(errno))) }
        return OutputFile(name: path, descriptor: fd, owns: true)
    }

    package init(name: String, descriptor: Int32, owns: Bool) {
        self.name = name
        self.descriptor = descriptor
        ownsDescriptor = owns
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public func flushIfFull() throws {
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    public func flush() throws {
        try buffer.withBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ConversionError.output(name, String(cString: strerror(errno)))
                }
                offset += n
            }
            bytesWritten += bytes.count
        }
        buffer.removeAll()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
