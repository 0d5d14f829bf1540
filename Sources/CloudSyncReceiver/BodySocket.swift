import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// A request's body handed to a synchronous reader (the export's import) as a stream of bytes: one
/// end of a Unix socket pair is the import's input, read as it comes like a pipe; the other end is
/// written here, a few hundred KiB at a time, by blocking writes on a queue of its own (never on an
/// event loop). Backpressure is the socket's: a write waits while the import is behind, and the
/// body is read no faster. A socket, not a pipe: a write after the import stopped reading (a
/// damaged export) fails with EPIPE instead of raising SIGPIPE (`MSG_NOSIGNAL`).
final class BodySocket: @unchecked Sendable {
    /// The import's end: the caller reads it and closes it (`closeReadEnd`).
    let readEnd: Int32
    private let writeEnd: Int32
    private let queue = DispatchQueue(label: "cloudsync.serve.body")
    private var pending = ByteBuffer()
    /// Bytes gathered before a write: 4,000 continuations for 1 GB, not the 60,000 of 16 KiB chunks.
    static let writeSize = 256 << 10
    /// Not the write queue: closing the read end must wake a write blocked on a full socket (EPIPE).
    private let lock = NSLock()
    private var readClosed = false
    private var writeClosed = false

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Adds a piece of the body; throws `POSIXError(.EPIPE)` once the reader stopped reading.
    func write(_ chunk: ByteBuffer) async throws {
        var chunk = chunk
        pending.writeBuffer(&chunk)
        if pending.readableBytes >= Self.writeSize { try await flush() }
    }

    /// Writes what is gathered.
    func flush() async throws {
        guard pending.readableBytes > 0 else { return }
        let bytes = pending
        pending = ByteBuffer()
        let fd = writeEnd
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                continuation.resume(with: Result { try Self.writeAll(bytes, to: fd) })
            }
        }
    }

    private static func writeAll(_ bytes: ByteBuffer, to fd: Int32) throws {
        try bytes.withUnsafeReadableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                offset += written
            }
        }
    }

    /// The body is over (or given up), once no write is in flight: the reader sees the end of its input.
    func closeWriteEnd() {
        lock.withLock {
            guard !writeClosed else { return }
            writeClosed = true
            close(writeEnd)
        }
    }

    /// The reader is done: a write blocked now, or made after, fails with EPIPE.
    func closeReadEnd() {
        lock.withLock {
            guard !readClosed else { return }
            readClosed = true
            close(readEnd)
        }
    }

    deinit {
        if !writeClosed { close(writeEnd) }
        if !readClosed { close(readEnd) }
    }
}
