import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// The HTTP client of one `upload` or `pair` run, shared by all its requests (one connection pool):
/// its timeouts, and the certificate authorities `--cacert` adds to the system's for servers
/// whose certificate a private CA signed (a clinic's, a family server's).
enum UploadClient {
    static func make(_ configuration: UploadConfiguration) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let path = configuration.caCertificates {
            tls.additionalTrustRoots = [.certificates(try certificates(at: path))]
        }
        var client = HTTPClient.Configuration(
            tlsConfiguration: tls,
            timeout: .init(connect: .seconds(10), read: .milliseconds(Int64(configuration.requestTimeout * 1000))))
        // A failed connection fails the request at once, into HTTPTransport's retries (which tell a
        // certificate that is not trusted, never retried, from a refused connection): the pool's own
        // retrying kept an untrusted certificate's error back for the whole connect timeout (10 s).
        client.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: client)
    }

    /// The PEM certificates in `path` (the curl convention: one or more `BEGIN CERTIFICATE` blocks).
    static func certificates(at path: String) throws -> [NIOSSLCertificate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UploadError.invalidServer("--cacert \(path): cannot read the file")
        }
        let certificates = (try? NIOSSLCertificate.fromPEMBytes(Array(data))) ?? []
        guard !certificates.isEmpty else {
            throw UploadError.invalidServer("--cacert \(path): no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }
}
