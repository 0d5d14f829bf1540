import Foundation

/// The folder that receives CloudCare batch files (`batch-000001.json`, …).
///
/// Why the checks: whatever later posts `DIR/*.json` must see one run's batches only. Writing into
/// a folder that holds an earlier run's batches would overwrite some and keep the others (two
/// userIds, two dataRanges mixed), so a folder that is not empty is refused unless the caller asks
/// to replace its batch files.
package enum BatchFolder {
    package static func isBatchFile(_ name: String) -> Bool {
        name.hasPrefix("batch-") && name.hasSuffix(".json")
    }

    /// Creates `path` if missing; refuses a folder that holds anything unless `replacing`, which
    /// deletes the batch files of an earlier run (and only those).
    /// `isOurs` says which files of an earlier run `replacing` deletes (batch files by default).
    package static func prepare(_ path: String, replacing: Bool, isOurs: (String) -> Bool = isBatchFile) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ConversionError.outputFolder(path, "it is a file; --output takes a folder for the batch files")
            }
            let entries: [String]
            do { entries = try manager.contentsOfDirectory(atPath: path) } catch {
                throw ConversionError.outputFolder(path, "cannot list the folder (\(error.localizedDescription))")
            }
            let batches = entries.filter(isOurs)
            if replacing {
                for name in batches {
                    do { try manager.removeItem(atPath: path + "/" + name) } catch {
                        throw ConversionError.outputFolder(path, "cannot remove \(name) (\(error.localizedDescription))")
                    }
                }
            } else if !entries.isEmpty {
                let what = batches.isEmpty ? "\(entries.count) other \(entries.count == 1 ? "file" : "files")"
                    : "\(counted(batches.count, "file")) of an earlier run"
                throw ConversionError.outputFolder(path, "the folder is not empty (it holds \(what)); "
                    + "choose an empty or new folder, or add --force to replace the files of the earlier run")
            }
            return
        }
        do {
            try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw ConversionError.outputFolder(path, "cannot create the folder (\(error.localizedDescription))")
        }
    }
}
