import Foundation

/// Hands reusable items (byte chunks, batches of element trees) from a producer thread to a
/// consumer thread and back, with a fixed number of items in circulation: memory stays bounded
/// and neither side allocates per item.
///
/// `@unchecked Sendable`: every field is only touched under `condition`; an item belongs to one
/// side at a time (taken from `free` by the producer, from `filled` by the consumer).
final class HandoffQueue<Item: AnyObject>: @unchecked Sendable {
    struct Cancelled: Error {}

    private let condition = NSCondition()
    @exclusivity(unchecked) private var free: [Item]
    @exclusivity(unchecked) private var filled: [Item] = []
    @exclusivity(unchecked) private var closed = false
    @exclusivity(unchecked) private var cancelled = false

    init(items: [Item]) { free = items }

    /// Producer: an empty item to fill; throws `Cancelled` once the consumer gave up.
    func takeFree() throws -> Item {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        return free.removeLast()
    }

    /// Producer: a filled item for the consumer.
    func send(_ item: Item) {
        condition.lock()
        filled.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// Producer: nothing more will be sent.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next filled item, or nil once the producer closed and all were received.
    func receive() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while filled.isEmpty && !closed { condition.wait() }
        return filled.isEmpty ? nil : filled.removeFirst()
    }

    /// Consumer: gives an item back for reuse.
    func recycle(_ item: Item) {
        condition.lock()
        free.append(item)
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: stop the producer (its next `takeFree` throws).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the producer closed the queue.
    func waitUntilClosed() {
        condition.lock()
        while !closed { condition.wait() }
        condition.unlock()
    }
}
