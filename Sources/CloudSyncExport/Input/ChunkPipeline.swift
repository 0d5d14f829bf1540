import CloudSyncModel
import Foundation

/// Runs an `ExportBytes` on its own thread and hands its bytes, DTD removed, attribute names
/// repaired (iOS 8), forbidden control characters replaced and `&lt;`/`&gt;` marked
/// (`ExportBytePass`), to the caller's thread in chunks.
///
/// Why a thread: inflating the zip and filtering run beside libxml2's parse instead of before it.
/// `chunkCount` chunks of `chunkSize` bytes circulate (2 MiB in all), so memory stays flat
/// whatever the size of the export.
///
/// `@unchecked Sendable`: `statistics` and `producerError` are written by the reader thread before
/// it closes the queue and read by the caller only after `waitUntilClosed`.
final class ChunkPipeline: @unchecked Sendable {
    struct Statistics {
        var doctype: DoctypeReport?
        var sawDoctype = false
        var controlCharactersReplaced = 0
        /// Whitespace bytes found inside attribute names (iOS 8 exports) and escaped.
        var attributeNamesRepaired = 0
    }

    final class Chunk {
        let storage: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var count = 0
        init(capacity: Int) {
            self.capacity = capacity
            storage = .allocate(capacity: capacity)
        }
        deinit { storage.deallocate() }
    }

    private let source: any ExportBytes
    private let queue: HandoffQueue<Chunk>
    @exclusivity(unchecked) private var producerError: (any Error)?
    @exclusivity(unchecked) private(set) var statistics = Statistics()

    init(source: any ExportBytes, chunkSize: Int = 256 << 10, chunkCount: Int = 8) {
        self.source = source
        queue = HandoffQueue(items: (0..<chunkCount).map { _ in Chunk(capacity: chunkSize) })
    }

    /// Calls `consume` on this thread with each chunk, in order. Errors of the input arrive after
    /// every byte that came before them.
    func run(_ consume: (ByteText) throws -> Void) throws {
        let thread = Thread { [self] in produce() }
        thread.stackSize = 1 << 20
        thread.start()
        do {
            while let chunk = queue.receive() {
                try consume(ByteText(start: chunk.storage, count: chunk.count))
                queue.recycle(chunk)
            }
        } catch {
            queue.cancel()
            queue.waitUntilClosed()
            throw error
        }
        queue.waitUntilClosed()
        if let producerError { throw producerError }
    }

    // MARK: Reader thread

    private func produce() {
        var stripper = DoctypeStripper()
        var current: Chunk?
        var replaced = 0
        func ship(_ chunk: Chunk) {
            replaced += ExportBytePass.prepare(UnsafeMutableBufferPointer(start: chunk.storage, count: chunk.count))
            current = nil
            queue.send(chunk)
        }
        func append(_ bytes: ByteText) throws {
            var offset = 0
            while offset < bytes.count {
                if current == nil {
                    current = try queue.takeFree()
                    current!.count = 0
                }
                let chunk = current!
                let n = Swift.min(chunk.capacity - chunk.count, bytes.count - offset)
                (chunk.storage + chunk.count).update(from: bytes.baseAddress! + offset, count: n)
                chunk.count += n
                offset += n
                if chunk.count == chunk.capacity { ship(chunk) }
            }
        }
        // An export without a DTD (iOS 8's dialect) also goes through the attribute-name repair;
        // from the chunk where a DTD shows up, the bytes go straight to the parser.
        var repair = AttributeNameRepair()
        var repairing = true
        func repaired(_ bytes: ByteText) throws {
            if repairing { try repair.process(bytes, emit: append) } else { try append(bytes) }
        }
        func stopRepairingAfterDoctype() throws {
            guard repairing, stripper.sawDoctype else { return }
            try repair.finish(emit: append)
            repairing = false
        }
        do {
            try source.produce { bytes in
                try stripper.process(bytes, emit: repaired)
                try stopRepairingAfterDoctype()
            }
            try stripper.finish(emit: repaired)
            if repairing { try repair.finish(emit: append) }
        } catch is HandoffQueue<Chunk>.Cancelled {
        } catch {
            producerError = error
        }
        if let last = current, last.count > 0 { ship(last) }
        statistics.sawDoctype = stripper.sawDoctype
        statistics.doctype = stripper.sawDoctype ? DoctypeReport(doctypeText: stripper.doctypeText) : nil
        statistics.controlCharactersReplaced = replaced
        statistics.attributeNamesRepaired = repair.repairedCount
        queue.close()
    }
}
