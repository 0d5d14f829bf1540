import Foundation

/// The second half of the pipeline: the parser thread hands completed element trees over in
/// batches, and this stage's thread gives them to the consumer (mapping, JSON, sinks).
///
/// Why: on two cores the parser thread is the critical path (libxml2 alone is the floor); moving
/// mapping and writing off it brought the 1 GB convert from about 1.6× to about 1.2× the floor.
/// Three batches of `batchSize` trees circulate, and a batch leaves early once its trees hold
/// `batchBytes`, so memory stays bounded even when every element is large.
///
/// `@unchecked Sendable`: `current` belongs to the parser thread; the batches move between the
/// threads through `queue`; `failure` is written by the mapping thread before `done` is signalled
/// and read by the parser thread after `cancelled` or `done`.
final class MappingStage: ElementTreeHandoff, @unchecked Sendable {
    /// Trees are created as the first elements arrive, then reused: a small export (or a fuzz
    /// input) does not pay for 768 trees it never fills.
    final class Batch {
        var trees: [ElementTree] = []
        var count = 0
        let capacity: Int
        init(capacity: Int) {
            self.capacity = capacity
            trees.reserveCapacity(capacity)
        }
    }

    private let consumer: any ExportElementConsumer
    private let queue: HandoffQueue<Batch>
    @exclusivity(unchecked) private var current: Batch
    /// Bytes held by the trees of `current`.
    @exclusivity(unchecked) private var currentBytes = 0
    private let batchBytes: Int
    private let done = DispatchSemaphore(value: 0)
    private let failureLock = NSLock()
    @exclusivity(unchecked) private var failure: (any Error)?
    @exclusivity(unchecked) private var finished = false

    init(consumer: any ExportElementConsumer, batchSize: Int = 256, batchCount: Int = 3, batchBytes: Int = 8 << 20) {
        self.consumer = consumer
        self.batchBytes = batchBytes
        let batches = (0..<batchCount).map { _ in Batch(capacity: batchSize) }
        queue = HandoffQueue(items: Array(batches.dropFirst()))
        current = batches[0]
    }

    func start() {
        let thread = Thread { [self] in consume() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: Parser thread

    /// Puts `tree` into the batch and returns the tree that held its slot, to be filled next
    /// (the parser always holds one tree of its own).
    func completed(_ tree: ElementTree) throws -> ElementTree {
        let spare: ElementTree
        if current.count < current.trees.count {
            spare = current.trees[current.count]
            current.trees[current.count] = tree
        } else {
            current.trees.append(tree)
            spare = ElementTree()
        }
        current.count += 1
        currentBytes += tree.footprint
        if current.count == current.capacity || currentBytes >= batchBytes { try sendCurrent() }
        return spare
    }

    private func sendCurrent() throws {
        queue.send(current)
        currentBytes = 0
        do {
            current = try queue.takeFree()
        } catch {
            throw storedFailure ?? error
        }
        current.count = 0
    }

    /// Sends what is left, waits until every tree was consumed, and reports the consumer's error.
    /// Called once, after the last element or after the parse stopped: either way, every element
    /// that was complete reaches the consumer.
    func finish() throws {
        guard !finished else { return }
        finished = true
        if current.count > 0 { queue.send(current) }
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
                    for i in 0..<batch.count { try consumer.consume(batch.trees[i]) }
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
