import Foundation

/// Runs an `ExportByteSource` on its own thread and hands its bytes, DTD removed and forbidden
/// control characters replaced, to the caller's thread in chunks.
///
/// Why a thread: on a 2-core machine inflating the zip (~0.4 s/GB of XML) and filtering run beside
/// libxml2's parse and the mapping, instead of before them. The pool holds `chunkCount` chunks of
/// `chunkSize` bytes (2 MiB in all), so memory stays flat whatever the size of the export.
/// `@unchecked Sendable`: the state shared by the two threads (`free`, `filled`, the flags and
/// `statistics`) is only touched under `condition`; the source is used by the reader thread alone.
final class ChunkPipeline: @unchecked Sendable {
    struct Statistics {
        var doctype: DoctypeReport?
        var sawDoctype = false
        var controlCharactersReplaced = 0
        var bytesRead: Int64 = 0
    }

    private final class Chunk {
        let storage: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var count = 0
        init(capacity: Int) {
            self.capacity = capacity
            storage = .allocate(capacity: capacity)
        }
        deinit { storage.deallocate() }
    }

    private struct Cancelled: Error {}

    private let source: any ExportByteSource
    private let chunkSize: Int
    private let condition = NSCondition()
    private var free: [Chunk]
    private var filled: [Chunk] = []
    private var producerDone = false
    private var producerError: (any Error)?
    private var cancelled = false
    private(set) var statistics = Statistics()

    init(source: any ExportByteSource, chunkSize: Int = 256 << 10, chunkCount: Int = 8) {
        self.source = source
        self.chunkSize = chunkSize
        free = (0..<chunkCount).map { _ in Chunk(capacity: chunkSize) }
    }

    /// Calls `consume` on this thread with each chunk, in order. Errors of the source arrive after
    /// every byte that came before them.
    func run(_ consume: (ByteText) throws -> Void) throws {
        let thread = Thread { [self] in produce() }
        thread.stackSize = 1 << 20
        thread.start()
        do {
            while let chunk = nextFilled() {
                try consume(ByteText(start: chunk.storage, count: chunk.count))
                recycle(chunk)
            }
        } catch {
            cancel()
            waitForProducer()
            throw error
        }
        waitForProducer()
        if let producerError { throw producerError }
    }

    // MARK: Producer side (reader thread)

    private func produce() {
        var stripper = DoctypeStripper()
        var current: Chunk?
        var replaced = 0
        var bytesRead: Int64 = 0
        func append(_ bytes: ByteText) throws {
            var offset = 0
            while offset < bytes.count {
                if current == nil { current = try takeFree() }
                let chunk = current!
                let n = Swift.min(chunk.capacity - chunk.count, bytes.count - offset)
                (chunk.storage + chunk.count).update(from: bytes.baseAddress! + offset, count: n)
                chunk.count += n
                offset += n
                if chunk.count == chunk.capacity { try ship(chunk) }
            }
        }
        func ship(_ chunk: Chunk) throws {
            replaced += ControlCharacterFilter.replaceForbidden(
                in: UnsafeMutableBufferPointer(start: chunk.storage, count: chunk.count))
            current = nil
            condition.lock()
            filled.append(chunk)
            condition.signal()
            condition.unlock()
        }
        var failure: (any Error)?
        do {
            try source.produce { bytes in
                bytesRead += Int64(bytes.count)
                try stripper.process(bytes, emit: append)
            }
            try stripper.finish(emit: append)
            if let last = current, last.count > 0 { try ship(last) }
        } catch is Cancelled {
        } catch {
            failure = error
            if let last = current, last.count > 0 { try? ship(last) }
        }
        condition.lock()
        statistics.sawDoctype = stripper.sawDoctype
        statistics.doctype = stripper.sawDoctype ? DoctypeReport(doctypeText: stripper.doctypeText) : nil
        statistics.controlCharactersReplaced = replaced
        statistics.bytesRead = bytesRead
        producerError = failure
        producerDone = true
        condition.broadcast()
        condition.unlock()
    }

    private func takeFree() throws -> Chunk {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        let chunk = free.removeLast()
        chunk.count = 0
        return chunk
    }

    // MARK: Consumer side (calling thread)

    private func nextFilled() -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while filled.isEmpty && !producerDone { condition.wait() }
        return filled.isEmpty ? nil : filled.removeFirst()
    }

    private func recycle(_ chunk: Chunk) {
        condition.lock()
        free.append(chunk)
        condition.signal()
        condition.unlock()
    }

    private func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    private func waitForProducer() {
        condition.lock()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}
