public import Foundation

/// A minimal Debian system in a folder, made by `debootstrap --variant=minbase` (apt, dpkg, bash and
/// little else: no Swift, no man, no development packages), and commands run inside it as on a
/// freshly installed machine. Each command runs under `chroot` in its own mount namespace with its
/// own /proc, so nothing stays mounted on the host when the command ends, even if the test dies.
public struct DebianRoot {
    public let path: URL
    let logs: URL

    /// Why a root cannot be made here, or nil: debootstrap and chroot need root, and the tools.
    public static var unavailableReason: String? {
        if getuid() != 0 { return "making a Debian root needs root (debootstrap, chroot)" }
        for tool in ["/usr/sbin/debootstrap", "/usr/sbin/chroot", "/usr/bin/unshare"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (Debian: debootstrap, coreutils, util-linux)"
        }
        return nil
    }

    /// Makes a `suite` root in `directory`/root from `mirror` (or $CLOUDSYNC_DEBIAN_MIRROR, or
    /// deb.debian.org); about 30 s and 100 MB with a near mirror.
    public init(suite: String = "bookworm", in directory: URL, mirror: String? = nil) throws {
        path = directory.appendingPathComponent("root")
        logs = directory
        let source = mirror ?? ProcessInfo.processInfo.environment["CLOUDSYNC_DEBIAN_MIRROR"] ?? "http://deb.debian.org/debian"
        let log = directory.appendingPathComponent("debootstrap.log").path
        let status = try spawnAndWait(["/usr/sbin/debootstrap", "--variant=minbase", suite, path.path, source], output: log)
        guard status == 0 else {
            throw ClusterError("debootstrap \(suite) from \(source) failed (\(status)):\n\(Self.tail(of: log))")
        }
        // apt inside needs the host's resolver to reach the mirror: its contents, even where the
        // host's file is a link (systemd-resolved) that would point nowhere inside the root.
        let resolver = path.appendingPathComponent("etc/resolv.conf")
        try? FileManager.default.removeItem(at: resolver)
        try Data(contentsOf: URL(fileURLWithPath: "/etc/resolv.conf")).write(to: resolver)
    }

    /// Runs `script` with /bin/sh inside the root, as root, with a plain environment (no host PATH
    /// entries such as /opt/swift); returns the exit status and stdout and stderr together.
    public func run(_ script: String) throws -> (status: Int32, output: String) {
        let log = logs.appendingPathComponent("command.log").path
        let status = try spawnAndWait(["/usr/bin/unshare", "--mount", "--pid", "--fork", "--mount-proc=\(path.path)/proc",
                                       "/usr/sbin/chroot", path.path, "/usr/bin/env", "-i",
                                       "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                       "HOME=/root", "LANG=C.UTF-8", "TERM=dumb", "DEBIAN_FRONTEND=noninteractive",
                                       "/bin/sh", "-c", script], output: log)
        return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// Copies a host file into the root at `inside` (an absolute path in the root).
    public func copy(_ file: String, to inside: String) throws {
        let target = path.appendingPathComponent(String(inside.dropFirst()))
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(atPath: file, toPath: target.path)
    }

    /// The bytes of a file inside the root.
    public func contents(of inside: String) throws -> Data {
        try Data(contentsOf: path.appendingPathComponent(String(inside.dropFirst())))
    }

    public static func tail(of file: String, lines: Int = 30) -> String {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
