import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// A server behind HTTPS with a private CA, as a clinic or a family server runs it: nginx terminates
/// TLS with a certificate the test's own CA signed (openssl), in front of `serve`. Without
/// `--cacert` the upload stops at once with a sentence saying what to do; with it, it goes through.
@Suite(.serialized) struct ServeTLSTests {
    /// A CA, and a certificate it signed for 127.0.0.1 and localhost.
    struct Certificates {
        let ca: String
        let certificate: String
        let key: String

        init(in directory: URL) throws {
            func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
            func openssl(_ arguments: [String]) throws {
                let result = try CLI.run(arguments, tool: "/usr/bin/openssl")
                guard result.status == 0 else { throw ClusterError("openssl \(arguments.first ?? ""): \(result.stderr)") }
            }
            let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            try openssl(["req", "-x509"] + curve + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2",
                                                     "-subj", "/CN=CloudSync test CA"])
            try openssl(["req"] + curve + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"])
            try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n".utf8)
                .write(to: URL(fileURLWithPath: path("server.ext")))
            try openssl(["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                         "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("server.ext")])
            ca = path("ca.pem")
            certificate = path("server.pem")
            key = path("server.key")
        }
    }

    /// Why the test cannot run here (the runner reports it as skipped with this reason), or nil.
    static var skipReason: String? {
        if !Nginx.isAvailable { return "nginx is not installed (Debian: nginx)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") { return "openssl is not installed (Debian: openssl)" }
        return nil
    }

    @Test(.enabled(if: skipReason == nil, Comment(rawValue: skipReason ?? "")))
    func uploadAndPairTrustAPrivateCAOnlyWithCacert() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let certificates = try Certificates(in: dir)
        let serve = try ServeProcess(["--token-file", try write("tls-token-0123456789abcdef", "serve.token", in: dir)], directory: dir)
        defer { _ = serve.stop() }
        let nginx = try Nginx(upstreams: [serve.port], tls: .init(certificate: certificates.certificate, key: certificates.key))
        defer { nginx.stop() }
        let server = "https://127.0.0.1:\(nginx.port)/api/v1"
        let token = try write("tls-token-0123456789abcdef", "upload.token", in: dir)
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)

        // Without the CA: one attempt, a sentence naming the server and what to do, exit 69.
        let started = Date()
        // With a retry delay of 30 s, a retry would show as a run of 30 s and more.
        let refused = try CLI.run(["upload", "--all-types", "--store", store, "--server", server, "--token-file", token, "--retry-delay", "30"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("TLS certificate of 127.0.0.1:\(nginx.port) is not trusted"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--cacert"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("BoringSSL") && !refused.stderr.contains(".build/"), "\(refused.stderr)")
        #expect(Date().timeIntervalSince(started) < 25, "a certificate that is not trusted is not retried")
        #expect(try serve.storeCount() == 0)

        // A file that holds no certificate: a usage error naming it.
        let notPEM = try write("not a certificate\n", "not.pem", in: dir)
        let bad = try CLI.run(["upload", "--all-types", "--store", store, "--server", server, "--token-file", token, "--cacert", notPEM])
        #expect(bad.status == 64 && bad.stderr.contains("--cacert \(notPEM): no PEM certificate"), "\(bad.stderr)")

        // With the CA: everything goes through.
        let upload = try CLI.run(["upload", "--all-types", "--store", store, "--server", server, "--token-file", token,
                                  "--cacert", certificates.ca])
        #expect(upload.status == 0 && upload.stderr.contains("uploaded 24 metrics"), "\(upload.stderr)")
        #expect(try serve.storeCount() == 24)

        // pair, the same way.
        let pairWithout = try CLI.run(["pair", "--store", store, "--no-qr", "--server", server, "--android-user-id", "android-1",
                                       "--token-file", token])
        #expect(pairWithout.status == 69 && pairWithout.stderr.contains("--cacert"), "\(pairWithout.stderr)")
        let pair = try CLI.run(["pair", "--store", store, "--no-qr", "--server", server, "--android-user-id", "android-1",
                                "--token-file", token, "--cacert", certificates.ca])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(try serve.count("SELECT count(*) FROM pairing") == 1)
    }

    private func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
