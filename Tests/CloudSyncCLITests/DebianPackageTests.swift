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
        let logs = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: logs) }
        let log = logs.appendingPathComponent("package-deb.log").path
        let status = try spawnAndWait([CLI.repository.appendingPathComponent("scripts/package-deb.sh").path], output: log)
        guard status == 0 else { throw ClusterError("scripts/package-deb.sh failed (\(status)):\n\(DebianRoot.tail(of: log))") }
        var architecture = try CLI.run(["--print-architecture"], tool: "/usr/bin/dpkg").lines[0]
        architecture = architecture.isEmpty ? "amd64" : architecture
        return CLI.repository.appendingPathComponent("dist/cloudsync_\(version ?? "?")_\(architecture).deb")
    })

    /// Why the package cannot be built here, or nil.
    static var packagingUnavailable: String? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-shlibdeps") ? nil : "dpkg-dev is not installed (scripts/install-system-packages.sh)"
    }
    static var rootUnavailable: String? { packagingUnavailable ?? DebianRoot.unavailableReason }

    /// Runs `script` in `root`, records a failure with its output unless it exits 0; returns the output.
    @discardableResult
    static func expectSuccess(_ script: String, in root: DebianRoot, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try root.run(script)
        #expect(result.status == 0, "`\(script)` exited \(result.status):\n\(result.output)", sourceLocation: sourceLocation)
        return result.output
    }

    @Test(.enabled(if: packagingUnavailable == nil, Comment(rawValue: packagingUnavailable ?? "")))
    func theControlFileNamesTheVersionAndThePackageOfEveryLibraryTheBinaryLinks() throws {
        let deb = try Self.package.get()
        let field = { (name: String) in try CLI.run(["--field", deb.path, name], tool: "/usr/bin/dpkg-deb").lines[0] }
        #expect(try field("Version") == Self.version)
        let depends = try field("Depends")
        let dependsOn = Set(depends.split(separator: ",").map { $0.split(separator: " ")[0].trimmingCharacters(in: .whitespaces) })
        #expect(!depends.lowercased().contains("swift"))
        // Every library the packaged binary needs belongs to a package named in Depends (libstdc++6
        // and libgcc-s1 too, though a minimal root happens to have them).
        let unpacked = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: unpacked) }
        #expect(try CLI.run(["-x", deb.path, unpacked.path], tool: "/usr/bin/dpkg-deb").status == 0)
        let dynamic = try CLI.run(["-d", unpacked.appendingPathComponent("usr/bin/cloudsync").path], tool: "/usr/bin/readelf")
        let needed = dynamic.lines.compactMap { line in line.contains("(NEEDED)") ? line.split(separator: "[").last?.split(separator: "]").first.map(String.init) : nil }
        #expect(needed.contains("libxml2.so.2") && needed.contains("libsqlite3.so.0") && needed.contains("libqrencode.so.4") && needed.contains("libz.so.1"), "\(needed)")
        for library in needed {
            let owner = try CLI.run(["-S", "*/\(library)"], tool: "/usr/bin/dpkg")
            let package = owner.lines.first?.split(separator: ":").first.map(String.init) ?? "?"
            #expect(owner.status == 0 && dependsOn.contains(package), "\(library) is in \(package), which Depends (\(depends)) does not name")
        }
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
        // Files belong to root, not to whoever built the package, and everyone may read them.
        for entry in listing.split(separator: "\n") {
            #expect(entry.contains("root/root") && (entry.hasPrefix("l") || entry.dropFirst(7).hasPrefix("r")), "\(entry)")
        }
    }

    @Test(.enabled(if: rootUnavailable == nil, Comment(rawValue: rootUnavailable ?? "")))
    func installsWithAptInAFreshDebianRootAndRunsThereWithoutSwift() throws {
        let deb = try Self.package.get()
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try DebianRoot(in: directory)
        try root.copy(deb.path, to: "/tmp/\(deb.lastPathComponent)")
        try root.copy(CLI.sample, to: "/tmp/export.zip")

        // The package alone: apt must find every library it needs from Depends.
        try Self.expectSuccess("apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/\(deb.lastPathComponent)", in: root)
        let swift = try root.run("command -v swift; for d in /opt/swift /usr/lib/swift /usr/share/swift; do [ -e $d ] && echo $d; done; ldconfig -p | grep -i swift")
        #expect(swift.output.isEmpty, "the root has Swift, so it cannot show the package does without it: \(swift.output)")
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
            // Each page renders under both names, with groff's warnings on.
            let rendered = try Self.expectSuccess("MANWIDTH=80 man --warnings -P cat cloudsync.\(command) 2>&1 && man -w cloudsync-\(command)", in: root)
            #expect(rendered.contains("cloudsync \(command)") && !rendered.contains("warning"), "man cloudsync.\(command):\n\(rendered.prefix(1000))")
        }

        // Each shell finds the completions where it looks, and they complete.
        let bash = try Self.expectSuccess("""
            bash -O extglob -c '. /usr/share/bash-completion/completions/cloudsync; COMP_WORDS=(cloudsync convert --out); COMP_CWORD=2; \
            COMP_LINE="cloudsync convert --out"; COMP_POINT=${#COMP_LINE}; _cloudsync cloudsync --out convert; printf "%s\\n" "${COMPREPLY[@]}"'
            """, in: root)
        #expect(bash.split(separator: "\n").contains("--output"), "bash offers: \(bash)")
        let fish = try Self.expectSuccess("fish -c 'complete -C \"cloudsync rep\"'", in: root)
        #expect(fish.contains("report"), "fish offers: \(fish)")
        // compinit finds _cloudsync on zsh's own fpath and binds it to the command.
        let zsh = try Self.expectSuccess("zsh -fc 'autoload -U compinit && compinit -u -D && print -r -- $_comps[cloudsync]'", in: root)
        #expect(zsh.trimmingCharacters(in: .whitespacesAndNewlines) == "_cloudsync", "zsh binds: \(zsh)")
    }
}
