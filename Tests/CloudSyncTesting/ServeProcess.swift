public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A real `cloudsync serve` child process on 127.0.0.1 and a free port.
public final class ServeProcess {
    public let process = Process()
    public let port: Int
    public let database: String
    public let stderrPath: String

    /// `database`: what `--db` gets (a postgres:// address), else an SQLite file in `directory`.
    public init(_ extraArguments: [String] = [], directory: URL, database: String? = nil, name: String = "serve") throws {
        self.database = database ?? directory.appendingPathComponent("received.sqlite").path
        stderrPath = directory.appendingPathComponent("\(name).err").path
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = CLI.binary
        process.arguments = ["serve", "--port", "0", "--db", self.database] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        var found: Int?
        let deadline = Date().addingTimeInterval(30)
        while found == nil && Date() < deadline && process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://[0-9.]+:(\d+)"#, options: .regularExpression) {
                found = Int(text[range].split(separator: ":").last!)
            }
        }
        guard let found else { throw ServeError.didNotStart((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "") }
        port = found
    }

    public struct ServeError: Error { public let log: String; static func didNotStart(_ log: String) -> ServeError { ServeError(log: log) } }

    /// `cloudsync serve` that must end by itself (a mistake found at start): one that starts
    /// listening instead is stopped after 10 s (status 124) and fails the test rather than hanging it.
    public static func runToEnd(_ arguments: [String], in directory: URL? = nil) throws -> CLIResult {
        try CLI.run(["10", CLI.binary.path, "serve"] + arguments, tool: "/usr/bin/timeout", directory: directory)
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// SIGTERM, then the exit status (0 for a clean stop); -1 when it had not ended 30 s later
    /// (it is then killed, so that a test fails instead of hanging).
    public func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        process.terminate()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate(); process.waitUntilExit() } }

    public var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// An HTTP request with Foundation's client (independent of the uploader's AsyncHTTPClient).
    public func request(_ method: String, _ path: String, json: Any? = nil, body: Data? = nil, token: String? = nil,
                        headers: [String: String] = [:]) throws -> (status: Int, object: [String: Any]) {
        try Self.request(method, url + path, json: json, body: body, token: token, headers: headers)
    }

    /// The same to any URL, from any thread; `timeout`: seconds without an answer before the
    /// request gives up (status 0).
    public static func request(_ method: String, _ url: String, json: Any? = nil, body: Data? = nil, token: String? = nil,
                               headers: [String: String] = [:], timeout: TimeInterval = 60) throws -> (status: Int, object: [String: Any]) {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: timeout)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json { request.httpBody = try JSONSerialization.data(withJSONObject: json) }
        if let body { request.httpBody = body }
        let (status, data) = send(request)
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// Sends a request with Foundation's client and waits for the answer: its status (0 when none
    /// came) and its body.
    public static func send(_ request: URLRequest) -> (status: Int, body: Data) {
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var status = 0; var data = Data() }
        let box = Box()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            box.data = data ?? Data()
            done.signal()
        }.resume()
        done.wait()
        return (box.status, box.data)
    }
}

/// A TCP proxy on 127.0.0.1 that resets its first `resets` connections (RST, no answer) and then
/// forwards bytes both ways: connection resets, as a flaky network gives them.
public final class ResettingProxy: @unchecked Sendable {
    private var listener: TCPListener!
    public var port: Int { listener.port }
    private let target: Int
    private let lock = NSLock()
    private var resetsLeft: Int

    public init(forwardingTo target: Int, resets: Int) throws {
        self.target = target
        resetsLeft = resets
        listener = TCPListener { [self] client in handle(client) }
    }

    private func handle(_ client: Int32) {
        lock.lock()
        let reset = resetsLeft > 0
        if reset { resetsLeft -= 1 }
        lock.unlock()
        if reset {
            // Read the start of the request, then close with RST.
            var buffer = [UInt8](repeating: 0, count: 1024)
            _ = read(client, &buffer, buffer.count)
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            close(client)
            return
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = TCPListener.loopback(port: target)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(client); close(upstream); return }
        Thread { Self.pump(from: upstream, to: client) }.start()
        Self.pump(from: client, to: upstream)
    }

    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = read(source, &buffer, buffer.count)
            if n <= 0 { break }
            var offset = 0
            while offset < n {
                let written = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + offset, n - offset) }
                if written <= 0 { break }
                offset += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
    }
}

/// A TCP server on 127.0.0.1 and a free port; each accepted connection is given to `handle` on a
/// thread of its own.
public final class TCPListener: @unchecked Sendable {
    private let socketDescriptor: Int32
    public let port: Int
    private let handle: @Sendable (Int32) -> Void

    public init(handle: @escaping @Sendable (Int32) -> Void) {
        // A peer that hangs up must give the writer EPIPE, not a SIGPIPE that ends the test process.
        signal(SIGPIPE, SIG_IGN)
        self.handle = handle
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socketDescriptor = listener
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        listen(listener, 64)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { shutdown(socketDescriptor, Int32(SHUT_RDWR)); close(socketDescriptor) }

    public static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(socketDescriptor, nil, nil)
            guard client >= 0 else { return }
            let handle = self.handle
            Thread { handle(client) }.start()
        }
    }
}
