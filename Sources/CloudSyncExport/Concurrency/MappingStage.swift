import Foundation

/// The second half of the pipeline: the parser thread fills batches of elements (`ElementBatch`:
/// flat arrays, one object per batch) and hands each over whole; this stage's thread gives its
/// elements to the consumer (mapping, JSON, sinks).
///
/// Why: on two cores the parser thread is the critical path (libxml2 alone is the floor); moving
/// mapping and writing off it brought the 1 GB convert from about 1.6× to about 1.2× the floor.
/// Six batches circulate; a batch leaves once it holds `batchSize` elements or `batchBytes`, so
/// memory stays bounded even when every element is large (batches of 8 MB took the 1 GB import's
/// peak RSS from 94 to 116 MiB, by the heart rate variability records' children at the end).
/// Six of 512 elements or 512 KiB hold what three of 1,024 or 1 MiB did, in finer steps: with two
/// cores and four threads (the inflating and the GPX files beside these two), a side that loses
/// its core for a moment no longer finds the other waiting. The 100 MB import, 10 pairs: 0.695 →
/// 0.655 s (ahead in 9). Six of 1,024 were quicker still (0.615 s) but took the 10 GB import's
/// peak RSS to 98 MiB, over its 96.
///
/// `@unchecked Sendable`: the batch being filled belongs to the parser thread; the batches move
/// between the threads through `queue`; `failure` is written by the mapping thread before `done`
/// is signalled and read by the parser thread after `cancelled` or `done`.
final class MappingStage: ElementBatchHandoff, @unchecked Sendable {
    private let consumer: any ExportElementConsumer
    private let queue: HandoffQueue<ElementBatch>
    private let batchSize: Int
    private let batchBytes: Int
    private let done = DispatchSemaphore(value: 0)
    private let failureLock = NSLock()
    @exclusivity(unchecked) private var failure: (any Error)?
    @exclusivity(unchecked) private var finished = false
    /// The batch the parser fills (its own, until it is sent).
    @exclusivity(unchecked) private var filling: ElementBatch?

    init(consumer: any ExportElementConsumer, batchSize: Int = 512, batchCount: Int = 6, batchBytes: Int = 1 << 19) {
        self.consumer = consumer
        self.batchSize = batchSize
        self.batchBytes = batchBytes
        queue = HandoffQueue(items: (1..<batchCount).map { _ in ElementBatch() })
    }

    func start() {
        let thread = Thread { [self] in consume() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: Parser thread

    /// After each complete element: the batch goes on being filled, or, full, is sent and an empty
    /// one comes back.
    func completed(_ batch: ElementBatch) throws -> ElementBatch {
        // Assigned only when it changes: each element's assignment was a retain and a release.
        if filling !== batch { filling = batch }
        guard batch.count >= batchSize || batch.footprint >= batchBytes else { return batch }
        queue.send(batch)
        filling = nil
        do {
            let free = try queue.takeFree()
            free.removeAll()
            filling = free
            return free
        } catch {
            throw storedFailure ?? error
        }
    }

    /// Sends what is left, waits until every element was consumed, and reports the consumer's
    /// error. Called once, after the last element or after the parse stopped: either way, every
    /// element that was complete reaches the consumer.
    func finish() throws {
        guard !finished else { return }
        finished = true
        if let last = filling, last.count > 0 { queue.send(last) }
        queue.close()
        done.wait()
        if let storedFailure { throw storedFailure }
    }

    private var storedFailure: (any Error)? {
        failureLock.lock()
        defer { failureLock.unlock() }
        return failure
    }

    // MARK: Mapping thread

    private func consume() {
        var failed = false
        while let batch = queue.receive() {
            if !failed {
                do {
                    for i in 0..<batch.count { try consumer.consume(batch.tree(i)) }
                } catch {
                    failureLock.lock()
                    failure = error
                    failureLock.unlock()
                    failed = true
                    queue.cancel()
                }
            }
            queue.recycle(batch)
        }
        done.signal()
    }
}
