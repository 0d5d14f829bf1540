import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Servers that misbehave below HTTP's level, written as raw sockets on 127.0.0.1: the upload
/// ends within its bounds (timeout × attempts), says what happened, exits 69, and acknowledges
/// nothing, so the next run sends everything again.
// The time limit guards against a hang only: on a loaded machine (both cores busy) a run of these
// waited over 2 minutes for the test runner's threads.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ServerFaultTests {
    static let options = ["--timeout", "1", "--max-attempts", "3", "--retry-delay", "0.05"]

    func upload(to listener: TCPListener) throws -> (result: CLIResult, seconds: Double, store: String) {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let started = Date()
        let result = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "http://127.0.0.1:\(listener.port)/api/v1"] + Self.options)
        return (result, Date().timeIntervalSince(started), store)
    }

    /// The sample's metrics the server has not acknowledged (these uploads send every type).
    func pending(_ store: String) throws -> Int { 24 - (try StatusQuery(StagingStore(path: store, access: .read)).status().targets.first?.acknowledged ?? 0) }

    /// Reads the request head, so the client is not stopped by a full socket buffer.
    /// Reads one whole request: its headers, then its body (`Content-Length` bytes, or chunks up to
    /// the last). A single read() returns whatever part of it had arrived: a server that then waits
    /// for the client to hang up saw the rest of the request come in, took it for a hang-up, and
    /// closed, and the client said "reset" instead of "no answer in time".
    static func readRequest(_ client: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        func more() -> Bool {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return false }
            received.append(contentsOf: buffer[0..<count])
            return true
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            if let range = received.firstRange(of: separator) { headerEnd = range.upperBound } else if !more() { return }
        }
        let headers = String(decoding: received[..<headerEnd!], as: UTF8.self).lowercased()
        if let length = headers.firstMatch(of: /content-length:\s*(\d+)/).flatMap({ Int($0.1) }) {
            while received.count - headerEnd! < length { if !more() { return } }
        } else if headers.contains("transfer-encoding: chunked") {
            let last: [UInt8] = Array("0\r\n\r\n".utf8)
            while received[headerEnd!...].firstRange(of: last) == nil { if !more() { return } }
        }
    }

    /// A server that reads each request and answers `text`, then closes.
    static func answering(_ text: String) -> TCPListener {
        TCPListener { client in
            readRequest(client)
            reply(client, text)
            close(client)
        }
    }

    /// Writes without SIGPIPE: the client may have given up and closed already.
    static func reply(_ client: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { send(client, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// A valid 201 that arrives one byte every 100 ms: the deadline is for the whole answer.
    @Test func aServerThatAnswersTooSlowly() throws {
        let answer = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"stored_count\":24,\"total_metrics\":24} "
        let listener = TCPListener { client in
            Self.readRequest(client)
            for byte in answer.utf8 {
                Self.reply(client, String(UnicodeScalar(byte)))
                Thread.sleep(forTimeInterval: 0.1)
            }
            close(client)
        }
        let (result, _, store) = try upload(to: listener)
        #expect(result.status == 69, "\(result.stderr)")
        // A deadline per byte would have taken the 201 (each byte comes within the timeout): exit
        // 69 with "no answer" is the whole answer's deadline, whatever the machine's speed.
        #expect(result.stderr.contains("no answer from 127.0.0.1:"), "\(result.stderr)")
        #expect(try pending(store) == 24)
    }

    @Test func aServerThatAnswersSlowlyButInTime() throws {
        let dir = try makeTemporaryDirectory()
        let serve = try ServeProcess(["--delay", "0.4"], directory: dir)
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let result = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "\(serve.url)/api/v1", "--batch-size", "10"] + Self.options)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try serve.storeCount() == 24)
        #expect(try pending(store) == 0)
        _ = serve.stop()
    }

    @Test func aServerThatAnswersBytesThatAreNotHTTP() throws {
        let (result, _, store) = try upload(to: Self.answering("\u{1}\u{2}garbage\u{0}\u{FF}\r\n\r\nmore garbage"))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("after 3 attempts; last:"), "\(result.stderr)")
        #expect(try pending(store) == 24)
    }

    /// A 200 whose body is a web page (a captive portal, a wrong URL): nothing was stored, so
    /// nothing is acknowledged.
    @Test func aServerThatAnswers200WithAWebPage() throws {
        let page = "<html><body>Welcome to the hotel network</body></html>"
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: \(page.utf8.count)\r\nConnection: close\r\n\r\n\(page)"
        let (result, _, store) = try upload(to: Self.answering(answer))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("not the CloudCare reply") && result.stderr.contains("Welcome to the hotel network"), "\(result.stderr)")
        #expect(try pending(store) == 24)
    }

    /// A 200 whose JSON is not CloudCare's reply (no `total_metrics`) acknowledges nothing: the
    /// reply is decoded as the contract's type, and what does not decode is retried, then given up.
    @Test func aServerThatAnswers200WithAnotherJSON() throws {
        let json = #"{"ok":true}"#
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)"
        let (result, _, store) = try upload(to: Self.answering(answer))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("not the CloudCare reply"), "\(result.stderr)")
        #expect(try pending(store) == 24)
    }

    /// CloudCare's 403 is a device not paired (wire-contracts.md), not a refused token: one request,
    /// exit 77, the advice is to pair, nothing acknowledged.
    @Test func cloudCaresForbiddenSaysTheDeviceIsNotPaired() throws {
        let json = #"{"detail":"Device not paired"}"#
        let requests = Counter()
        let listener = TCPListener { client in
            requests.increment()
            Self.readRequest(client)
            Self.reply(client, "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)")
            close(client)
        }
        let (result, _, store) = try upload(to: listener)
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stderr.contains("not paired (403: Device not paired)") && result.stderr.contains("cloudsync pair"), "\(result.stderr)")
        #expect(!result.stderr.contains("token"), "\(result.stderr)")
        #expect(requests.value == 1)
        #expect(try pending(store) == 24)
    }

    /// FastAPI's own 422 has `detail` as a list: the words are still the server's.
    @Test func aValidationErrorWithFastAPIsListIsShownAsTheServerSaidIt() throws {
        let json = #"{"detail":[{"loc":["body","metrics"],"msg":"field required"}]}"#
        let answer = "HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)"
        let (result, _, store) = try upload(to: Self.answering(answer))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("rejected") && result.stderr.contains("field required"), "\(result.stderr)")
        #expect(try pending(store) == 24)
    }

    /// Ctrl-C or SIGTERM while a retry waits for a long `Retry-After`, or while a request waits for
    /// a server that does not answer: the upload stops within a second (exit 130), not when the
    /// wait or the timeout ends, and nothing unacknowledged is marked.
    @Test(arguments: ["503 Service Unavailable\r\nRetry-After: 120", "stall"])
    func aStopIsHeardWhileARetryWaitsOrARequestHangs(_ answer: String) throws {
        let listener = TCPListener { client in
            Self.readRequest(client)
            if answer == "stall" {
                Thread.sleep(forTimeInterval: 60)
            } else {
                Self.reply(client, "HTTP/1.1 \(answer)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            }
            close(client)
        }
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let upload = try BackgroundRun(["upload", "--no-token", "--all-types", "--store", store, "--timeout", "60",
                                        "--server", "http://127.0.0.1:\(listener.port)/api/v1"])
        Thread.sleep(forTimeInterval: 1.5)
        #expect(upload.isRunning, "\(upload.stderr)")
        let signalled = Date()
        upload.send(SIGINT)
        let (status, stderr) = upload.finish()
        let seconds = Date().timeIntervalSince(signalled)
        #expect(status == 130, "\(stderr)")
        // Not heard, the upload would wait out its 60 s timeout: far beyond what a loaded machine takes.
        #expect(seconds < 30, "it took \(seconds) s to stop")
        #expect(stderr.contains("interrupted"), "\(stderr)")
        #expect(try pending(store) == 24)
    }

    /// The token comes from the environment or a file, never from arguments: it is not in the
    /// process list while an upload runs, and an option that would put it there does not exist.
    @Test func theTokenIsNeverInTheProcessList() throws {
        let token = "secret-\(UUID().uuidString)"
        let listener = TCPListener { client in
            Self.readRequest(client)
            Thread.sleep(forTimeInterval: 5)
            close(client)
        }
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let upload = try BackgroundRun(["upload", "--no-token", "--all-types", "--store", store, "--server", "http://127.0.0.1:\(listener.port)/api/v1"] + Self.options,
                                       environment: ["CLOUDSYNC_TOKEN": token])
        Thread.sleep(forTimeInterval: 0.5)
        let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(upload.pid)/cmdline"))
        #expect(commandLine.range(of: Data("upload".utf8)) != nil)   // it is the upload we are looking at
        #expect(commandLine.range(of: Data(token.utf8)) == nil)
        if FileManager.default.isExecutableFile(atPath: "/bin/ps") {
            #expect(!String(decoding: try CLI.run(["-eo", "args"], tool: "/bin/ps").stdout, as: UTF8.self).contains(token))
        }
        let (status, stderr) = upload.finish()
        #expect(status == 69)
        #expect(!stderr.contains(token))
        let asArgument = try CLI.run(["upload", "--store", store, "--server", "http://127.0.0.1:1", "--token", token])
        #expect(asArgument.status == 64)
        #expect(!asArgument.stderr.contains(token))
    }

    /// SIGINT or SIGTERM during an upload: exit 130 with a message, the batches acknowledged
    /// before are kept, and the next upload sends the rest; the server ends with each metric once.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalDuringUploadStopsCleanlyAndTheNextUploadContinues(_ signal: Int32) throws {
        let dir = try makeTemporaryDirectory()
        let serve = try ServeProcess(["--delay", "0.5"], directory: dir)
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let upload = try BackgroundRun(["upload", "--no-token", "--all-types", "--store", store, "--server", "\(serve.url)/api/v1", "--batch-size", "4"])
        let deadline = Date().addingTimeInterval(30)
        while try pending(store) == 24, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        upload.send(signal)
        let (status, message) = upload.finish()
        #expect(status == 130, "\(message)")
        #expect(message.contains("interrupted"), "\(message)")
        let left = try pending(store)
        #expect(left > 0 && left < 24)
        let again = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "\(serve.url)/api/v1", "--batch-size", "4"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try pending(store) == 0)
        #expect(try serve.storeCount() == 24)
        _ = serve.stop()
    }
}

/// A server that accepts each connection, reads the request and never answers: the upload gives up
/// by its own timeout, attempt after attempt, says so, exits 69 and acknowledges nothing.
///
/// Apart from ServerFaultTests and without its time limit: Swift Testing's limit runs from when a
/// test is started, and in a full run on two cores a synchronous test can wait minutes for a thread
/// behind the other suites' child processes, so the limit failed a test that had hardly run. This
/// one needs no limit: it cannot hang. The server gives up on a connection after `hold` seconds (60
/// times the upload's timeout), so an upload whose timeout did not work still ends, and fails the
/// checks; and the upload runs under coreutils' `timeout`, which ends it if anything else hung it.
/// Nothing is measured against the machine's load: the upload says why it stopped, and the server
/// sees each attempt end by the client hanging up after waiting for an answer, never by the server.
@Suite(.serialized) struct ServerNeverAnswersTests {
    /// What the server saw of each attempt: how long after the request the client hung up, or that
    /// it did not (the server closed the connection at `hold`).
    final class Attempts: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [(waited: Double, clientHungUp: Bool)] = []
        func add(waited: Double, clientHungUp: Bool) { lock.withLock { seen.append((waited, clientHungUp)) } }
        var all: [(waited: Double, clientHungUp: Bool)] { lock.withLock { seen } }
    }

    @Test func aServerThatAcceptsAndNeverAnswers() throws {
        let timeout = 1.0, attempts = 3, hold = 60.0
        let seen = Attempts()
        let listener = TCPListener { client in
            ServerFaultTests.readRequest(client)
            let asked = Date()
            // No answer: wait for the client to hang up (the socket turns readable with nothing to
            // read), for `hold` seconds at most.
            var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            let hungUp = poll(&descriptor, 1, Int32(hold * 1000)) > 0 && read(client, &byte, 1) <= 0
            seen.add(waited: Date().timeIntervalSince(asked), clientHungUp: hungUp)
            close(client)
        }
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let result = try CLI.run(["--kill-after=10", "600", CLI.binary.path, "upload", "--no-token", "--all-types", "--store", store,
                                  "--server", "http://127.0.0.1:\(listener.port)/api/v1", "--timeout", String(timeout),
                                  "--max-attempts", String(attempts), "--retry-delay", "0.05"], tool: "/usr/bin/timeout")
        #expect(result.status != 124 && result.status != 137, "the upload hung and was stopped by timeout(1): \(result.stderr)")
        // The upload's own account: it gave up after its attempts because no answer came in time.
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("after \(attempts) attempts; last: no answer from 127.0.0.1:\(listener.port) in time"), "\(result.stderr)")
        // The server's: one connection per attempt, each ended by the client, after it had waited
        // for its answer (at least half its timeout, whatever the load; the server would have held
        // it 60 times as long).
        let each = seen.all
        #expect(each.count == attempts, "\(each)")
        for (index, attempt) in each.enumerated() {
            #expect(attempt.clientHungUp, "attempt \(index + 1): the server closed it after \(attempt.waited) s")
            #expect(attempt.waited >= timeout / 2 && attempt.waited < hold, "attempt \(index + 1) waited \(attempt.waited) s")
        }
        // Nothing was acknowledged: the next upload sends everything again.
        #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().targets.first?.acknowledged ?? 0 == 0)
    }
}
