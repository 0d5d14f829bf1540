import Foundation

/// Files that hold tokens must be readable by their owner alone: anyone else on the machine who can
/// read one can write health data as its user, or read theirs.
enum SecretFileCheck {
    /// Says on stderr when `path`'s group or other users may read or write it. A warning rather than
    /// a refusal: a token file made with the default umask worked before this check existed.
    static func warnIfOthersCanRead(_ path: String, what: String, command: String) {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int,
              mode & 0o066 != 0 else { return }
        printError("\(command): warning: other users of this machine can read \(what) \(path) (mode \(String(mode & 0o777, radix: 8))): "
                   + "chmod 600 \(path)")
    }
}
