import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// Network and TLS failures in the tool's words: what happened, at which server, and what to do,
/// instead of a library's type dump (`connection reset (error set): Connection refused) (errno: 111)`,
/// BoringSSL errors with a build path).
enum NetworkProblem {
    /// Whether retrying can help: a certificate that is not trusted stays untrusted.
    static func isPermanent(_ error: any Error) -> Bool {
        let text = String(describing: error)
        return text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed")
            || text.contains("unable to get local issuer certificate") || text.contains("self signed certificate")
            || text.contains("hostname mismatch") || text.contains("invalidCertificate")
    }

    static func describe(_ error: any Error, server: URL) -> String {
        let host = server.host ?? "the server"
        let port = server.port ?? (server.scheme?.lowercased() == "https" ? 443 : 80)
        let place = "\(host):\(port)"
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                return "no answer from \(place) in time"
            case .remoteConnectionClosed:
                return "\(place) closed the connection before answering"
            default:
                break
            }
        }
        if let errno = errnoCode(error) {
            switch errno {
            case ECONNREFUSED: return "nothing listens at \(place) (connection refused): is the server running, and is the URL right?"
            case ECONNRESET: return "\(place) reset the connection"
            case ETIMEDOUT: return "no answer from \(place) in time (connection timed out)"
            case EHOSTUNREACH, ENETUNREACH: return "\(place) cannot be reached from this machine (no route): check the network"
            default: return "the connection to \(place) failed: \(String(cString: strerror(errno)))"
            }
        }
        let text = String(describing: error)
        if isPermanent(error) {
            return "the TLS certificate of \(place) is not trusted (a private CA or a self-signed certificate?): "
                + "give its CA with --cacert FILE (PEM), or install it in the system's trust store"
        }
        if text.contains("handshake") || text.contains("SSL") || text.contains("TLS") {
            return "the TLS handshake with \(place) failed: is it an https server (or an http one given as https)?"
        }
        if text.contains("dns") || text.contains("DNS") || text.contains("lookup") || text.contains("resolve") {
            return "cannot find the host \(host): check the URL"
        }
        return "the connection to \(place) failed (\(text.prefix(200)))"
    }

    /// The errno inside NIO's errors, however deep.
    private static func errnoCode(_ error: any Error) -> Int32? {
        if let io = error as? IOError { return io.errnoCode }
        if let connection = error as? NIOConnectionError {
            for failure in connection.connectionErrors {
                if let code = errnoCode(failure.error) { return code }
            }
        }
        let text = String(describing: error)
        if let range = text.range(of: "errno: ") {
            let digits = text[range.upperBound...].prefix { $0.isNumber }
            return Int32(digits)
        }
        return nil
    }
}
