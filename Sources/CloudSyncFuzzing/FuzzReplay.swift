import Foundation

/// Without libFuzzer, a fuzz executable runs its target once on each file or directory of files
/// named on the command line: how a crash libFuzzer saved is replayed under a debugger.
public enum FuzzReplay {
    public static func main(_ target: (UnsafeRawBufferPointer) -> Void) {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) FILE|DIRECTORY...\n  (build with scripts/fuzz.sh to fuzz)\n".utf8))
            exit(64)
        }
        var count = 0
        for path in paths {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("\(file): cannot read\n".utf8))
                    exit(66)
                }
                data.withUnsafeBytes(target)
                count += 1
            }
        }
        FileHandle.standardError.write(Data("replayed \(count) inputs\n".utf8))
    }

    /// `path` itself, or the regular files directly inside it, sorted.
    public static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { "\(path)/\($0)" }
    }
}
