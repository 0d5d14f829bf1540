import CloudSyncTesting
import Foundation
import Testing

/// `scripts/package-deb.sh` and its `.deb`, installed as a user installs it: with `apt-get install
/// ./cloudsync_….deb` in a fresh minimal Debian root (debootstrap), which has no Swift, so apt must
/// resolve every library from `Depends:`. Inside, cloudsync must run, convert and import the sample
/// exactly as the build under test does, its man pages must render and the completions must complete.
@Suite(.serialized) struct DebianPackageTests {
    static let version = (try? CLI.run(["--version"]).lines.first) ?? nil

    /// The package, built once for the suite (the first build links a static binary: minutes).
    static let package: Result<URL, any Error> = Result(catching: {
        let log = try CLI.temporaryDirectory().appendingPathComponent("package-deb.log").path
        let status = try spawnAndWait([CLI.repository.appendingPathComponent("scripts/package-deb.sh").path], output: log)
        guard status == 0 else { throw ClusterError("scripts/package-deb.sh failed (\(status)):\n\(DebianRoot.tail(of: log))") }
        var architecture = try CLI.run(["--print-architecture"], tool: "/usr/bin/dpkg").lines[0]
        architecture = architecture.isEmpty ? "amd64" : architecture
        return CLI.repository.appendingPathComponent("dist/cloudsync_\(version ?? "?")_\(architecture).deb")
    })

    static var skipReason: String? {
        if let reason = DebianRoot.unavailableReason { return reason }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-shlibdeps") { return "dpkg-dev is not installed" }
        return nil
    }

    /// Runs `script` in `root`, records a failure with its output unless it exits 0; returns the output.
    @discardableResult
    static func expectSuccess(_ script: String, in root: DebianRoot, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try root.run(script)
        #expect(result.status == 0, "`\(script)` exited \(result.status):\n\(result.output)", sourceLocation: sourceLocation)
        return result.output
    }

    @Test func theControlFileNamesTheVersionAndTheLibrariesTheBinaryLinks() throws {
        if let reason = Self.skipReason { print("skipped: \(reason)"); return }
        let deb = try Self.package.get()
        let field = { (name: String) in try CLI.run(["--field", deb.path, name], tool: "/usr/bin/dpkg-deb").lines[0] }
        #expect(try field("Version") == Self.version)
        let depends = try field("Depends")
        for library in ["libc6", "libxml2", "libsqlite3-0", "zlib1g", "libqrencode4"] {
            #expect(depends.contains(library), "Depends: \(depends) lacks \(library)")
        }
        #expect(!depends.lowercased().contains("swift"))
        let files = try CLI.run(["--contents", deb.path], tool: "/usr/bin/dpkg-deb")
        #expect(files.status == 0)
        let listing = String(decoding: files.stdout, as: UTF8.self)
        for path in ["./usr/bin/cloudsync", "./usr/share/man/man1/cloudsync.1.gz", "./usr/share/man/man1/cloudsync.convert.1.gz",
                     "./usr/share/man/man1/cloudsync-convert.1.gz -> cloudsync.convert.1.gz",
                     "./usr/share/bash-completion/completions/cloudsync", "./usr/share/zsh/vendor-completions/_cloudsync",
                     "./usr/share/fish/vendor_completions.d/cloudsync.fish",
                     "./usr/share/doc/cloudsync/copyright", "./usr/share/doc/cloudsync/changelog.gz"] {
            #expect(listing.contains(path), "the package lacks \(path)")
        }
        // Files belong to root, not to whoever built the package.
        #expect(!listing.split(separator: "\n").contains { !$0.contains("root/root") })
    }

    @Test func installsWithAptInAFreshDebianRootAndRunsThereWithoutSwift() throws {
        if let reason = Self.skipReason { print("skipped: \(reason)"); return }
        let deb = try Self.package.get()
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try DebianRoot(in: directory)
        try root.copy(deb.path, to: "/tmp/\(deb.lastPathComponent)")
        try root.copy(CLI.sample, to: "/tmp/export.zip")

        // The package alone: apt must find every library it needs from Depends.
        try Self.expectSuccess("apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/\(deb.lastPathComponent)", in: root)
        let swift = try root.run("command -v swift || ls -d /opt/swift /usr/lib/swift /usr/share/swift")
        #expect(swift.status != 0, "the root has Swift, so it cannot show the package does without it: \(swift.output)")
        let libraries = try Self.expectSuccess("ldd /usr/bin/cloudsync", in: root)
        #expect(!libraries.contains("not found") && !libraries.lowercased().contains("swift"), "\(libraries)")
        #expect(try Self.expectSuccess("cloudsync --version", in: root).trimmingCharacters(in: .whitespacesAndNewlines) == Self.version)

        // The sample converts to exactly what the build under test writes, and imports all of it.
        try Self.expectSuccess("cloudsync convert /tmp/export.zip > /tmp/metrics.jsonl", in: root)
        let expected = try CLI.run(["convert", CLI.sample])
        #expect(expected.status == 0 && !expected.stdout.isEmpty)
        #expect(try root.contents(of: "/tmp/metrics.jsonl") == expected.stdout, "the packaged binary converts the sample differently")
        try Self.expectSuccess("cloudsync import /tmp/export.zip --store /tmp/store.sqlite -q && cloudsync status --store /tmp/store.sqlite --json > /tmp/status.json", in: root)
        let status = try JSONSerialization.jsonObject(with: root.contents(of: "/tmp/status.json")) as? [String: Any]
        let lines = expected.stdout.split(separator: UInt8(ascii: "\n")).count
        #expect(status?["metrics"] as? Int == lines, "status \(String(describing: status)) vs \(lines) converted metrics")

        // The documentation, with the programs a user would read it with.
        try Self.expectSuccess("apt-get install -y -qq --no-install-recommends man-db zsh fish", in: root)
        let page = try Self.expectSuccess("MANWIDTH=80 man --warnings -P cat cloudsync-convert 2>&1", in: root)
        #expect(page.contains("cloudsync convert") && page.contains("--output"), "\(page.prefix(2000))")
        #expect(!page.contains("warning"), "groff warns:\n\(page.prefix(2000))")
        let commands = ["convert", "inspect", "import", "status", "export", "aggregate", "upload", "serve", "pair", "mcp", "report"]
        let top = try Self.expectSuccess("MANWIDTH=80 man -P cat cloudsync", in: root)
        for command in commands {
            #expect(top.contains(command), "man cloudsync does not list \(command)")
            try Self.expectSuccess("man -w cloudsync.\(command) && man -w cloudsync-\(command)", in: root)
        }

        // Each shell finds the completions where it looks, and they complete.
        let bash = try Self.expectSuccess("""
            bash -O extglob -c '. /usr/share/bash-completion/completions/cloudsync; COMP_WORDS=(cloudsync convert --out); COMP_CWORD=2; \
            COMP_LINE="cloudsync convert --out"; COMP_POINT=${#COMP_LINE}; _cloudsync cloudsync --out convert; printf "%s\\n" "${COMPREPLY[@]}"'
            """, in: root)
        #expect(bash.split(separator: "\n").contains("--output"), "bash offers: \(bash)")
        let fish = try Self.expectSuccess("fish -c 'complete -C \"cloudsync rep\"'", in: root)
        #expect(fish.contains("report"), "fish offers: \(fish)")
        try Self.expectSuccess("zsh -n /usr/share/zsh/vendor-completions/_cloudsync", in: root)
        let fpath = try Self.expectSuccess("zsh -fc 'print -l $fpath'", in: root)
        #expect(fpath.contains("/usr/share/zsh/vendor-completions"), "zsh does not look in vendor-completions: \(fpath)")
    }
}
