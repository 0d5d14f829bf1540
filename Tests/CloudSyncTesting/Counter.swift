import Foundation

/// A count that several threads add to: requests a test server received, callbacks that ran.
public final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    public init() {}

    public func increment() { lock.withLock { count += 1 } }
    public var value: Int { lock.withLock { count } }
}
