public import Foundation

/// nginx from Debian as the load balancer in front of several `serve` instances, on 127.0.0.1 and a
/// free port, with its configuration, logs and temporary files in a folder of its own. With
/// `tls`, it terminates HTTPS with that certificate and key. nil (the test says it skipped) when
/// nginx is not installed.
public final class Nginx: @unchecked Sendable {
    public static let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    public static var isAvailable: Bool { binary != nil }

    public let directory: URL
    public let port: Int
    private let process = Process()

    public struct TLS: Sendable {
        public var certificate: String
        public var key: String
        public init(certificate: String, key: String) { self.certificate = certificate; self.key = key }
    }

    /// Balances over `upstreams` (ports on 127.0.0.1). A request whose instance refuses the
    /// connection goes to the next; one that fails after it was sent is answered 502 (nginx does
    /// not send a POST twice), which the uploader retries.
    public init(upstreams: [Int], tls: TLS? = nil) throws {
        guard let binary = Self.binary else { throw ClusterError("nginx is not installed (Debian: nginx)") }
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("cloudsync-nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // As root, nginx's workers run as `nobody`: they must be able to write the temporary folders.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        port = try freeLoopbackPort()
        let path = directory.path
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=2s;" }.joined(separator: "\n")
        let listen = tls.map { "listen 127.0.0.1:\(port) ssl;\n        ssl_certificate \($0.certificate);\n        ssl_certificate_key \($0.key);" }
            ?? "listen 127.0.0.1:\(port);"
        let configuration = """
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 512; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                client_max_body_size 64m;
                client_body_buffer_size 16m;
                upstream serve {
            \(servers)
                    keepalive 32;
                }
                server {
                    \(listen)
                    location / {
                        proxy_pass http://serve;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_connect_timeout 1s;
                        proxy_read_timeout 60s;
                        proxy_next_upstream error timeout;
                    }
                }
            }

            """
        let file = directory.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: file)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-e", "\(path)/error.log", "-p", path, "-c", file.path, "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once it accepts connections.
        let deadline = Date().addingTimeInterval(10)
        while !acceptsConnections(port: port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                stop()
                throw ClusterError("nginx did not start: \(log)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A port on 127.0.0.1 that nothing listens on now (bound to 0, read, closed).
public func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { throw ClusterError("cannot find a free port on 127.0.0.1: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts a TCP connection on 127.0.0.1:port.
public func acceptsConnections(port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
