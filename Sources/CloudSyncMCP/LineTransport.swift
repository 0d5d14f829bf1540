import Foundation
import Logging
import MCP
#if canImport(Glibc)
import Glibc
#endif

/// MCP over standard input and output, one JSON message per line, with blocking reads on a thread of
/// its own and blocking writes.
///
/// Why not the SDK's `StdioTransport`: it makes both descriptors non-blocking and polls them with
/// 10 ms sleeps, so each request waited up to 10 ms before it was read, and a large answer slept
/// 10 ms each time the pipe to the client was full. Measured on the 1 GB export's store, 7 calls
/// each, raw JSON-RPC: `overview` 19–39 ms with the SDK's transport, 16–23 ms with this one;
/// `records` (100 samples) 80–127 ms, 70–95 ms.
actor LineTransport: Transport {
    nonisolated let logger = Logger(label: "cloudsync.mcp.stdio", factory: { _ in SwiftLogNoOpLogHandler() })
    private let input: Int32
    private let output: Int32
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    /// Requests read and answers written: the SDK's server answers each request in a task of its
    /// own and stops at the end of the input without waiting for them, so `run` waits here.
    private let tally = RequestTally()

    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
        (messages, continuation) = AsyncThrowingStream.makeStream()
    }

    func connect() async throws {
        let input = input, continuation = continuation, tally = tally
        let reader = Thread {
            var pending: [UInt8] = []
            var scanned = 0  // bytes of `pending` already known to hold no line break
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }  // end of input: the client went away
                pending.append(contentsOf: buffer[..<n])
                var lineStart = 0
                while let newline = pending[scanned...].firstIndex(of: 0x0A) {
                    if newline > lineStart {
                        let message = Data(pending[lineStart..<newline])
                        tally.read(RequestTally.requests(in: message))
                        continuation.yield(message)
                    }
                    lineStart = newline + 1
                    scanned = lineStart
                }
                pending.removeFirst(lineStart)
                scanned = pending.count
                guard pending.count <= Self.maximumMessageBytes else {
                    continuation.finish(throwing: MCPError.parseError("a message longer than \(Self.maximumMessageBytes >> 20) MiB"))
                    return
                }
            }
            continuation.finish()
        }
        reader.stackSize = 1 << 20
        reader.start()
    }

    /// A request is a few KB; a line this long is not one.
    static let maximumMessageBytes = 16 << 20

    func disconnect() async { continuation.finish() }

    /// Returns once every request read has been answered, or after `seconds`.
    func answeredEverything(within seconds: Double) async {
        let deadline = Date().addingTimeInterval(seconds)
        while !tally.allAnswered && Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    func send(_ data: Data) async throws {
        defer { tally.answered(RequestTally.answers(in: data)) }
        var message = data
        message.append(0x0A)
        try message.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(output, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw MCPError.transportError(POSIXError(.EPIPE)) }
                offset += n
            }
        }
    }

    nonisolated func receive() -> AsyncThrowingStream<Data, any Error> { messages }
}

/// How many requests came in and how many answers went out (JSON-RPC: a request has a `method` and
/// an `id`, an answer an `id` and no `method`; a batch counts each of its members).
final class RequestTally: @unchecked Sendable {
    private let lock = NSLock()
    private var requestsRead = 0
    private var answersWritten = 0

    func read(_ count: Int) { lock.withLock { requestsRead += count } }
    func answered(_ count: Int) { lock.withLock { answersWritten += count } }
    var allAnswered: Bool { lock.withLock { answersWritten >= requestsRead } }

    static func requests(in message: Data) -> Int { members(message).filter { $0["method"] != nil && $0["id"] != nil }.count }
    static func answers(in message: Data) -> Int { members(message).filter { $0["method"] == nil && $0["id"] != nil }.count }

    private static func members(_ message: Data) -> [[String: Any]] {
        let value = try? JSONSerialization.jsonObject(with: message)
        return (value as? [[String: Any]]) ?? (value as? [String: Any]).map { [$0] } ?? []
    }
}
