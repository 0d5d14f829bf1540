/// Sequential reads from a file descriptor into one reused buffer, with a look-ahead used to tell
/// zip from XML on inputs that cannot seek (pipes). On a seekable file it can also read one byte
/// range with `pread` (a zip entry), ending there as if the file ended.
package final class FileReader {
    package let name: String
    private let descriptor: Int32
    private let owns: Bool
    /// The next file offset and the end of the range, for range readers; nil for sequential reads.
    private var rangeOffset: Int64?
    private var rangeEnd: Int64 = 0
    private let capacity = 256 << 10
    private let storage: UnsafeMutablePointer<UInt8>
    private var start = 0
    private var end = 0
    private(set) var atEOF = false
    /// Bytes handed out so far.
    private(set) var position: Int64 = 0
    /// For pipes and terminals: asked while no bytes arrive (see `waitsInterruptibly`).
    private var shouldStop: (@Sendable () -> Bool)?

    package init(descriptor: Int32, name: String, owns: Bool) {
        self.descriptor = descriptor
        self.name = name
        self.owns = owns
        storage = .allocate(capacity: capacity)
    }

    /// Reads `range` of a seekable file that someone else keeps open.
    package init(descriptor: Int32, name: String, range: Range<Int64>) {
        self.descriptor = descriptor
        self.name = name
        owns = false
        rangeOffset = range.lowerBound
        rangeEnd = range.upperBound
        storage = .allocate(capacity: capacity)
    }

    /// Makes reads of a pipe or terminal wait in `poll` with a short timeout and ask `shouldStop`
    /// between waits. Why: a blocking `read` of a stalled pipe would keep a Ctrl-C or SIGTERM from
    /// stopping the run for as long as the writer stalls (the signal handler only sets a flag).
    package func waitsInterruptibly(_ shouldStop: @escaping @Sendable () -> Bool) {
        self.shouldStop = shouldStop
    }

    deinit {
        storage.deallocate()
        if owns { close(descriptor) }
    }

    /// The next `n` bytes without consuming them (fewer at end of input).
    package func peek(_ n: Int) throws -> [UInt8] {
        try fill(atLeast: n)
        return Array(UnsafeBufferPointer(start: storage + start, count: Swift.min(n, end - start)))
    }

    /// The next bytes available, at most `limit`; nil at end of input. Valid until the next call.
    package func next(limit: Int = .max) throws -> ByteText? {
        if start == end { try fill(atLeast: 1) }
        guard start < end else { return nil }
        let n = Swift.min(limit, end - start)
        defer { start += n; position += Int64(n) }
        return ByteText(start: storage + start, count: n)
    }

    /// Exactly `n` bytes (n ≤ 64 KiB), or an error naming what was being read.
    package func read(exactly n: Int, what: String) throws -> [UInt8] {
        try fill(atLeast: n)
        guard end - start >= n else {
            throw ConversionError.damagedZip(name, entry: nil, "the input ends inside \(what)")
        }
        defer { start += n; position += Int64(n) }
        return Array(UnsafeBufferPointer(start: storage + start, count: n))
    }

    /// Marks `n` bytes of the last `next()` as read.
    package func consume(_ n: Int) { start += n; position += Int64(n) }

    /// Gives back the last `n` bytes handed out by `next()`.
    package func unconsume(_ n: Int) { start -= n; position -= Int64(n) }

    /// Skips `n` bytes.
    package func skip(_ n: Int64, what: String) throws {
        var left = n
        while left > 0 {
            guard let chunk = try next(limit: Int(Swift.min(left, Int64(capacity)))) else {
                throw ConversionError.damagedZip(name, entry: nil, "the input ends inside \(what)")
            }
            left -= Int64(chunk.count)
        }
    }

    private func fill(atLeast n: Int) throws {
        if end - start >= n || atEOF { return }
        if start > 0 {
            (storage).update(from: storage + start, count: end - start)
            end -= start
            start = 0
        }
        while end - start < n, end < capacity {
            let got: Int
            if let offset = rangeOffset {
                let wanted = Int(Swift.min(Int64(capacity - end), rangeEnd - offset))
                got = wanted == 0 ? 0 : pread(descriptor, storage + end, wanted, off_t(offset))
                if got > 0 { rangeOffset = offset + Int64(got) }
            } else {
                try waitUntilReadable()
                got = Glibc.read(descriptor, storage + end, capacity - end)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw ConversionError.unreadable(name, String(cString: strerror(errno)))
            }
            if got == 0 { atEOF = true; return }
            end += got
        }
    }
}

#if canImport(Glibc)
package import CloudSyncModel
import Glibc
#endif

extension FileReader {
    /// Returns when the descriptor has bytes (or end of input); throws `interrupted` when
    /// `shouldStop` says so meanwhile. Without `shouldStop`, returns at once (a blocking read).
    private func waitUntilReadable() throws {
        guard let shouldStop else { return }
        while true {
            if shouldStop() { throw ConversionError.interrupted }
            var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { return }   // let read() report the error
        }
    }

    /// What is buffered (reading more if empty), without consuming it; nil at end of input.
    package func peekAvailable() throws -> ByteText? {
        guard let chunk = try next() else { return nil }
        unconsume(chunk.count)
        return chunk
    }
}
