public import Foundation

/// Paths of the repository, its samples and the shared corpus (which tests skip, saying so through
/// the test runner, when it is absent).
public enum Paths {
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let samples = repository.appendingPathComponent("samples")
    public static let sampleZip = samples.appendingPathComponent("export.zip").path
    public static let sampleXML = samples.appendingPathComponent("export.xml").path
    public static let corpus = repository.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    public static var corpusExists: Bool { FileManager.default.fileExists(atPath: corpus.path) }
    /// Health Auto Export's own sample (made up), and the real files of the corpus.
    public static let sampleHealthAutoExport = samples.appendingPathComponent("health-auto-export.json").path
    /// The app's other arrays (made up): medications, State of Mind, symptoms, cycle tracking, an
    /// ECG, a heart-rate notification, a workout with its series.
    public static let samplePhoneArrays = samples.appendingPathComponent("health-auto-export-arrays.json").path
    public static let haeCorpus = corpus.appendingPathComponent("hae")
    public static var haeCorpusExists: Bool { FileManager.default.fileExists(atPath: haeCorpus.path) }
    public static var haeCorpusFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: haeCorpus.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
            .map { haeCorpus.appendingPathComponent($0).path }
    }
}

/// A fresh temporary directory per test, in the test process's own folder (`TestFolder`).
public func makeTemporaryDirectory(_ name: String = #function) throws -> URL {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let url = TestFolder.root.appendingPathComponent("\(safe)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The folder of this test process's temporary directories, removed when the process exits: the
/// directories of tests that do not remove their own (a store a child process still had open, an
/// archive a failed expectation left) were about 600 a run of the suite, left in /tmp.
enum TestFolder {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cloudsync-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        removedAtExit = root.path
        atexit { if let path = TestFolder.removedAtExit { try? FileManager.default.removeItem(atPath: path) } }
        return root
    }()

    nonisolated(unsafe) static var removedAtExit: String?
}

/// Writes `text` to a new file and returns its path.
public func writeFile(_ text: String, named name: String = "export.xml", in directory: URL? = nil) throws -> String {
    let dir = try directory ?? makeTemporaryDirectory()
    let url = dir.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

/// The repository's Python with DuckDB (`scripts/install-test-tools.sh`), when it is installed.
public enum DuckDB {
    public static let python = Paths.repository.appendingPathComponent(".venv/bin/python").path
    public static var isInstalled: Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? CLI.run(["-c", "import duckdb"], tool: python).status) == 0
    }
}
