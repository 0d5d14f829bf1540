public import Foundation

/// Where the store lives when `--store` is not given: `$CLOUDSYNC_STORE`, else
/// `$XDG_DATA_HOME/cloudsync/staging.sqlite`, else `~/.local/share/cloudsync/staging.sqlite`.
public enum StoreLocation {
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["CLOUDSYNC_STORE"], !path.isEmpty { return path }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return dataHome + "/cloudsync/staging.sqlite"
    }
}
